#!/bin/bash
# Losses by arm, whole runs: with --ignore-failure, runs of arm B that
# fail (7 of them) and none of A's are the answer itself, not a detail
# the dropped blocks hide: "B fails more: 7 of 17 against 0 of N", exit
# 1, in the table, the JSON and the --save file (ab report says it
# again). Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"
printf '0\n' >"$scratch/failures"

# arm B (knob 0) fails its first 7 runs; every run prints its metric
cmd='if [ "$(cat "$1")" = 0 ] && [ "$(cat "$2")" -lt 7 ]; then
	echo $(($(cat "$2") + 1)) >"$2"; exit 1; fi; echo "x 10"'
"$VMPCTL" ab -q --knob "$knob" -n 10 -w 0 --ignore-failure --metric 'x ([0-9]+)' \
	--save "$scratch/save" -- sh -c "$cmd" sh "$knob" "$scratch/failures" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "exit 1 despite --ignore-failure (status $status)" [ "$status" -eq 1 ]
check "the reason on stderr" grep -q '^vmpctl: ab: B fails more: 7 of 17 against 0 of [0-9]* (Fisher p ' "$scratch/err"
check "the table counts the losses by arm" \
	grep -q '^losses by arm: A 0 of [0-9]* runs (failed 0, timed out 0); B 7 of 17 runs (failed 7, timed out 0); Fisher p ' "$scratch/out"
check "the table says NO VERDICT" grep -q '^NO VERDICT: losses depend on the arm: B fails more' "$scratch/out"
check "--save holds each failed run" [ "$(grep -c '"type":"failed_run","arm":"B"' "$scratch/save")" -eq 7 ]
check "--save's last line has the losses" \
	grep -q '"losses":{"a":{"runs":[0-9]*,"failed":0,"timed_out":0,"lost":0},"b":{"runs":17,"failed":7,"timed_out":0,"lost":7},"fisher_p":[0-9.e-]*,"even":false' \
	<(tail -n 1 "$scratch/save")
"$VMPCTL" ab report "$scratch/save" >"$scratch/again" 2>/dev/null
check "ab report counts them again" grep -q '^losses by arm: A 0 of [0-9]* runs (failed 0, timed out 0); B 7 of 17 runs' "$scratch/again"

# the same failures in both arms: even, the A/B goes on to its verdict
printf '0\n' >"$scratch/failures"
cmd='if [ "$(cat "$2")" -lt 2 ]; then echo $(($(cat "$2") + 1)) >"$2"; exit 1; fi; echo "x 10"'
"$VMPCTL" ab -q --knob "$knob" -n 6 -w 0 --ignore-failure --metric 'x ([0-9]+)' \
	-- sh -c "$cmd" sh "$knob" "$scratch/failures" >"$scratch/out" 2>"$scratch/err"
status=$?
check "two failures, one an arm: exit 0 (status $status: $(head -c 300 "$scratch/err"))" [ "$status" -eq 0 ]
check "... counted, and even" grep -q '^losses by arm: .*Fisher p ' "$scratch/out"
check "... no NO VERDICT" not_grep '^NO VERDICT' "$scratch/out"

finish
