#!/bin/sh
# make bench, section 4 on the host (bench/run runs it before it boots the
# guest): numbers, never a verdict. One workload, bench/fault-load (real
# page faults, B slowed by real extra work through a --knob file), and in
# one run, side by side:
#  4d. time to a verdict for an injected 5% effect: fixed -n (the pairs a
#      fixed design needs for 5% at power 0.8, from 4e's noise: its time is
#      those pairs at 4e's pace, planned, so not run) against --sequential
#      --target 2% -T LIMIT, with and without the covariate, ROUNDS rounds,
#      which goes first alternating;
#  4e. the MDE reached in BUDGET s of interleaved A/A (no effect injected)
#      with and without variance reduction (order and drift; the CPU time
#      the workload's cgroup got, as --covariate), and what --sequential's
#      always-valid interval reached;
#  4f. the old figures beside the design's on the same saved runs (issue
#      31): whole runs unpaired against within ABBA blocks, interleaved
#      mean and paired t against Hodges-Lehmann and order-adjusted.
# Writes bench/results/ab-sequential.txt. Needs root (a cgroup), jq, cc.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench/host
results=$top/bench/results/ab-sequential.txt
rounds=${BENCH_HOST_ROUNDS:-2}
budget=${BENCH_HOST_SECONDS:-300}
limit=${BENCH_HOST_LIMIT:-180}
vmpctl=$top/tools/vmpctl
effect=5

mkdir -p "$out"
make -s -C "$top/tools" >/dev/null
cc -std=gnu11 -Wall -Wextra -Werror -O2 -o "$out/fault-load" "$top/bench/fault-load.c"
knob=$out/knob
echo 1 >"$knob"

# The workload's cgroup: the interleaved A/B's progress is its page faults,
# counted by the kernel (a counter, read by ab at the slice boundaries: a
# machine this loaded stalls the workload's own rate lines now and then
# for longer than a slice may hold), the covariate the CPU time it got.
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	cgroups=/sys/fs/cgroup/vmpctl-bench-$$
	counter=$cgroups/memory.stat:pgfault
	covariate=$cgroups/cpu.stat:usage_usec
else
	cgroups="/sys/fs/cgroup/memory/vmpctl-bench-$$ /sys/fs/cgroup/cpuacct/vmpctl-bench-$$"
	counter=${cgroups%% *}/memory.stat:pgfault
	covariate=${cgroups#* }/cpuacct.usage
fi
# shellcheck disable=SC2086 # a list of directories
mkdir $cgroups
trap 'rmdir $cgroups 2>/dev/null || true' EXIT
trap 'exit 1' INT TERM

# load EFFECT [DURATION]: the command line of the workload in its cgroups
load() {
	printf "sh -c '"
	for dir in $cgroups; do
		printf 'echo $$ >%s/cgroup.procs && ' "$dir"
	done
	printf "exec %s %s %s 0.05 %s'" "$out/fault-load" "$knob" "$1" "${2:->/dev/null}"
}

interleaved="--knob $knob --interleave 0.5 -w 2 -q --json --counter $counter"
started=$(date +%s)
load_start=$(uptime)
commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)

# 4e: interleaved A/A for BUDGET s, every figure from the one run;
# --target 0.5% only keeps --sequential from ending it early (its
# always-valid interval, tuned for that target, is wide at 300 s).
echo "bench/host-ab: 4e, interleaved A/A for $budget s" >&2
eval "nice \"$vmpctl\" ab $interleaved --seed 1 --sequential --target 0.5% -T $budget \
	--covariate $covariate --save \"$out/aa.jsonl\" -- $(load 0)" >"$out/aa.json" || true
# 4f: whole runs of 1 s, ABBA, for half that time.
echo "bench/host-ab: 4f, whole runs for $((budget / 2)) s" >&2
eval "nice \"$vmpctl\" ab --knob $knob -q --json -T $((budget / 2)) -n 100000 -w 1 \
	-M 'pages_per_s=([0-9.]+)' -H --save \"$out/abba.jsonl\" -- $(load "$effect" 1)" \
	>"$out/abba.json" || true

# the pairs a fixed design needs for EFFECT% at power 0.8 (MDE scales as
# 1/sqrt(n)), and the seconds they take at 4e's pace
fixed_n=$(jq -r --argjson e "$effect" \
	'.metric.mde_pct as $m | .pairs.kept as $n | ($n * ($m / $e) * ($m / $e)) | ceil' "$out/aa.json")
fixed_s=$(jq -r --argjson n "$fixed_n" '$n * .elapsed_s / .pairs.kept | round' "$out/aa.json")

# 4d: ROUNDS rounds of --sequential with and without the covariate, 5% injected.
: >"$out/rounds"
round=1
while [ "$round" -le "$rounds" ]; do
	for design in $([ $((round % 2)) = 1 ] && echo "covariate order" || echo "order covariate"); do
		echo "bench/host-ab: 4d, round $round, sequential, $design" >&2
		opts="--sequential --target 2% -T $limit"
		[ "$design" = order ] || opts="$opts --covariate $covariate"
		eval "nice \"$vmpctl\" ab $interleaved --seed $((100 + round)) $opts -- $(load "$effect")" \
			>"$out/$design-$round.json" || true
		jq -r --arg d "$design" --arg r "$round" '[$r, $d, .elapsed_s, .pairs.kept,
			.sequential.ended_by, .sequential.diff_pct,
			.sequential.always_valid_ci_pct[0], .sequential.always_valid_ci_pct[1]]
			| @tsv' "$out/$design-$round.json" >>"$out/rounds"
	done
	round=$((round + 1))
done

# the median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

{
	echo "# make bench, section 4 on the host: --sequential and variance reduction (issue 33),"
	echo "# the design's figures beside the old ones (issue 31); bench/host-ab.sh"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - started)) s"
	echo "# commit: $commit"
	echo "# host: $(nproc) CPUs, $(uname -r); SHARED: other jobs ran beside this one throughout,"
	echo "#   so the noise is a loaded machine's; read the ratios, not the absolute figures"
	echo "# load at start: $load_start"
	echo "# load at end:  $(uptime)"
	echo "# rounds: $rounds (BENCH_HOST_ROUNDS), A/A: $budget s (BENCH_HOST_SECONDS), sequential -T $limit (BENCH_HOST_LIMIT)"
	echo "# workload: bench/fault-load (256 KiB mapped, faulted, unmapped, again; rate lines"
	echo "#   every 0.05 s); B: ${effect}% of its time spent spinning (4d, 4f), 0% (4e: A/A);"
	echo "#   interleaved: slices of 0.5 s, 2 warmup, random order, the rate from --counter $counter
#   (the workload alone in that cgroup); whole runs: its pages_per_s line"
	echo
	echo "== 4e. MDE reached in $budget s, interleaved A/A, with and without variance reduction"
	jq -r --arg cov "$covariate" '
		def rn($k): if type == "number" then . * $k | round / $k else "-" end; def r1: rn(10); def r2: rn(100); def r3: rn(1000);
		.metric.mde_pct as $m | .sequential as $s |
		"pairs kept: \(.pairs.kept) in \(.elapsed_s | floor) s; pair noise \(.metric.noise_pct | r1)%",
		"covariate: \($cov) (the CPU time the workload got), B vs A \($s.covariate.b_vs_a_pct | r2)%, refused: \($s.covariate.refused)",
		"",
		"adjustment                     variance removed   MDE, fixed design   always-valid 95% CI at the end",
		(["raw", "order", "covariate"][] as $a | $s.tests[$a] as $t |
		 ($t.variance_reduction_pct / 100) as $vr |
		 "\({raw: "none", order: "order and drift", covariate: "order, drift, covariate"}[$a] | . + " " * (30 - length)) \($t.variance_reduction_pct | r1 | tostring | . + "%" | " " * (17 - length) + .)   \($m * (if $vr > 0 then (1 - $vr) | sqrt else 1 end) | r2 | tostring | . + "%" | " " * (17 - length) + .)   [\($t.ci_pct[0] | r2)%, \($t.ci_pct[1] // "inf" | if type == "number" then r2 else . end)%]")
		' "$out/aa.json"
	echo "(MDE: the headline test's, signed-rank, power 0.8, times sqrt(1 - variance removed);"
	echo " an adjustment that removed nothing keeps the raw MDE)"
	echo
	echo "== 4d. time to a verdict, ${effect}% injected (B slower): fixed -n against --sequential --target 2% -T $limit"
	echo "fixed -n $fixed_n: the pairs for ${effect}% at power 0.8 with 4e's noise; at 4e's pace $fixed_s s (planned, not run)"
	printf '%-6s %-22s %8s %6s  %-14s %8s  %s\n' round "sequential, adjusted" "wall s" pairs "ended by" "B vs A" "always-valid 95% CI"
	awk -F '\t' '{ printf "%-6s %-22s %8.1f %6d  %-14s %+7.2f%%  [%+.2f%%, %s]\n", $1, $2 == "order" ? "order and drift" : "order, drift, covariate", $3, $4, $5, $6, $7, $8 == "" ? "inf" : sprintf("%+.2f%%", $8) }' "$out/rounds"
	echo "(a run that ended by max_time gave no answer: its time is a lower bound, the ratio an upper one)"
	for design in order covariate; do
		med=$(awk -F '\t' -v d="$design" '$2 == d { print $3 }' "$out/rounds" | median)
		echo "sequential, $design: median $med s; fixed -n / sequential $(awk -v f="$fixed_s" -v s="$med" 'BEGIN { printf "%.2fx", f / s }'); found (an effect, CI below 0) $(awk -F '\t' -v d="$design" '$2 == d && $5 == "effect" && $8 < 0' "$out/rounds" | wc -l) of $rounds"
	done
	echo
	echo "== 4f. old figures beside the design's, on the same saved runs (build/bench/host/*.jsonl)"
	jq -r 'def rn($k): if type == "number" then . * $k | round / $k else "-" end; def r1: rn(10); def r2: rn(100); def r3: rn(1000);
		.metrics[0] as $m |
		"whole runs, ABBA, 1 s each, \(.elapsed_s | floor) s, \([.runs[] | select(.arm == "A")] | length)/\([.runs[] | select(.arm == "B")] | length) runs, \($m.blocks.n) blocks, '"$effect"'% injected:",
		$m.unpaired as $u |
		"  old: unpaired (Welch, Fieller):   B vs A \($u.diff_pct | r2)% [\($u.diff_ci_pct[0] | r2)%, \($u.diff_ci_pct[1] | r2)%], p \($u.welch_p | r3), MDE \($u.mde_pct | r2)%",
		"  new: the design (\($m.test)):  B vs A \($m.diff_pct | r2)% [\($m.diff_ci_pct[0] | r2)%, \($m.diff_ci_pct[1] | r2)%], p \($m.p | r3), MDE \($m.mde_pct | r2)%",
		"  MDE, unpaired / the design: \(try ($u.mde_pct / $m.mde_pct) catch null | r2)x"' "$out/abba.json"
	jq -r 'def rn($k): if type == "number" then . * $k | round / $k else "-" end; def r1: rn(10); def r2: rn(100); def r3: rn(1000);
		.metric as $m |
		"interleaved, 4e'"'"'s A/A run, \(.pairs.kept) pairs:",
		"  old: mean, paired t, Fieller:     B vs A \($m.ratio - 1 | . * 100 | r2)% [\($m.fieller_ci_pct[0] | r2)%, \($m.fieller_ci_pct[1] | r2)%], p \($m.paired_t_p | r3)",
		"  new: Hodges-Lehmann, signed rank: B vs A \($m.diff_pct | r2)% [\($m.diff_ci_pct[0] | r2)%, \($m.diff_ci_pct[1] | r2)%], p \($m.signed_rank_p | r3), MDE \($m.mde_pct | r2)%",
		"  new: order- and drift-adjusted:   B vs A \($m.order_adjusted_pct | r2)% [\($m.order_adjusted_ci_pct[0] | r2)%, \($m.order_adjusted_ci_pct[1] | r2)%], p \($m.order_adjusted_p | r3)",
		"  CI width, adjusted / Hodges-Lehmann: \(try (($m.order_adjusted_ci_pct[1] - $m.order_adjusted_ci_pct[0]) / ($m.diff_ci_pct[1] - $m.diff_ci_pct[0])) catch null | r2)x"' "$out/aa.json"
} >"$results"
cat "$results"
