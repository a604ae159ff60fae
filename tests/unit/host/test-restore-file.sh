#!/bin/bash
# The knob's value as found is kept in a restore file ($VMPCTL_RUN_DIR)
# while vmpctl ab runs: after a kill -9 of vmpctl itself, vmpctl ab
# --restore FILE puts the knob back byte for byte and removes the file; a
# clean end leaves no file. Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
export VMPCTL_RUN_DIR=$scratch/run
# a file knob holds any bytes: two lines, a tab, no final newline
printf 'found\tvalue\nsecond line' >"$knob"
cp "$knob" "$scratch/found"

# A clean end: the knob as found, no restore file left.
"$VMPCTL" ab -q --knob "$knob" --a 1 --b 0 -n 2 -w 0 -- true >/dev/null
check "clean end: the knob as found" same_bytes "$knob" "$scratch/found"
check "clean end: no restore file left" \
	[ -z "$(find "$VMPCTL_RUN_DIR" -type f 2>/dev/null)" ]

# kill -9 while the knob is at B: the knob stays changed, the file is left.
"$VMPCTL" ab -q --knob "$knob" --a 1 --b 0 -n 100000 -w 0 -- sleep 0.02 \
	>/dev/null 2>&1 &
ab_pid=$!
wait_for_content "$knob" 0 || fail "the knob never reached B"
restore=$VMPCTL_RUN_DIR/ab-$ab_pid.restore
# enable and disable leave the restore file of a running ab alone
"$VMPCTL" disable --restore-leftover >"$scratch/out" 2>"$scratch/err"
check "--restore-leftover: a running ab's restore file is left alone" [ -f "$restore" ]
check "--restore-leftover: a running ab is not named" \
	not_grep "ab-$ab_pid" "$scratch/out" "$scratch/err"
kill -9 "$ab_pid"
wait "$ab_pid" 2>/dev/null
check "kill -9: the restore file is left ($restore)" [ -f "$restore" ]
check "kill -9: the knob is still changed" [ "$(cat "$knob")" != "$(cat "$scratch/found")" ]

# enable (and disable) name a dead ab's leftover: the knob, the value it
# found, the command that puts it back; they change nothing of it.
"$VMPCTL" enable >/dev/null 2>"$scratch/err"
check "enable, a leftover: the knob is named" \
	grep -qF "vmpctl: enable: warning: vmpctl ab (pid $ab_pid) ended without putting back $knob, which it found holding 'found\tvalue\nsecond line'" "$scratch/err"
check "enable, a leftover: the command to put it back is named" \
	grep -qF "put it back with: vmpctl ab --restore $restore (or vmpctl enable --restore-leftover)" "$scratch/err"
check "enable, a leftover: the knob is left changed" \
	[ "$(cat "$knob")" != "$(cat "$scratch/found")" ]
check "enable, a leftover: the restore file is left" [ -f "$restore" ]
"$VMPCTL" enable --help | grep -q -- "--restore-leftover"
check "enable --help names --restore-leftover" [ $? -eq 0 ]

# --restore-leftover puts it back first, whatever happens to the knob next
cp "$restore" "$scratch/leftover"
"$VMPCTL" disable --restore-leftover >"$scratch/out" 2>"$scratch/err"
check "disable --restore-leftover: the knob as found, byte for byte" \
	same_bytes "$knob" "$scratch/found"
check "disable --restore-leftover: the restore file is removed" [ ! -e "$restore" ]
check "disable --restore-leftover: says what it restored" \
	grep -qF "restored: $knob to 'found\tvalue\nsecond line' as found by vmpctl ab (pid $ab_pid), from $restore" "$scratch/out"
check "disable --restore-leftover: no warning left" not_grep "warning" "$scratch/err"
printf 'not a restore file\n' >"$VMPCTL_RUN_DIR/ab-$ab_pid.restore"
"$VMPCTL" enable --restore-leftover >/dev/null 2>"$scratch/err"
check "enable --restore-leftover of another file: exit 2" [ $? -eq 2 ]
check "enable --restore-leftover of another file: says so" \
	grep -q "is not a vmpctl restore file" "$scratch/err"
mv "$scratch/leftover" "$restore"

"$VMPCTL" ab --restore "$restore" 2>"$scratch/err"
check "--restore: exit 0 ($(cat "$scratch/err"))" [ $? -eq 0 ]
check "--restore: the knob as found, byte for byte" same_bytes "$knob" "$scratch/found"
check "--restore: the restore file is removed" [ ! -e "$restore" ]

# What --restore refuses.
"$VMPCTL" ab --restore "$restore" 2>/dev/null
check "--restore of a missing file: exit 3" [ $? -eq 3 ]
printf 'not a restore file\n' >"$scratch/other"
"$VMPCTL" ab --restore "$scratch/other" 2>"$scratch/err"
check "--restore of another file: exit 2" [ $? -eq 2 ]
check "--restore of another file: says so" \
	grep -q "is not a vmpctl restore file" "$scratch/err"
check "--restore of another file: the file is left alone" [ -f "$scratch/other" ]
"$VMPCTL" ab --restore "$scratch/other" -- true 2>/dev/null
check "--restore with a command: exit 2" [ $? -eq 2 ]

# A run directory that cannot be made: a warning, the A/B still runs.
VMPCTL_RUN_DIR=$knob/sub "$VMPCTL" ab -q --knob "$knob" --a 1 --b 0 -n 2 -w 0 \
	-- true >/dev/null 2>"$scratch/err"
check "no run directory: the A/B runs" [ $? -eq 0 ]
check "no run directory: warned" grep -q "warning: no restore file" "$scratch/err"

finish
