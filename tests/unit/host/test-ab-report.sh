#!/bin/bash
# vmpctl ab report FILE [--baseline FILE2]: the report of a --save file is
# the live one computed again (whole runs and interleaved), also when
# vmpctl was killed with -9 halfway; a baseline is compared arm by arm.
# Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"

# metric: 10 in arm A (knob 1), B_VALUE in arm B (knob 0), plus noise 0..2
metric_cmd='k=$(cat "$1"); echo "x $(( (k ? 10 : $2) + RANDOM % 3 ))"'

save_runs() { # FILE B_VALUE
	"$VMPCTL" ab -q --knob "$knob" -n 6 -w 0 --metric 'x ([0-9]+)' \
		--save "$1" -- sh -c "$metric_cmd" sh "$knob" "$2"
}

# Whole runs: the same table from the file as live.
save_runs "$scratch/runs" 20 >"$scratch/live"
"$VMPCTL" ab report "$scratch/runs" >"$scratch/again"
check "whole runs: ab report exits 0" [ $? -eq 0 ]
# the elapsed seconds closing the knob line are the live run's, the file
# knows the runs' own times: 1 s against 0 s on a loaded host
check "whole runs: the report from the file is the live one" \
	diff <(sed '/^knob /s/, [0-9]* s$//' "$scratch/live") <(sed '/^knob /s/, [0-9]* s$//' "$scratch/again")

# A file cut short (the header and the first 4 runs) still reports them.
head -n 5 "$scratch/runs" >"$scratch/cut"
"$VMPCTL" ab report "$scratch/cut" >"$scratch/again"
check "cut file: reported" [ $? -eq 0 ]
check "cut file: its 2 runs per arm" grep -Eq '^metric +A +2 ' "$scratch/again"

# Interleaved: the same verdict, pairs and balance from the file as live.
interleave() { # SAVE-FILE
	"$VMPCTL" ab -q --knob "$knob" --interleave 0.05 --max-flip 5 -n 8 --save "$1" -- \
		"$VMPCTL" pft --size 4M --duration 30 --report-interval 0.005
}
interleave "$scratch/il" >"$scratch/live"
"$VMPCTL" ab report "$scratch/il" >"$scratch/again"
check "interleaved: ab report exits 0" [ $? -eq 0 ]
# the elapsed time is the live run's, the file knows the last slice's end
check "interleaved: the report from the file is the live one" \
	diff <(grep -v '^time:' "$scratch/live") <(grep -v '^time:' "$scratch/again")

# kill -9 of vmpctl halfway: what was saved is reported.
printf '1\n' >"$knob"
"$VMPCTL" ab -q --knob "$knob" --interleave 0.05 --max-flip 5 -n 100000 --save "$scratch/killed" -- \
	"$VMPCTL" pft --size 4M --duration 60 --report-interval 0.005 >/dev/null 2>&1 &
ab_pid=$!
for _ in $(seq 200); do
	[ "$(grep -c '"type":"slice"' "$scratch/killed" 2>/dev/null)" -ge 12 ] && break
	sleep 0.05
done
kill -9 "$ab_pid"
wait "$ab_pid" 2>/dev/null
"$VMPCTL" ab report "$scratch/killed" >"$scratch/again" 2>"$scratch/err"
check "kill -9: the saved slices are reported ($(cat "$scratch/err"))" \
	grep -q '^pairs: [0-9]* kept' "$scratch/again"

# --baseline: arm A unchanged (10), arm B from 20 to 30, lower is better.
save_runs "$scratch/base" 20 >/dev/null
save_runs "$scratch/now" 30 >/dev/null
"$VMPCTL" ab report --baseline "$scratch/base" "$scratch/now" >"$scratch/cmp"
check "baseline: exits 0" [ $? -eq 0 ]
check "baseline: arm A unchanged" grep -Eq '^A .* ~$' "$scratch/cmp"
check "baseline: arm B now worse" grep -Eq '^B .* now worse$' "$scratch/cmp"
check "baseline: the effect in both" \
	grep -q '^effect of B vs A: baseline +[0-9.]*% .*, now +[0-9.]*% ' "$scratch/cmp"
"$VMPCTL" ab report --json --baseline "$scratch/base" "$scratch/now" >"$scratch/json"
check "baseline --json: two valid lines" [ "$(wc -l <"$scratch/json")" -eq 2 ]
check "baseline --json: the report is valid JSON" "$JSON_VALID" < <(head -n 1 "$scratch/json")
check "baseline --json: the comparison is valid JSON" "$JSON_VALID" < <(tail -n 1 "$scratch/json")
check "baseline --json: arm B now worse" grep -q '"arm":"B".*"verdict":"now worse"' \
	<(tail -n 1 "$scratch/json")

# Files of different kinds, or not a --save file: refused.
"$VMPCTL" ab report --baseline "$scratch/runs" "$scratch/il" >/dev/null 2>"$scratch/err"
check "baseline of another kind: exit 2" [ $? -eq 2 ]
printf 'not json\n' >"$scratch/bad"
"$VMPCTL" ab report "$scratch/bad" >/dev/null 2>"$scratch/err"
check "not a --save file: exit 1" [ $? -eq 1 ]
check "not a --save file: says where" grep -q "bad:1: not a JSON object" "$scratch/err"

finish
