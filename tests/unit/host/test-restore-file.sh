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
kill -9 "$ab_pid"
wait "$ab_pid" 2>/dev/null
restore=$VMPCTL_RUN_DIR/ab-$ab_pid.restore
check "kill -9: the restore file is left ($restore)" [ -f "$restore" ]
check "kill -9: the knob is still changed" [ "$(cat "$knob")" != "$(cat "$scratch/found")" ]

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
