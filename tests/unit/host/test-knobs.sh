#!/bin/bash
# Knobs of every kind that can be tried on a host without changing it:
# files on a real file system (issue 1), FIFOs, read-only kernel files,
# a knob that cannot be put back (issue 5). Kernel [list] knobs and
# sysctls that vmpctl writes are tried in the VM guests
# (tests/vm/guest/tests-vmpctl.sh). Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
log=$scratch/log

# Issue 1: "1\n" with --a 1 --b 100 left "1\n0\n" behind, and arm A's
# command read "1\n0".
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"
"$VMPCTL" ab -q --knob "$knob" --a 1 --b 100 -n 2 -w 0 -- \
	sh -c 'od -An -c "$1" | tr -s " " >>"$2"' sh "$knob" "$log" >/dev/null
status=$?
check "file knob: ab exits 0" [ "$status" -eq 0 ]
check "file knob: restored byte for byte" same_bytes "$knob" "$scratch/found"
printf ' 1 \\n\n 1 0 0 \\n\n 1 0 0 \\n\n 1 \\n\n' >"$scratch/want-log"
check "file knob: each arm's command read its value alone" \
	same_bytes "$log" "$scratch/want-log"

# A file without a final newline comes back as it was.
printf 'no newline' >"$knob"
cp "$knob" "$scratch/found"
"$VMPCTL" ab -q --knob "$knob" --a x --b y -n 2 -w 0 -- true >/dev/null
check "file knob without newline: restored byte for byte" \
	same_bytes "$knob" "$scratch/found"

# Issue 5: a FIFO knob hung in open(). It must be refused at once.
mkfifo "$scratch/fifo"
out=$(timeout 10 "$VMPCTL" ab --knob "$scratch/fifo" -n 2 -- true 2>&1)
status=$?
check "FIFO knob: refused with exit 3 (not a hang: $status)" [ "$status" -eq 3 ]
check "FIFO knob: says it is a FIFO ($out)" grep -q "is a FIFO" <<<"$out"

# Issue 5: as root, access(W_OK) passed for read-only sysfs files; the run
# then failed, and vmpctl "restored" a knob it never wrote, with the raw
# newline of the value in its message. Such a knob must be refused before
# any run, in one line. (Nothing is written: opening them for writing
# fails, for root too.)
for ro in /sys/devices/system/cpu/online /proc/sys/kernel/osrelease; do
	before=$(cat "$ro")
	rm -f "$log"
	out=$("$VMPCTL" ab --knob "$ro" --a x --b y -n 2 -- sh -c ': >"$1"' sh "$log" 2>&1)
	status=$?
	check "read-only $ro: refused with exit 3 (got $status)" [ "$status" -eq 3 ]
	check "read-only $ro: no run started" [ ! -e "$log" ]
	check "read-only $ro: one line ($out)" [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]
	check "read-only $ro: says it cannot be written" grep -q 'cannot be written' <<<"$out"
	check "read-only $ro: nothing claims a restore" [ -z "$(grep -i restor <<<"$out")" ]
	check "read-only $ro: unchanged" [ "$(cat "$ro")" = "$before" ]
done

# A knob that cannot be put back: the last run replaces the file (a cgroup
# removed and made again, say). The report still comes, and exit 4 says the
# knob was not restored.
printf '1\n' >"$knob"
: >"$log"
out=$("$VMPCTL" ab -q --csv --knob "$knob" -n 2 -w 0 -- sh -c '
	echo run >>"$2"
	[ "$(wc -l <"$2")" -lt 4 ] || { mv "$1" "$1.old"; echo 1 >"$1"; }' sh "$knob" "$log" 2>"$scratch/err")
status=$?
check "unrestorable knob: exit 4 (got $status)" [ "$status" -eq 4 ]
check "unrestorable knob: the report is printed" grep -q '^wall(s),' <<<"$out"
check "unrestorable knob: stderr names it" grep -q "KNOB NOT RESTORED" "$scratch/err"

# A value a [list] knob does not offer is refused before any write; a
# regular file holding a bracketed line is a plain file, not a list.
printf 'always [madvise] never\n' >"$knob"
cp "$knob" "$scratch/found"
"$VMPCTL" ab -q --knob "$knob" --a always --b sometimes -n 2 -w 0 -- true >/dev/null
check "bracketed text in a plain file: written as is, restored" \
	same_bytes "$knob" "$scratch/found"

finish
