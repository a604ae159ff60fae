#!/bin/bash
# bench/run's section 1 on each form of VMPCTL_BENCH_LANES: one lane, a
# subset without the arm64 lanes, LANE+ARG and LANE+ARG+ARG, and the
# default five. A stand-in for the VM harness prints a cost table per boot
# (numbers that tell the lane and the timed boot from the -icount one) and
# logs what it was asked to boot, so no lane boots here.
# Inputs: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)
tree=$scratch/tree
mkdir -p "$tree/bench/results" "$tree/tests/vm"
cp "$top/bench/run" "$tree/bench/run"

# The stand-in: tests/vm/run --demo LANE. Section 1's table of LANE, its
# "short-circuited: direct" row 1.25x over the floor when timed and 1.05x
# counting instructions (VMPCTL_VM_ICOUNT set); arm64 lanes add the row
# of where the module landed.
cat >"$tree/tests/vm/run" <<'EOF'
#!/bin/sh
lane=$2
echo "$lane|${VMPCTL_VM_ICOUNT:+icount}|$VMPCTL_VM_APPEND" >>"$BOOT_LOG"
if [ -n "${VMPCTL_VM_ICOUNT:-}" ]; then floor=20.00 direct=21.00 ratio=1.05x
else floor=16.00 direct=20.00 ratio=1.25x; fi
mkdir -p "$VMPCTL_VM_OUT/$lane"
{
	echo "== vmpressure_ctl bench: Debian $lane.0-test, 2 CPUs"
	printf '%-44s%s\n' state '  median       min       max      floor    /floor  skip/call' \
		'floor (empty noinline function)' "$(printf '%10s' $floor $floor $floor $floor 1.00x -)" \
		'short-circuited: direct (enabled=0)' "$(printf '%10s' $direct $direct $direct $floor $ratio 1.00)" \
		'short-circuited: direct, count_skipped=0' "$(printf '%10s' $direct $direct $direct $floor $ratio -)"
	echo "stock path against not loaded ($floor ns), per call (target for resident: <= 1.3x):"
	printf '%-44s%10s%10s\n' 'resident, stock: direct' $direct $ratio
	echo "what vmpressure()'s ftrace site leads to, short-circuited (enabled_functions):"
	case $lane in
	*-arm64) printf '%-44s%s\n' 'site, direct, reach' "$lane: 88 MiB apart" ;;
	esac
	echo
	echo '# demo exit status 0'
} >"$VMPCTL_VM_OUT/$lane/ktap.txt"
EOF
chmod +x "$tree/tests/vm/run"

# bench LANES: section 1 on LANES (unset: the default); its output in
# $scratch/out, the boots it asked for in $scratch/boots.
bench() {
	rm -rf "$tree/build" "$tree/bench/results/cost-per-call.txt" "$scratch/boots"
	: >"$scratch/boots"
	if [ "$1" = default ]; then
		BOOT_LOG=$scratch/boots BENCH_SECTIONS=1 "$tree/bench/run" >"$scratch/out" 2>&1
	else
		BOOT_LOG=$scratch/boots BENCH_SECTIONS=1 VMPCTL_BENCH_LANES=$1 "$tree/bench/run" \
			>"$scratch/out" 2>&1
	fi
}

# succeeds WHAT COMMAND...: COMMAND exits 0; shows bench/run's output if not.
succeeds() {
	local what=$1
	shift
	"$@" || {
		echo "  $what failed (exit $?):"
		sed 's/^/    /' "$scratch/out"
		return 1
	}
}

# has_line FILE LINE: FILE holds LINE, whole; shows FILE's lines otherwise.
has_line() {
	grep -qxF -- "$2" "$1" || {
		echo "  no line [$2] in $1, which holds:"
		sed 's/^/    /' "$1"
		return 1
	}
}

# target LANE ROW: issue 24's target row of LANE in this run's results.
target() {
	awk -v lane="$1" -v row="$2" '$1 == lane && substr($0, 21, 40) ~ "^" row " *$"' \
		"$tree/bench/results/cost-per-call.txt" | tr -s ' '
}

results=$tree/bench/results/cost-per-call.txt

# One amd64 lane: the documented command that failed on the arm64 lanes'
# missing tables.
check "one lane (7.3): bench/run succeeds" succeeds "bench 7.3" bench 7.3
check "one lane: booted once timed and once counting instructions, nothing else" \
	equal "boots" "$(cat "$scratch/boots")" "$(printf '%s\n' \
		"7.3||vmpctl_bench.sections=1" \
		"7.3|icount|nosmp vmpctl_bench.sections=1")"
check "one lane: its target judged in instructions" equal "7.3 target" \
	"$(target 7.3 'short-circuited: direct')" \
	"7.3 short-circuited: direct the floor 1.1x 1.05x 1.25x met"
check "one lane: a target of a lane not run says so" equal "arm64 target" \
	"$(target 6.12-arm64 'short-circuited: direct')" \
	"6.12-arm64 short-circuited: direct the floor 1.5x - - not run"
check "one lane: the table has its two columns" \
	has_line "$results" "$(printf '%-40s %10s %10s' 'floor (empty function), ns | insns' 16.00 20.00)"

# Lanes without any of the targets' lanes.
check "6.1 and 6.12: bench/run succeeds" succeeds "bench '6.1 6.12'" bench "6.1 6.12"
check "6.1 and 6.12: both lanes side by side" \
	has_line "$results" "$(printf '%-40s %10s %10s %10s %10s' 'short-circuited: direct' 1.25x 1.05x 1.25x 1.05x)"
check "6.1 and 6.12: every target row says not run" equal "targets not run" \
	"$(grep -c '  not run$' "$results")" 6

# LANE+ARG: boots LANE with ARG on its kernel command line, under its own
# name in the table, the header and the targets.
check "LANE+ARG: bench/run succeeds" succeeds "bench 6.12-arm64+nokaslr" bench 6.12-arm64+nokaslr
check "LANE+ARG: boots LANE with ARG, timed and counting instructions" equal "boots" \
	"$(cat "$scratch/boots")" "$(printf '%s\n' \
		"6.12-arm64||nokaslr vmpctl_bench.sections=1" \
		"6.12-arm64|icount|nosmp nokaslr vmpctl_bench.sections=1")"
check "LANE+ARG: the header names its kernel and its argument" \
	has_line "$results" "# 6.12-arm64+nokaslr: 6.12-arm64.0-test, booted with nokaslr"
check "LANE+ARG: its target rows are its own" equal "nokaslr target" \
	"$(target 6.12-arm64+nokaslr 'short-circuited: direct, count_skipped=0')" \
	"6.12-arm64+nokaslr short-circuited: direct, count_skipped=0 the floor 1.5x 1.05x 1.25x met"
check "LANE+ARG: the plain lane's targets were not run" equal "plain arm64 target" \
	"$(target 6.12-arm64 'short-circuited: direct')" \
	"6.12-arm64 short-circuited: direct the floor 1.5x - - not run"
check "LANE+ARG: where the module landed, per boot" has_line "$results" \
	"$(printf '%-19s %-6s %s' 6.12-arm64+nokaslr insns '6.12-arm64: 88 MiB apart')"

# LANE+ARG+ARG: each argument on the command line.
check "LANE+ARG+ARG: bench/run succeeds" succeeds "bench 6.12+nokaslr+quiet" bench 6.12+nokaslr+quiet
check "LANE+ARG+ARG: both arguments on the command line" has_line "$scratch/boots" \
	"6.12||nokaslr quiet vmpctl_bench.sections=1"
check "LANE+ARG+ARG: the header names both" \
	has_line "$results" "# 6.12+nokaslr+quiet: 6.12.0-test, booted with nokaslr quiet"

# The default: the five documented lanes, each booted twice.
check "default lanes: bench/run succeeds" succeeds "bench (default)" bench default
check "default lanes: ten boots" equal "boots" "$(wc -l <"$scratch/boots")" 10
check "default lanes: every target measured" equal "targets not run" \
	"$(grep -c '  not run$' "$results")" 0
check "default lanes: a column per boot" \
	has_line "$results" "$(printf '%-40s' 'short-circuited: direct')$(printf ' %10s' 1.25x 1.05x 1.25x 1.05x 1.25x 1.05x 1.25x 1.05x 1.25x 1.05x)"

finish
