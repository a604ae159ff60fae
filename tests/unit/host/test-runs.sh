#!/bin/bash
# What each run of vmpctl ab's command gets: stdin from /dev/null, so the
# first run does not eat input meant for none of them (issue 4); stdout
# over the 1 MiB cap keeps its tail, where --metric still finds the number,
# and vmpctl says it was cut (issue 6). Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
log=$scratch/log
printf '1\n' >"$knob"

# Issue 4: every run reads an empty stdin, not what vmpctl was given.
: >"$log"
printf 'line one\nline two\n' | "$VMPCTL" ab -q --knob "$knob" -n 2 -w 1 -- \
	sh -c 'wc -c >>"$1"' sh "$log" >/dev/null
printf '0\n0\n0\n0\n0\n' >"$scratch/want"
check "stdin: every run reads 0 bytes" same_bytes "$log" "$scratch/want"

# Issue 6: 3 MiB of output, the number at the end.
big='head -c 3145728 /dev/zero | tr "\0" x; echo; echo "value=4$1"'
out=$("$VMPCTL" ab -q --csv --knob "$knob" -n 2 -w 0 --metric 'value=([0-9]+)' -- \
	sh -c "$big" sh 2 2>"$scratch/err")
status=$?
check "big output: exit 0 (status $status; $(head -c 300 "$scratch/err"))" [ "$status" -eq 0 ]
check "big output: the metric from the tail (42)" grep -q '^metric,0,2,42,' <<<"$out"
check "big output: says stdout was cut" \
	grep -q 'wrote 3145738 bytes to stdout; --metric searches only the last 1048576' "$scratch/err"

# A NUL in the output does not hide what follows it.
out=$("$VMPCTL" ab -q --csv --knob "$knob" -n 2 -w 0 --metric 'value=([0-9]+)' -- \
	sh -c 'printf "a\0b\nvalue=7\n"' 2>&1)
check "NUL in output: the metric after it is found" grep -q '^metric,0,2,7,' <<<"$out"

finish
