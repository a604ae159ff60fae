# shellcheck shell=dash
# make bench, inside the guest (busybox sh, run by the harness as its demo
# script): numbers only, never a verdict. bench/run starts it. Five tables:
# 1. ns per vmpressure() call (not loaded, default mode, resident mode's
# stock path, each backend short-circuited, direct also uncounted), 2. toggle latency (default and
# resident mode, and both while a task sits in a 64 MiB read()), 3. the pft
# A/B, 4. whole-run ABBA against the interleaved A/B at equal wall time,
# with pft's noise and the false-positive rate of A/A runs, 5. --sequential
# on pft with a real 2% effect and an A/A: the time to an answer.
# vmpctl_bench.sections=LIST on the kernel command line (bench/run's
# BENCH_SECTIONS) runs only those.
set -eu
# shellcheck source-path=SCRIPTDIR source=../tests/vm/guest/lib.sh
. /vmtest/lib.sh

BENCH_MODULE=/lib/modules/$(uname -r)/extra/vmpressure_bench.ko
COST=/sys/kernel/debug/vmpressure_bench/cost
BACKENDS="direct ftrace kprobe"

# pft in a memcg at a quarter of its size: every run reclaims ~48 MiB into
# zram, so vmpressure() runs thousands of times per run.
PFT="vmpctl pft --json --size 64M --memcg-limit 16M"
FAULTS='"fault/wsec":([0-9.]+)'
RUNS=10
STOCK_RUNS=20
# ABBA changes the knob every second run: 200 runs per arm give about 100
# toggles in each direction.
TOGGLE_RUNS=200
# Toggles that wait for RCU-tasks take seconds each while a task sits in one
# long read(): 10 runs per arm give about 5 in each direction.
TOGGLE_READ_RUNS=10

# Loaded with enabled=1 against not loaded: the arms of the stock check.
# shellcheck disable=SC2016 # expanded by vmpctl ab's shell, not here
MODULE_STATE='module_state() { if [ "$1" = absent ]; then ! [ -d '"$KNOB_DIR"' ] || rmmod vmpressure_ctl; else [ -d '"$KNOB_DIR"' ] || insmod '"$MODULE"'; fi; }; module_state'

# rmmod is refused while hooked (enabled=0): back to 1 first.
unload() {
	module_loaded || return 0
	echo 1 >"$KNOB_DIR/enabled"
	rmmod vmpressure_ctl
}

# Reloads vmpressure_ctl with insmod parameters; fails quietly when the
# kernel lacks what that backend needs.
reload() {
	unload
	insmod "$MODULE" "$@" 2>/dev/null
}

# 1. One row of the per-call cost table from one read of the bench module,
# which times the floor and vmpressure() alternately: the ratio is taken
# between the two of the same read. skipped/call is how many of the timed
# calls vmpressure_ctl's stub counted (1.00 when every call was redirected;
# "-" where nothing counts: not loaded, or count_skipped=0).
# The median goes to /tmp/cost-last for against_absent.
# The address /proc/kallsyms gives SYMBOL, as a shell number.
symbol_address() {
	awk -v s="$1" '$3 == s { print "0x" $1; exit }' /proc/kallsyms
}

# The kernel's own lines for vmpressure()'s ftrace site with METHOD hooked
# (a direct call's target on the "direct-->" line). On arm64 the site's BL
# reaches +-128 MiB: the kernel points it straight at a direct trampoline
# in range, else at ftrace_caller, which branches on through the
# per-callsite ops; which one, from the two addresses.
site_row() {
	line=$(awk '/^vmpressure / { on = 1; printf "%s", $0; next }
		on && /^[ \t]/ { printf " %s", $0; next } { on = 0 }' \
		"$ENABLED_FUNCTIONS" 2>/dev/null | tr -s '\t ' '  ') || true
	printf '%-44s %s\n' "site, $1" "${line:-not an ftrace user (a breakpoint)}" >>/tmp/site-rows
	[ "$1" = direct ] && [ "$(uname -m)" = aarch64 ] || return 0
	distance=$(($(symbol_address vmpc_direct_tramp) - $(symbol_address vmpressure)))
	[ "$distance" -ge 0 ] || distance=$((-distance))
	if [ "$distance" -lt $((128 << 20)) ]; then
		reach="the site BLs the trampoline"
	else
		reach="the site BLs ftrace_caller, which BRs to the trampoline"
	fi
	# Whether the kernel keeps a 128 MiB window for modules near its text:
	# "0 pages" where RANDOMIZE_MODULE_REGION_FULL spreads them over 2 GiB.
	window=$(dmesg | grep -o '[0-9]* pages in range for non-PLT usage' | head -n 1)
	printf '%-44s %s\n' "site, direct, reach" \
		"$((distance >> 20)) MiB apart: $reach (boot: ${window:-no module window line})" >>/tmp/site-rows
}

cost_row() {
	label=$1
	before=-
	[ ! -e "$KNOB_DIR/skipped" ] || before=$(skipped_count)
	cat "$COST" >/tmp/cost
	after=-
	[ ! -e "$KNOB_DIR/skipped" ] || after=$(skipped_count)
	awk -v label="$label" -v before="$before" -v after="$after" '
		$2 == "calls" { calls = $3 * ($5 + 1) }
		$1 == "floor" { floor = $2 }
		$1 == "vmpressure" { median = $2; min = $3; max = $4 }
		END {
			print median >"/tmp/cost-last"
			per_call = before == "-" ? "-" : sprintf("%.2f", (after - before) / calls)
			printf "%-44s %9.2f %9.2f %9.2f  %9.2f  %7.2fx  %9s\n",
				label, median, min, max, floor, median / floor, per_call
		}' /tmp/cost >>/tmp/cost-rows
	[ -s /tmp/floor-row ] ||
		awk '$1 == "floor" { printf "%-44s %9.2f %9.2f %9.2f  %9.2f  %7.2fx  %9s\n", "floor (empty noinline function)", $2, $3, $4, $2, 1, "-" }' \
			/tmp/cost >/tmp/floor-row
}

# 1. The last row's median against the median with the module not loaded
# ($ABSENT_NS, read before it), as a row of /tmp/cost-ratios.
against_absent() {
	awk -v label="$1" -v absent="$ABSENT_NS" '{ printf "%-44s %9.2f  %7.2fx\n", label, $1, $1 / absent }' \
		/tmp/cost-last >>/tmp/cost-ratios
}

# "<n> <median ms> <max ms>" of one toggle direction in ab's JSON.
toggles() {
	echo "$1" | sed -n "s/.*\"$2\":{\"n\":\([0-9]*\),\"median_s\":\([^,]*\),\"max_s\":\([^}]*\)}.*/\1 \2 \3/p" |
		awk '{ printf "%5d %9.3f %9.3f", $1, $2 * 1000, $3 * 1000 }'
}

# 2. One row: RUNS runs per arm of `vmpctl ab -- true` with the module as
# loaded now, labelled LABEL.
toggle_row() {
	json=$(vmpctl ab -n "$2" -w 0 -q --json -- true 2>/dev/null)
	printf '%-28s %s   %s\n' "$1" "$(toggles "$json" a_to_b)" \
		"$(toggles "$json" b_to_a)" >>/tmp/toggle-rows
}

# A task that sits in one long read() after another: 64 MiB of /dev/zero
# into dd's buffer from inside HOG_CGROUP (HOG_LIMIT_MIB), so the read
# reclaims its own pages to zram while it runs. Stopped by hog_stop.
long_read_start() {
	hog_cgroup_create
	sh -c 'echo $$ >"$1/cgroup.procs" || exit
		while :; do
			dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null || exit
		done' long-read "$HOG_CGROUP" &
	sleep 1
}

toggle_header() {
	printf '%-28s %5s %9s %9s   %5s %9s %9s\n' "backend" "n" "1->0 med" "1->0 max" \
		"n" "0->1 med" "0->1 max"
}

# 3. One summary row from ab's CSV file (the metric line): the design's
# figures, as the table's headline row.
pft_row() {
	printf '%-17s %9.1f %9.1f  %6.4f  %-10s [%+.2f%%, %+.2f%%]  %6.3g  %6.2f%%\n' \
		"$1" "$(column_of "$2" mean_a)" "$(column_of "$2" mean_b)" \
		"$(awk -v a="$(column_of "$2" mean_a)" -v b="$(column_of "$2" mean_b)" 'BEGIN { print b / a }')" \
		"$(column_of "$2" marker)" "$(column_of "$2" diff_ci_lo_pct)" \
		"$(column_of "$2" diff_ci_hi_pct)" "$(column_of "$2" p)" \
		"$(column_of "$2" mde_pct)"
}

# column_of CSV NAME: the first metric's (--metric's) column NAME, found by
# the header, of `vmpctl ab --csv`'s output.
column_of() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
		NR == 2 { print $c; exit }' "$1"
}

# The sections to run: vmpctl_bench.sections=1,2 on the kernel command line
# (bench/run's BENCH_SECTIONS), all five without it.
SECTIONS=$(sed -n 's/.*vmpctl_bench\.sections=\([0-9,]*\).*/\1/p' /proc/cmdline)
section() {
	case ",${SECTIONS:-1,2,3,4,5}," in
	*",$1,"*) return 0 ;;
	*) return 1 ;;
	esac
}
echo "== vmpressure_ctl bench: Debian $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
echo "Under TCG every ns is emulated time: compare the ratios, not absolute numbers."
echo "Issue 4's targets: best backend at most 3x the floor; toggle median under 50 ms."
echo "Issue 14's: resident toggle median < 1 ms, max < 10 ms both ways, also during a"
echo "64 MiB read(); resident stock path within 1.3x of not loaded per call."
echo "Issue 24's: short-circuited direct <= 1.1x the floor where the fentry site JMPs"
echo "(7.3), <= 1.5x with arm64 direct calls; resident stock path via direct <= 1.1x"
echo "not loaded on 7.3."
echo

if section 1; then
echo "== 1. cost per vmpressure() call, ns (vmpressure_bench calls it by its address)"
: >/tmp/cost-rows
: >/tmp/site-rows
: >/tmp/cost-ratios
: >/tmp/floor-row
if ! insmod "$BENCH_MODULE"; then
	echo "SKIP: vmpressure_bench.ko did not load (see dmesg):"
	dmesg | grep vmpressure_bench | tail -n 3
else
	head -n 1 "$COST"
	unload
	cost_row "stock, vmpressure_ctl not loaded"
	ABSENT_NS=$(cat /tmp/cost-last)
	insmod "$MODULE"
	label="stock, loaded (enabled=1)"
	cost_row "$label"
	against_absent "$label"
	for method in $BACKENDS; do
		if reload method="$method" resident=1; then
			cost_row "resident, stock: $method (enabled=1)"
			against_absent "resident, stock: $method"
		else
			printf '%-44s not available on this kernel\n' "resident, stock: $method" >>/tmp/cost-rows
		fi
	done
	for method in $BACKENDS; do
		if reload method="$method" enabled=0; then
			cost_row "short-circuited: $method (enabled=0)"
			site_row "$method"
		else
			printf '%-44s not available on this kernel\n' "short-circuited: $method" >>/tmp/cost-rows
		fi
	done
	# Issue 24's floor: the direct backend with no count at all.
	if reload method=direct enabled=0 count_skipped=0; then
		cost_row "short-circuited: direct, count_skipped=0"
		site_row "direct, count_skipped=0"
	else
		printf '%-44s not available on this kernel\n' "short-circuited: direct, count_skipped=0" >>/tmp/cost-rows
	fi
	unload
	rmmod vmpressure_bench
	printf '%-44s %9s %9s %9s  %9s  %8s  %9s\n' "state" "median" "min" "max" \
		"floor" "/floor" "skip/call"
	cat /tmp/floor-row /tmp/cost-rows
	echo "stock path against not loaded ($ABSENT_NS ns), per call (target for resident: <= 1.3x):"
	cat /tmp/cost-ratios
	echo "what vmpressure()'s ftrace site leads to, short-circuited (enabled_functions):"
	cat /tmp/site-rows
fi
fi
echo

if section 2; then
echo "== 2. toggle latency of enabled, ms (vmpctl ab -n $TOGGLE_RUNS -w 0 -- true)"
: >/tmp/toggle-rows
for resident in 0 1; do
	for method in $BACKENDS; do
		label=$method
		[ "$resident" = 0 ] || label="$method resident"
		if ! reload method="$method" resident="$resident"; then
			printf '%-28s not available on this kernel\n' "$label" >>/tmp/toggle-rows
			continue
		fi
		toggle_row "$label" "$TOGGLE_RUNS"
	done
done
# The same backend both ways, side by side, while a task sits in read().
long_read_start
if reload; then
	toggle_row "$(cat "$KNOB_DIR/method"), 64 MiB read() (-n $TOGGLE_READ_RUNS)" "$TOGGLE_READ_RUNS"
fi
if reload resident=1; then
	toggle_row "$(cat "$KNOB_DIR/method") resident, 64 MiB read()" "$TOGGLE_RUNS"
fi
hog_stop
unload
toggle_header
cat /tmp/toggle-rows
fi
echo

if section 3; then
echo "== 3. pft A/B: $PFT"
echo "A/B: $RUNS runs per arm (stock check: $STOCK_RUNS), ABBA, 1 warmup"
: >/tmp/pft-rows

echo "== stock check: vmpctl ab --switch (module absent / loaded, enabled=1) -- $PFT"
# shellcheck disable=SC2086 # $PFT is a command line to split
vmpctl ab -n "$STOCK_RUNS" -w 1 -q --switch "$MODULE_STATE" --a absent --b stock \
	--metric "$FAULTS" --higher-is-better --csv -- $PFT >/tmp/ab.csv
cat /tmp/ab.csv
pft_row "absent -> stock" /tmp/ab.csv >>/tmp/pft-rows
echo

for method in $BACKENDS; do
	if ! reload method="$method"; then
		printf '%-17s not available on this kernel\n' "stock -> $method" >>/tmp/pft-rows
		continue
	fi
	echo "== $method: vmpctl ab -- $PFT"
	# shellcheck disable=SC2086 # $PFT is a command line to split
	vmpctl ab -n "$RUNS" -w 1 -q --metric "$FAULTS" --higher-is-better \
		--target 1% --csv -- $PFT >/tmp/ab.csv
	cat /tmp/ab.csv
	pft_row "stock -> $method" /tmp/ab.csv >>/tmp/pft-rows
	echo
done
unload

echo "== 3. pft fault/wsec A/B, higher is better"
echo "(absent -> stock: A without the module, B loaded with enabled=1;"
echo " stock -> backend: A enabled=1, B enabled=0 short-circuited by that backend)"
printf '%-17s %9s %9s  %6s  %-10s %-18s  %6s  %7s\n' "A -> B" \
	"A f/wsec" "B f/wsec" "B/A" "B vs A" "95% CI" "p" "MDE"
cat /tmp/pft-rows
fi

# 4. Whole-run ABBA against the interleaved A/B (issues 14 and 21), at
# equal wall time, each analysed by its design: whole runs paired within
# their ABBA blocks (unpaired beside them), interleaved slices by the
# sign-flip test. The interleaved run is one long steady pft; the flip-free
# series of its rate lines shows why the MDE is what it is (per-slice noise,
# drift) and what each slice length gives. Resident mode flips in well under
# a millisecond (table 2), so slices can be as short as pft's noise allows;
# direct is the backend whose stock path costs least there (table 1). Then
# the calibration: A/A runs that flip a file knob pft ignores between two
# values, with the real pft running. IL_* may be changed here.
IL_METHOD=direct
IL_BUDGET=180		# seconds of wall time for each mode
IL_SLICE=0.25		# seconds per slice: five of pft's rate lines
IL_LONG_EVERY=10	# every 10th pair 4x as long: the carry-over check
IL_REPORT=0.05		# pft's --report-interval
IL_SERIES=60		# seconds of the flip-free series
# A/A runs: at a rate near 5%, 240 give a Wilson 95% interval under 7 points
# wide (issue 21). vmpctl_bench.aa_runs=N on the kernel command line
# (bench/run's BENCH_AA_RUNS) changes the count.
IL_FPR_RUNS=$(sed -n 's/.*vmpctl_bench\.aa_runs=\([0-9]*\).*/\1/p' /proc/cmdline)
IL_FPR_RUNS=${IL_FPR_RUNS:-240}
# Pairs per A/A run, as few as keep the exact sign-flip test's level near
# 5%: with 8 pairs p steps by 1/128 and p < 0.05 has probability 12/256.
IL_FPR_PAIRS=8
IL_PFT="vmpctl pft --size 64M --memcg-limit 16M --duration 3600 --report-interval $IL_REPORT"

# json_num FILE KEY: the first number after "KEY": in a one-line JSON file.
json_num() {
	sed -n "s/\"$2\":\([-0-9.e+]*\).*/\1/p" "$1" | sed 's/.*[^-0-9.e+]//' | head -n 1
}

# json_after FILE KEY OPEN CLOSE: what lies between OPEN and the next CLOSE
# after the first "KEY": of a one-line JSON file (keys repeat in nested
# objects: the first is the outer metric's).
json_after() {
	awk -v key="\"$2\":$3" -v end="$4" '{
		i = index($0, key); if (!i) exit
		rest = substr($0, i + length(key)); j = index(rest, end)
		print j ? substr(rest, 1, j - 1) : rest; exit
	}' "$1"
}

# json_interval FILE KEY: the first "KEY":[LO,HI] as "[LO%, HI%]".
json_interval() {
	json_after "$1" "$2" "[" "]" | awk -F, '{ printf "[%+.2f%%, %+.2f%%]", $1, $2 }'
}

# json_obj FILE KEY: the inside of the first flat object "KEY":{...}, for
# json_num on it.
json_obj() {
	json_after "$1" "$2" "{" "}"
}

# json_flag FILE KEY: the first "KEY":true or false.
json_flag() {
	json_after "$1" "$2" "" "," | sed 's/}.*//'
}

# abba_split FILE OUT: whole-run ABBA's figures from `vmpctl ab --json` in
# FILE (fault/wsec the first metric), into OUT-paired (the design's, paired
# by block: the metric's own keys), OUT-unpaired (Welch's and Fieller's:
# its "unpaired" object, under the same keys) and OUT-blocks (the blocks'
# count), each read from a copy that holds only its own.
abba_split() {
	sed 's/"unpaired":{[^}]*}//g' "$1" >"$2-paired"
	json_obj "$1" unpaired >"$2-unpaired"
	json_obj "$1" blocks >"$2-blocks"
}

# aa_interval K N: the rate of K false positives in N runs with its 95%
# intervals, Wilson's and Clopper-Pearson's. Busybox awk has no math library:
# Newton for Wilson's square root, bisection on the binomial sum for
# Clopper-Pearson.
aa_interval() {
	awk -v k="$1" -v n="$2" '
		function root(x,   r, i) {
			if (x <= 0) return 0
			r = x > 1 ? x : 1
			for (i = 0; i < 100; i++) r = (r + x / r) / 2
			return r
		}
		# P(X <= j) for X ~ Binomial(n, q), 0 < q < 1
		function at_most(j, q,   i, term, sum) {
			if (j < 0) return 0
			term = 1
			for (i = 0; i < n; i++) term *= 1 - q
			sum = term
			for (i = 1; i <= j; i++) { term *= (n - i + 1) / i * q / (1 - q); sum += term }
			return sum
		}
		# the q in (0, 1) where at_most(j, q) = target (it falls as q grows)
		function solve(j, target,   lo, hi, mid, i) {
			lo = 0
			hi = 1
			for (i = 0; i < 60; i++) {
				mid = (lo + hi) / 2
				if (at_most(j, mid) > target) lo = mid; else hi = mid
			}
			return (lo + hi) / 2
		}
		BEGIN {
			z = 1.959963984540054; f = k / n; z2n = z * z / n
			c = (f + z2n / 2) / (1 + z2n); h = z / (1 + z2n) * root(f * (1 - f) / n + z2n / (4 * n))
			cp_lo = k == 0 ? 0 : solve(k - 1, 0.975)
			cp_hi = k == n ? 1 : solve(k, 0.025)
			printf "%.1f%%; 95%% interval Wilson [%.1f%%, %.1f%%], Clopper-Pearson [%.1f%%, %.1f%%]\n", 100 * f,
				100 * (c - h > 0 ? c - h : 0), 100 * (c + h), 100 * cp_lo, 100 * cp_hi
		}'
}

# nominal_level N: the probability that the exact sign-flip test of N pairs
# gives p < 0.05 when the arms do not differ, as "K/2^N = P%". p is the
# share of the 2^N sign vectors whose |mean| reaches the observed one, and
# those come in pairs (v, -v).
nominal_level() {
	awk -v n="$1" 'BEGIN {
		v = 1
		for (i = 0; i < n; i++) v *= 2
		k = int(0.05 * v); if (k == 0.05 * v) k--; k -= k % 2
		printf "%d/%d = %.2f%%", k, v, 100 * k / v
	}'
}

# Allan deviation of the rate lines in $1 (the first 5 s left out) over
# windows of 1, 2, 4, ... report intervals, against what white noise
# would give; then, per slice length, the noise of a pair's difference
# (two adjacent windows) and the MDE it gives in IL_BUDGET seconds with
# flips that cost nothing.
series_table() {
	awk -v interval="$IL_REPORT" -v budget="$IL_BUDGET" '
		function num(key,   v) {
			if (!match($0, "\"" key "\":[0-9.]+")) return -1
			v = substr($0, RSTART, RLENGTH); sub(/.*:/, "", v); return v + 0
		}
		# busybox awk has no math library: Newton for the square root
		function root(x,   r, i) {
			if (x <= 0) return 0
			for (r = x > 1 ? x : 1, i = 0; i < 100; i++) r = (r + x / r) / 2
			return r
		}
		{ c = num("count"); iv = num("interval_s"); if (c < 0 || iv <= 0) next
		  if (++seen * interval > 5) r[++n] = c / iv }
		function windows(m,   j, i, s) {
			w = int(n / m)
			for (j = 1; j <= w; j++) {
				s = 0
				for (i = (j - 1) * m + 1; i <= j * m; i++) s += r[i]
				y[j] = s / m
			}
		}
		END {
			for (i = 1; i <= n; i++) mean += r[i]
			mean /= n
			printf "rate lines: %d of %.2f s after the first 5 s, mean %.1f faults/s\n", n, interval, mean
			printf "%9s  %10s  %12s\n", "window", "Allan dev", "if white"
			for (m = 1; m * interval <= 8.001 && m <= n / 8; m *= 2) {
				windows(m); ss = 0
				for (j = 2; j <= w; j++) ss += (y[j] - y[j - 1]) * (y[j] - y[j - 1])
				a = root(ss / (2 * (w - 1))) / mean
				if (m == 1) a1 = a
				printf "%7.2f s  %9.2f%%  %11.2f%%\n", m * interval, 100 * a, 100 * a1 / root(m)
			}
			printf "\n%9s  %14s  %13s  %15s\n", "slice", "pair noise", "pairs in " budget " s", "MDE, free flips"
			split("0.25 0.5 1 2 4", slices, " ")
			for (k = 1; k <= 5; k++) {
				m = int(slices[k] / interval + 0.5); windows(m)
				p = int(w / 2); sd = 0; dm = 0
				for (j = 1; j <= p; j++) { d[j] = y[2 * j] - y[2 * j - 1]; dm += d[j] }
				dm /= p
				for (j = 1; j <= p; j++) sd += (d[j] - dm) * (d[j] - dm)
				noise = 100 * root(sd / (p - 1)) / mean
				pairs = int(budget / (2 * slices[k]))
				printf "%7.2f s  %13.2f%%  %13d  %14.2f%%\n", slices[k], noise, pairs, 2.8 * noise / root(pairs)
			}
		}' "$1"
}

# Sections 4 and 5: the module resident on IL_METHOD, or on the default
# backend where this kernel lacks it.
reload_interleave_backend() {
	if ! reload method="$IL_METHOD" resident=1; then
		echo "$IL_METHOD backend not available on this kernel: default backend"
		reload resident=1
	fi
}

if section 4; then
echo
echo "== 4. whole-run ABBA against interleaved A/B, equal wall time ($IL_BUDGET s each), pft fault rate"
reload_interleave_backend
echo "backend: $(cat "$KNOB_DIR/method"), resident; slices of $IL_SLICE s (every ${IL_LONG_EVERY}th pair 4x), pft rate lines every $IL_REPORT s"

echo
echo "== 4a. pft's rate with the knob untouched: $IL_SERIES s of rate lines"
# shellcheck disable=SC2086 # a command line to split
vmpctl pft --size 64M --memcg-limit 16M --duration "$IL_SERIES" \
	--report-interval "$IL_REPORT" >/tmp/series
series_table /tmp/series | tee /tmp/series-table
echo "(Allan dev: the spread of the difference of adjacent windows over sqrt 2; white"
echo " noise halves it per 4x window, drift and flicker do not. MDE: 2.8 x noise / sqrt(pairs).)"

echo
echo "== 4b. whole-run ABBA: vmpctl ab -T $IL_BUDGET -- $PFT"
# shellcheck disable=SC2086 # $PFT is a command line to split
vmpctl ab -n 100000 -w 1 -T "$IL_BUDGET" -q --json --metric "$FAULTS" \
	--metric-name fault/wsec --higher-is-better -- $PFT >/tmp/abba.json || true
abba_split /tmp/abba.json /tmp/abba
abba_n=$(json_num /tmp/abba.json n)
abba_s=$(json_num /tmp/abba.json elapsed_s)
abba_mde=$(json_num /tmp/abba-unpaired mde_pct)
abba_paired_n=$(json_num /tmp/abba-blocks n)
abba_paired_mde=$(json_num /tmp/abba-paired mde_pct)
printf 'unpaired: %s runs per arm in %.0f s, run CoV %.1f%% (arm A); B vs A %+.2f%%, Fieller 95%% CI %s, Welch p %.3g, MDE %.2f%%\n' \
	"$abba_n" "$abba_s" "$(json_num /tmp/abba.json cov_pct)" \
	"$(json_num /tmp/abba-unpaired diff_pct)" "$(json_interval /tmp/abba-unpaired diff_ci_pct)" \
	"$(json_num /tmp/abba-unpaired welch_p)" "$abba_mde"
printf 'paired by block (its design): %s blocks; B vs A %+.2f%%, 95%% CI %s, paired t p %.3g, MDE %.2f%%\n' \
	"$abba_paired_n" "$(json_num /tmp/abba-paired diff_pct)" \
	"$(json_interval /tmp/abba-paired diff_ci_pct)" "$(json_num /tmp/abba-paired p)" "$abba_paired_mde"

echo
echo "== 4b. interleaved: vmpctl ab --interleave $IL_SLICE --long-every $IL_LONG_EVERY -T $IL_BUDGET -- $IL_PFT"
# shellcheck disable=SC2086 # $IL_PFT is a command line to split
vmpctl ab --interleave "$IL_SLICE" --long-every "$IL_LONG_EVERY" -n 100000 \
	-T "$IL_BUDGET" -q --higher-is-better --target 2% --json -- $IL_PFT >/tmp/il.json || true
json_obj /tmp/il.json pairs >/tmp/il-pairs
json_obj /tmp/il.json balance >/tmp/il-balance
json_obj /tmp/il.json carry_over >/tmp/il-carry
json_obj /tmp/il.json intervals >/tmp/il-intervals
il_mde=$(json_num /tmp/il.json mde_pct)
il_pairs=$(json_num /tmp/il-pairs kept)
il_noise=$(json_num /tmp/il.json noise_pct)
il_s=$(json_num /tmp/il.json elapsed_s)
il_needed=$(json_num /tmp/il.json pairs_needed)
printf 'pairs: %s kept, %s dropped in %.0f s, %.0f s of it in kept pairs'"'"' report intervals\n' \
	"$il_pairs" "$(json_num /tmp/il-pairs dropped)" "$il_s" "$(json_num /tmp/il.json kept_time_s)"
printf 'sign-flip test (exact: %s): B vs A %+.2f%%, 95%% CI %s (the test inverted), p %.3g; verdict "%s"; MDE %.2f%%\n' \
	"$(json_flag /tmp/il.json signed_rank_exact)" "$(json_num /tmp/il.json diff_pct)" \
	"$(json_interval /tmp/il.json diff_ci_pct)" "$(json_num /tmp/il.json signed_rank_p)" \
	"$(sed -n 's/.*"verdict":"\([^"]*\)".*/\1/p' /tmp/il.json | head -n 1)" "$il_mde"
printf 'for reference: paired t p %.3g, Wilcoxon p %.3g, Fieller 95%% CI %s\n' \
	"$(json_num /tmp/il.json paired_t_p)" "$(json_num /tmp/il.json wilcoxon_p)" \
	"$(json_interval /tmp/il.json fieller_ci_pct)"
printf 'balance: kept pairs AB:BA %s:%s (p %.3g); slices right after a flip: A %s, B %s (p %.3g); flips over --max-flip: to A %s of %s, to B %s of %s; balanced: %s\n' \
	"$(json_num /tmp/il-balance pairs_ab)" "$(json_num /tmp/il-balance pairs_ba)" \
	"$(json_num /tmp/il-balance order_p)" "$(json_num /tmp/il-balance a_after_flip)" \
	"$(json_num /tmp/il-balance b_after_flip)" "$(json_num /tmp/il-balance flip_p)" \
	"$(json_num /tmp/il-balance slow_to_a)" "$(json_num /tmp/il-balance flips_to_a)" \
	"$(json_num /tmp/il-balance slow_to_b)" "$(json_num /tmp/il-balance flips_to_b)" \
	"$(json_flag /tmp/il-balance balanced)"
printf 'carry-over, halves: B vs A %+.2f%% in the first half of slices, %+.2f%% in the second (%s pairs, p %.3g)\n' \
	"$(json_num /tmp/il-carry first_half_pct)" "$(json_num /tmp/il-carry second_half_pct)" \
	"$(json_num /tmp/il-carry pairs)" "$(json_num /tmp/il-carry p)"
if [ "$(json_flag /tmp/il-carry long_checked)" = true ]; then
	printf 'carry-over, long slices: B vs A %+.2f%% in %s pairs of %s s, %+.2f%% in %s pairs of 4x (p %.3g)\n' \
		"$(json_num /tmp/il-carry short_pct)" "$(json_num /tmp/il-carry short_pairs)" "$IL_SLICE" \
		"$(json_num /tmp/il-carry long_pct)" "$(json_num /tmp/il-carry long_pairs)" \
		"$(json_num /tmp/il-carry long_p)"
else
	echo "carry-over, long slices: not checked (too few long pairs)"
fi
echo "carry-over found: $(json_flag /tmp/il-carry found)"
printf 'noise: a pair'"'"'s difference %.2f%% of A, one slice %.2f%% (A); A-B correlation within pairs %.2f\n' \
	"$il_noise" "$(json_num /tmp/il.json cov_pct)" "$(json_num /tmp/il.json correlation)"
printf 'flips A->B: median %.2f ms, max %.2f ms; report intervals straddling a flip: %s of %s (dropped)\n' \
	"$(awk -v s="$(json_num /tmp/il.json median_s)" 'BEGIN { print s * 1000 }')" \
	"$(awk -v s="$(json_num /tmp/il.json max_s)" 'BEGIN { print s * 1000 }')" \
	"$(json_num /tmp/il-intervals straddling)" "$(json_num /tmp/il-intervals read)"

echo
echo "== 4c. calibrated A/A: $IL_FPR_RUNS interleaved runs of $IL_FPR_PAIRS pairs, a file knob pft ignores flipped between x and y"
echo "(the exact sign-flip test's level with $IL_FPR_PAIRS pairs: $(nominal_level "$IL_FPR_PAIRS"))"
: >/tmp/fpr-p
i=0
positives=0
refused=0
failed=0
while [ "$i" -lt "$IL_FPR_RUNS" ]; do
	i=$((i + 1))
	printf 'x\n' >/tmp/aa-knob
	status=0
	# shellcheck disable=SC2086 # $IL_PFT is a command line to split
	vmpctl ab --interleave "$IL_SLICE" --knob /tmp/aa-knob --a x --b y -n "$IL_FPR_PAIRS" \
		-q --json -- $IL_PFT >/tmp/aa.json 2>/tmp/aa.err || status=$?
	verdict=$(sed -n 's/.*"verdict":"\([^"]*\)".*/\1/p' /tmp/aa.json | head -n 1)
	case $status:$verdict in
	0:"~") json_num /tmp/aa.json signed_rank_p >>/tmp/fpr-p ;;
	0:"B better" | 0:"B worse")
		positives=$((positives + 1))
		json_num /tmp/aa.json signed_rank_p >>/tmp/fpr-p
		;;
	1:"no verdict") refused=$((refused + 1)) ;;
	*)
		failed=$((failed + 1))
		echo "A/A run $i: exit $status, verdict [$verdict]: $(head -c 300 /tmp/aa.err)"
		;;
	esac
	# a running count, so a run stopped early still tells its numbers
	[ $((i % 20)) -ne 0 ] ||
		echo "A/A: $i of $IL_FPR_RUNS runs, $positives positive, $refused refused, $failed failed"
done
judged=$((IL_FPR_RUNS - refused - failed))
echo "runs: $IL_FPR_RUNS; with a verdict: $judged; refused as unbalanced: $refused; failed: $failed"
if [ "$judged" -gt 0 ]; then
	echo "false positives (verdict B better or B worse at the 5% level): $positives of $judged," \
		"$(aa_interval "$positives" "$judged")"
	awk '
		function root(x,   r, i) {
			if (x <= 0) return 0
			for (r = x > 1 ? x : 1, i = 0; i < 100; i++) r = (r + x / r) / 2
			return r
		}
		{ p[++n] = $1; if ($1 < 0.2) s20++; if ($1 < 0.5) s50++ }
		END {
			# Kolmogorov-Smirnov distance of the p-values from uniform
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (p[j] < p[i]) { t = p[i]; p[i] = p[j]; p[j] = t }
			for (i = 1; i <= n; i++) {
				if (i / n - p[i] > ks) ks = i / n - p[i]
				if (p[i] - (i - 1) / n > ks) ks = p[i] - (i - 1) / n
			}
			printf "sign-flip p < 0.2: %d of %d (nominal 20%%), p < 0.5: %d (nominal 50%%); KS distance of the p-values from uniform %.3f (5%% critical value %.3f)\n",
				s20, n, s50, ks, 1.36 / root(n)
		}' /tmp/fpr-p
fi
unload

echo
echo "== 4. summary: whole-run ABBA against interleaved, $IL_BUDGET s each, pft fault rate"
printf '%-26s %7s  %-14s  %-24s  %7s\n' "mode, analysis" "wall s" "n" "noise" "MDE"
printf '%-26s %7.0f  %-14s  %-24s  %6.2f%%\n' "ABBA runs, unpaired" "$abba_s" "$abba_n/arm" \
	"run CoV $(printf %.1f "$(json_num /tmp/abba.json cov_pct)")% (arm A)" "$abba_mde"
printf '%-26s %7.0f  %-14s  %-24s  %6.2f%%\n' "ABBA runs, paired by block" "$abba_s" \
	"$abba_paired_n blocks" "block diff $(printf %.1f "$(json_num /tmp/abba-paired noise_pct)")%" "$abba_paired_mde"
printf '%-26s %7.0f  %-14s  %-24s  %6.2f%%\n' "interleaved, sign-flip" "$il_s" "$il_pairs pairs" \
	"pair diff $(printf %.1f "$il_noise")%" "$il_mde"
awk -v a="$abba_mde" -v ap="$abba_paired_mde" -v b="$il_mde" -v needed="$il_needed" -v s="$il_s" -v pairs="$il_pairs" 'BEGIN {
	printf "MDE, ABBA over interleaved: %.2fx with ABBA paired by block (equal terms), %.2fx unpaired\n", ap / b, a / b
	if (needed + 0 > 0)
		printf "pairs for an MDE of 2%%: %s, about %.0f s at this run'"'"'s %.0f pairs per %.0f s\n", needed, needed * s / pairs, pairs, s
}'
fi

# 5. --sequential on pft's fault rate (issue 33's goal: a 2% effect found,
# or ruled out to +-2%, in a median under 3 minutes). The effect is real and
# known: arm B caps pft's CPU time with CFS bandwidth, 98 ms of every 100 ms
# (cpu.cfs_quota_us 98000 against -1, unlimited): pft is CPU-bound (its
# reclaim and zram compression run in its own context), so it loses 2% of its
# time, and cpu.stat's throttled_time says how much it lost. The A/A flips
# the same file between -1 and a quota of two CPUs, which never binds. Each
# round runs both, the order alternating, each to its first answer or
# SEQ_LIMIT s. Progress is the memcg's pgfault counter, read by ab at the
# flips: a starved guest's rate lines come late, and ab ends a run whose
# report intervals outgrow half a slice. Slices of 2 s: section 4a's series
# gives them the lowest MDE per minute under TCG.
# vmpctl_bench.seq_rounds=N and seq_limit=S (bench/run's BENCH_SEQ_ROUNDS,
# BENCH_SEQ_LIMIT) change the defaults.
SEQ_ROUNDS=$(sed -n 's/.*vmpctl_bench\.seq_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
SEQ_ROUNDS=${SEQ_ROUNDS:-4}
SEQ_LIMIT=$(sed -n 's/.*vmpctl_bench\.seq_limit=\([0-9]*\).*/\1/p' /proc/cmdline)
SEQ_LIMIT=${SEQ_LIMIT:-180}
SEQ_SLICE=2
SEQ_QUOTA=98000		# of cpu.cfs_period_us 100000: the 2% arm
SEQ_AA_QUOTA=200000	# two CPUs' worth: pft is one thread
SEQ_CPU_ROOT=/sys/fs/cgroup/cpu
SEQ_CPU_CG=$SEQ_CPU_ROOT/vmpctl-seq
SEQ_MEMCG=$(memcg_root)/vmpctl-seq
# shellcheck disable=SC2016 # expanded by the sh that ab starts
SEQ_PFT='echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" && exec vmpctl pft --size 64M --duration 3600'

# The harness mounts cgroup v1's memory hierarchy only: the cpu one beside
# it, and pft's two cgroups (memory limited to 16 MiB as in section 4, CFS
# bandwidth). Fails where the kernel has no v1 memory hierarchy or no CFS
# bandwidth control.
seq_cgroups() {
	[ -d /sys/fs/cgroup/memory ] || return 1
	if ! [ -d "$SEQ_CPU_ROOT" ]; then
		mkdir "$SEQ_CPU_ROOT" || return 1
		mount -t cgroup -o cpu cpu "$SEQ_CPU_ROOT" || return 1
	fi
	mkdir -p "$SEQ_CPU_CG" "$SEQ_MEMCG" || return 1
	echo $((16 << 20)) >"$SEQ_MEMCG/memory.limit_in_bytes" || return 1
	[ -e "$SEQ_CPU_CG/cpu.cfs_quota_us" ] || return 1
	echo 100000 >"$SEQ_CPU_CG/cpu.cfs_period_us"
}

# ns pft's cgroup has been throttled so far
seq_throttled() {
	awk '$1 == "throttled_time" { print $2 }' "$SEQ_CPU_CG/cpu.stat"
}

# One run: round $1, B's quota $2, labelled $3; its row, printed as it ends
# (a guest stopped early still tells what it ran), and
# "LABEL SECONDS ENDED SIGN" in /tmp/seq-ends (SIGN: the side of 0 the
# always-valid interval is on, "-" where it holds 0).
seq_run() {
	before=$(seq_throttled)
	# shellcheck disable=SC2086 # $SEQ_PFT is one argument, sh's script
	vmpctl ab --interleave "$SEQ_SLICE" --sequential --target 2% -T "$SEQ_LIMIT" \
		--knob "$SEQ_CPU_CG/cpu.cfs_quota_us" --a=-1 --b="$2" \
		--counter "$SEQ_MEMCG/memory.stat:pgfault" --seed "$1" -q --higher-is-better \
		--json -- sh -c "$SEQ_PFT" seq-pft "$SEQ_MEMCG" "$SEQ_CPU_CG" \
		>/tmp/seq.json 2>/tmp/seq.err || true
	throttled=$(($(seq_throttled) - before))
	sed 's/.*"sequential":{//' /tmp/seq.json >/tmp/seq-obj
	elapsed=$(json_num /tmp/seq.json elapsed_s)
	ended=$(sed -n 's/^"ended_by":"\([a-z_]*\)".*/\1/p' /tmp/seq-obj)
	interval=$(json_after /tmp/seq-obj always_valid_ci_pct "[" "]")
	side=$(echo "$interval" | awk -F, '$1 != "null" && $1 > 0 { print "+"; exit }
		$2 != "null" && $2 < 0 { print "-"; exit } { print "0" }')
	# awk, not printf: a run that failed leaves fields empty
	awk -v round="$1" -v arm="$3" -v s="${elapsed:-0}" -v pairs="$(json_num /tmp/seq-obj pairs)" \
		-v ended="${ended:-none}" -v diff="$(json_num /tmp/seq-obj diff_pct)" \
		-v interval="$interval" -v noise="$(json_num /tmp/seq.json noise_pct)" -v t="$throttled" '
		function pct(v) { return v == "" ? "-" : v == "null" ? "inf" : sprintf("%+.2f%%", v) }
		BEGIN {
			split(interval, ci, ",")
			# parenthesised: a bare > among the arguments of printf redirects it
			printf "%-5s %-4s %7.1f %6s  %-14s %8s  %-24s %9s  %9.2f%%\n", round, arm, s,
				(pairs == "" ? "-" : pairs), ended, pct(diff),
				"[" pct(ci[1]) ", " pct(ci[2]) "]", (noise == "" ? "-" : sprintf("%.1f%%", noise)),
				(s > 0 ? 100 * t / 1e9 / (s / 2) : 0)
		}'
	echo "$3 ${elapsed:-0} ${ended:-none} $side" >>/tmp/seq-ends
	case $ended in
	effect | within_target | max_time) ;;
	*) sed "s|^|  round $1, $3: |" /tmp/seq.err | head -n 3 ;;
	esac
}

# The summary of the runs labelled $1 in /tmp/seq-ends: how each ended, and
# the median and 90th percentile (nearest rank) of the time to an answer;
# a run that hit -T counts at -T, so a figure that lands on one is ">=".
# $2: the side of 0 a right "effect" is on ("-" for B slower; "" for the A/A,
# where every "effect" is a false positive).
seq_summary() {
	awk -v want="$1" -v right="$2" -v limit="$SEQ_LIMIT" '
		$1 != want { next }
		$3 == "effect" && right != "" && $4 == right { found++ }
		$3 == "effect" && !(right != "" && $4 == right) { wrong++ }
		$3 == "within_target" { inside++ }
		$3 == "max_time" { open++ }
		$3 != "effect" && $3 != "within_target" && $3 != "max_time" { failed++; next }
		{ n++; t[n] = $2; censored[n] = $3 == "max_time" }
		function at(i) { return sprintf("%s%.0f s", censored[i] ? ">= " : "", t[i]) }
		END {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (t[j] < t[i]) {
					x = t[i]; t[i] = t[j]; t[j] = x
					x = censored[i]; censored[i] = censored[j]; censored[j] = x
				}
			if (right != "")
				printf "%s: %d runs; ended by an effect, B slower (found) %d, B faster %d; no difference larger than 2%% %d; -T (%d s, no answer) %d; failed %d\n",
					want, n + failed, found, wrong, inside, limit, open, failed
			else
				printf "%s: %d runs; ended by an effect (a false positive) %d; no difference larger than 2%% %d; -T (%d s, no answer) %d; failed %d\n",
					want, n + failed, wrong, inside, limit, open, failed
			if (!n) exit
			# the 90th percentile by nearest rank; with an even count the median is
			# the mean of the middle two, a lower bound when either is
			m = int((n + 1) / 2); p = int(0.9 * n + 0.999999)
			med = n % 2 ? at(m) : sprintf("%s%.0f s", censored[m] || censored[m + 1] ? ">= " : "",
				(t[m] + t[m + 1]) / 2)
			printf "%s: time to an answer: median %s, 90th percentile %s (goal: a median under 180 s)\n",
				want, med, at(p)
		}' /tmp/seq-ends
}

if section 5; then
echo
echo "== 5. --sequential --target 2% on pft: a real 2% effect (CFS bandwidth) and an A/A, $SEQ_ROUNDS rounds of at most $SEQ_LIMIT s each"
if ! seq_cgroups; then
	echo "SKIP: section 5 needs cgroup v1's memory hierarchy and CFS bandwidth control (cpu.cfs_quota_us), which this kernel lacks"
else
reload_interleave_backend
echo "backend: $(cat "$KNOB_DIR/method"), resident, enabled=1 throughout; pft in $SEQ_MEMCG (16 MiB) and $SEQ_CPU_CG"
echo "vmpctl ab --interleave $SEQ_SLICE --sequential --target 2% -T $SEQ_LIMIT --knob $SEQ_CPU_CG/cpu.cfs_quota_us --a=-1 --b=QUOTA --counter $SEQ_MEMCG/memory.stat:pgfault -- vmpctl pft --size 64M --duration 3600"
echo "2%: B's quota $SEQ_QUOTA of 100000 us; A/A: B's quota $SEQ_AA_QUOTA, which never binds"
printf '%-5s %-4s %7s %6s  %-14s %8s  %-24s %9s  %10s\n' round arm "wall s" pairs "ended by" \
	"B vs A" "always-valid 95% CI" "pair sd" "throttled"
: >/tmp/seq-ends
round=1
while [ "$round" -le "$SEQ_ROUNDS" ]; do
	for kind in $([ $((round % 2)) = 1 ] && echo "2% A/A" || echo "A/A 2%"); do
		quota=$SEQ_QUOTA
		[ "$kind" = 2% ] || quota=$SEQ_AA_QUOTA
		seq_run "$round" "$quota" "$kind"
	done
	round=$((round + 1))
done
echo "(pair sd: the spread of a pair's difference, % of A; throttled: the CFS throttled time over half"
echo " the run's wall time, about B's share of its time lost; the effect injected)"
seq_summary 2% -
seq_summary A/A ""
unload
fi
fi
