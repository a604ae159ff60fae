#!/bin/bash
# Real-process A/A calibration of vmpctl ab --interleave: AA_RUNS runs
# (default 240) of the real vmpctl against a file knob flipped for real
# between two values a fast fake workload (aa-workload) ignores. Each "B
# better" or "B worse" is a false positive; the rate's Wilson 95% interval
# must hold the nominal 5% (or lie below it) and be at most 7 points wide,
# else the runs were too few to say. A refusal (unbalanced pairs) is no
# false positive, but more than a fifth of the runs refused would hide
# them: unbalanced pairs, fewer than 6 kept pairs (no signed-rank p below
# 0.05) and carry-over (its own A/A rate, up to 5%) refuse. Slices of 20 ms, 8 pairs, report intervals of 2 ms;
# about 0.4 s per run, mostly asleep, four at a time: about 25 s for 200.
# Inputs: see lib.sh, and AA_WORKLOAD, the fake workload; AA_RUNS.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

: "${AA_WORKLOAD:?set AA_WORKLOAD to the aa-workload binary}"
runs=${AA_RUNS:-240}

# one A/A run into $scratch/result.SEED: "exit-status verdict"; its own knob
aa_run() {
	local seed=$1 knob=$scratch/knob.$1
	printf 'x\n' >"$knob"
	"$VMPCTL" ab -q --json --knob "$knob" --a x --b y --interleave 0.02 -n 8 \
		--seed "$seed" -- "$AA_WORKLOAD" "$seed" 0.002 30 \
		>"$scratch/out.$seed" 2>"$scratch/err.$seed"
	echo "$? $(grep -o '"verdict":"[^"]*"' "$scratch/out.$seed" | head -n 1)" \
		>"$scratch/result.$seed"
	[ "$(cat "$knob")" = x ] || echo "run $seed: the knob was left at $(cat "$knob")" \
		>>"$scratch/knobs-left"
}

# mostly asleep (0.02 s of CPU a run): four at a time
for seed in $(seq "$runs"); do
	aa_run "$seed" &
	[ "$((seed % 4))" -ne 0 ] || wait
done
wait

positives=0
refused=0
for seed in $(seq "$runs"); do
	read -r rc verdict <"$scratch/result.$seed"
	case $rc:$verdict in
	0:'"verdict":"~"') ;;
	0:'"verdict":"B better"' | 0:'"verdict":"B worse"') positives=$((positives + 1)) ;;
	# exit 1: unbalanced; 0: too few pairs kept or carry-over
	[01]:'"verdict":"no verdict"') refused=$((refused + 1)) ;;
	*) fail "run $seed: exit $rc, verdict [$verdict]: $(head -c 300 "$scratch/err.$seed")" ;;
	esac
done
check "every knob is back as found" [ ! -e "$scratch/knobs-left" ]

# Wilson's 95% score interval of positives out of the runs with a verdict
read -r rate lo hi < <(awk -v k="$positives" -v n="$((runs - refused))" 'BEGIN {
	z = 1.959963984540054; p = k / n; d = 1 + z * z / n
	c = (p + z * z / (2 * n)) / d
	h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
	printf "%.4f %.4f %.4f\n", p, c - h, c + h
}')
echo "# A/A: $positives false positives in $((runs - refused)) runs with a verdict" \
	"($rate, Wilson 95% [$lo, $hi]), $refused of $runs refused"
check "refusals are at most a fifth of the runs ($refused of $runs)" \
	[ "$((refused * 5))" -le "$runs" ]
check "the false-positive rate's interval holds 5% or lies below it ([$lo, $hi])" \
	awk -v lo="$lo" 'BEGIN { exit !(lo <= 0.05) }'
check "the interval is at most 7 points wide ([$lo, $hi], $runs runs)" \
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(hi - lo <= 0.07) }'

finish
