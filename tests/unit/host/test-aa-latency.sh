#!/bin/bash
# Real-process A/A calibration of the latency that vmpctl ab --interleave
# compares per pair (--preset pgbench: the same sign-flip test as the
# rate). Latency gets no verdict (only the named metric does), but its p
# is printed and must be valid. A fast fake workload (aa-workload
# --pgbench) prints pgbench -P lines whose latency ignores the knob, which
# is flipped for real between two values, in three shapes:
#   plain   noise only
#   period  a 20% drift over the run and a 10% swing with a period of four
#           slices (what a fixed order of arms would alias)
#   flip    every flip, either way, slows the workload by 50% for a few
#           steps (a disturbance carried over into the slice after it)
# Every latency p below 0.05 is a false positive. Per
# shape, the rate's Wilson 95% interval must hold the nominal rate (2/64:
# six pairs, as test-aa-calibration.sh) or lie below it; pooled over the
# shapes it must also be at most 7 points wide, else the runs were too
# few to say. A refusal is no false positive, but more than a tenth
# refused would hide them. AA_LAT_RUNS runs per shape (default 160),
# about 0.5 s each, mostly asleep, six at a time: about 45 s in all.
# Inputs: see lib.sh, and AA_WORKLOAD, the fake workload; AA_LAT_RUNS.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

: "${AA_WORKLOAD:?set AA_WORKLOAD to the aa-workload binary}"
runs=${AA_LAT_RUNS:-160}
shapes="plain period flip"

# one A/A run of SHAPE into $scratch/result.SHAPE.SEED: "exit-status
# latency-p" (the p empty when latency was not compared); its own knob
aa_run() {
	local shape=$1 seed=$2 knob=$scratch/knob.$1.$2 out=$scratch/out.$1.$2 extra=()
	printf 'x\n' >"$knob"
	case $shape in
	period) extra=(--period 0.08) ;;
	flip) extra=(--flip-knob "$knob") ;;
	esac
	"$VMPCTL" ab -q --json --knob "$knob" --a x --b y --interleave 0.02 -n 6 \
		--seed "$seed" --preset pgbench -- \
		"$AA_WORKLOAD" --pgbench "${extra[@]}" "$seed" 0.002 30 \
		>"$out" 2>"$scratch/err.$shape.$seed"
	echo "$? $(grep -o '"mean_ms":{[^}]*}' "$out" | grep -o '"signflip_p":[^,}]*' | cut -d: -f2)" \
		>"$scratch/result.$shape.$seed"
	[ "$(cat "$knob")" = x ] || echo "$shape run $seed: the knob was left at $(cat "$knob")" \
		>>"$scratch/knobs-left"
}

# wilson K N: "rate low high", Wilson's 95% score interval of K in N
wilson() {
	awk -v k="$1" -v n="$2" 'BEGIN {
		z = 1.959963984540054; p = k / n; d = 1 + z * z / n
		c = (p + z * z / (2 * n)) / d
		h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
		printf "%.4f %.4f %.4f\n", p, c - h, c + h
	}'
}

jobs=0
for shape in $shapes; do
	for seed in $(seq "$runs"); do
		aa_run "$shape" "$seed" &
		jobs=$((jobs + 1))
		[ "$((jobs % 6))" -ne 0 ] || wait
	done
done
wait
check "every knob is back as found" [ ! -e "$scratch/knobs-left" ]

all_positives=0
all_verdicts=0
for shape in $shapes; do
	positives=0
	refused=0
	for seed in $(seq "$runs"); do
		read -r rc p <"$scratch/result.$shape.$seed"
		case $rc:$p in
		[01]:[0-9]*)
			if awk -v p="$p" 'BEGIN { exit !(p < 0.05) }'; then
				positives=$((positives + 1))
			fi ;;
		[01]:null) ;;
		1:) refused=$((refused + 1)) ;;
		*) fail "$shape run $seed: exit $rc, latency p [$p]:" \
			"$(head -c 300 "$scratch/err.$shape.$seed")" ;;
		esac
	done
	read -r rate lo hi < <(wilson "$positives" "$((runs - refused))")
	echo "# latency A/A, $shape: $positives false positives in $((runs - refused))" \
		"runs compared (p < 0.05: $rate, Wilson 95% [$lo, $hi]), $refused of $runs refused"
	check "$shape: refusals are at most a tenth of the runs ($refused of $runs)" \
		[ "$((refused * 10))" -le "$runs" ]
	check "$shape: the false-positive rate's interval holds 5% or lies below it ([$lo, $hi])" \
		awk -v lo="$lo" 'BEGIN { exit !(lo <= 0.05) }'
	all_positives=$((all_positives + positives))
	all_verdicts=$((all_verdicts + runs - refused))
done
read -r rate lo hi < <(wilson "$all_positives" "$all_verdicts")
echo "# latency A/A, all shapes: $all_positives false positives in $all_verdicts runs" \
	"($rate, Wilson 95% [$lo, $hi])"
check "all shapes: the interval holds 5% or lies below it ([$lo, $hi])" \
	awk -v lo="$lo" 'BEGIN { exit !(lo <= 0.05) }'
check "all shapes: the interval is at most 7 points wide ([$lo, $hi])" \
	awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(hi - lo <= 0.07) }'

finish
