# shellcheck shell=dash
# Guest test of vmpctl ab on a real network service (issue 31): Debian's
# PostgreSQL server in a memory cgroup at its limit (its pages go to zram
# and come back all along, so vmpressure runs in every slice), under its
# own load generator, pgbench, over TCP on loopback. ab must get right
# what separate whole runs of the same pgbench measure, or refuse:
#  - the vmpressure knob (a real flip, a small effect on this workload):
#    interleaved on pgbench's own -P lines, and attached to the running
#    service through a kernel counter (loopback's packets: a transaction is
#    a query and its answer) must find no large difference;
#  - a known effect, a CPU quota on the server as the knob: the same two
#    designs must agree with long phases of each arm measured just before
#    them, in the same kind of connection (see svc_reference);
#  - an A/A of both designs on the quota's file, arm B a quota of more
#    CPUs than the guest has: every flip turns CFS bandwidth control on or
#    off for the server, but the quota can never bind; no large
#    difference, and cpu.stat shows B's quota in force and never throttling.
# The server and pgbench come from this machine's packages
# (tests/vm/lib/workloads.sh). Sourced with the guest lib by run-tests.sh,
# which runs each test_NAME in its own shell.

SVC_DIR=/tmp/svc-pg
SVC_MEMCG=$(memcg_root)/svc-pg
# Room above what the server keeps once its memcg is emptied, in MiB:
# less than the 16 MiB that select-only transactions read at random (the
# accounts table and its index at scale 1), through the tables' tmpfs
# files with shared buffers this small, so their pages are reclaimed to
# zram and read back all along.
SVC_ROOM_MIB=12
# cgroup v1's cpu controller, mounted by the test for the quota.
SVC_CPU_ROOT=/sys/fs/cgroup/cpu
SVC_CPU=$SVC_CPU_ROOT/svc-pg
# The quota of arm B: 30 ms of CPU per 100 ms period (the server alone
# uses more: about -50% in whole runs).
SVC_QUOTA_US=30000
# The A/A's arm B, set by svc_start: one CPU more than the guest has, per
# period, which no number of the server's processes can use up.
SVC_AA_QUOTA_US=
# The references (see svc_reference): SVC_BLOCKS blocks of four phases in
# ABBA order, each phase SVC_RUN_S seconds of which the first
# SVC_SETTLE_S are not measured; whole runs for the interleaved A/B,
# phases in the running load's connection for the attached one. Then
# ab's slices: two of pgbench's 1 s reports per interleaved slice, the
# counter read three times in each of the attach mode's; two warm-up
# slices for pgbench's connection. Eight pairs: the signed-rank test reaches p < 0.05 from six,
# but only when every pair agrees; with eight, one pair hit by a reclaim
# storm (an A slice at the quota's rate, seen once in CI) no longer hides
# a -50%.
SVC_BLOCKS=3
SVC_RUN_S=4
SVC_SETTLE_S=2
SVC_LINES_AB="--interleave 2.5 --max-flip 5 -n 8 -w 2 -T 90 --preset pgbench"
SVC_ATTACH_AB="--interleave 1.5 --max-flip 5 -n 8 -w 1 -T 60 --cgroup $SVC_MEMCG --counter /proc/net/dev:lo.tx_packets"
# The quota's A/B attached: the server recovers for about a second after
# the quota (its first 1 s report after it, in whole runs), which 1.5 s
# slices took in (ab read the quota 3 to 9 points milder than the whole
# runs, which skip it); ab's own remedy, --settle, in longer slices.
SVC_QUOTA_ATTACH="--interleave 2.5 --settle 1"
# The A/As: six pairs (the fewest at which a verdict is possible at all),
# for the guest time; -n and -T after the A/B's, which they override.
SVC_AA="-n 6 -T 60"
# How far apart, as a factor on the ratio B/A, ab and its reference may
# read the quota and still agree (svc_check_agrees): they measure in
# different ways (ab's slices and loopback's packets, of which B's
# transactions send 3% more; the reference's 4 s phases and pgbench's
# transactions), and CI saw them miss by x1.035 one way (c9311e1, whole
# runs then: ab's 0.373 against blocks up to 0.361) and x1.003 the other
# (694dfd3: 0.407 against blocks from 0.408), each interval "B worse" and
# tight. Issue
# 31's error, -14% where -56% was true, is x1.9 away.
SVC_AGREE_FACTOR=1.10
# The largest B vs A, in percent, that the vmpressure knob may really make
# on this workload: ab's interval must reach it (see svc_check_small).
SVC_SMALL_PCT=10

svc_pgbench() {
	"$SVC_BIN/pgbench" -h 127.0.0.1 -p 5432 -U postgres "$@"
}

# Stops the load and the server, removes the cpu cgroup and unmounts its
# hierarchy (the runner removes the memory cgroup).
svc_cleanup() {
	[ -z "${SVC_LOAD:-}" ] || kill "$SVC_LOAD" 2>/dev/null || true
	if [ -e "$SVC_DIR/data/postmaster.pid" ]; then
		kill -INT "$(head -n 1 "$SVC_DIR/data/postmaster.pid")" 2>/dev/null || true
		wait_until 20 not test -e "$SVC_DIR/data/postmaster.pid" || true
	fi
	[ ! -d "$SVC_CPU" ] || xargs kill -9 <"$SVC_CPU/cgroup.procs" 2>/dev/null || true
	[ ! -d "$SVC_CPU" ] || wait_until 10 rmdir "$SVC_CPU" 2>/dev/null || true
	! grep -q " $SVC_CPU_ROOT cgroup " /proc/mounts || umount "$SVC_CPU_ROOT" || true
	[ ! -d "$SVC_CPU_ROOT" ] || rmdir "$SVC_CPU_ROOT" || true
}

# The server in SVC_MEMCG (limited) and SVC_CPU, listening on 127.0.0.1,
# pgbench's tables (scale 1) generated by the server, so charged to it.
svc_start() {
	local start usage
	start=$(uptime_s)
	SVC_BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin | head -n 1)
	[ -x "$SVC_BIN/postgres" ] || fail "no PostgreSQL server in the image"
	ip link set lo up || fail "cannot bring lo up"
	mkdir -p "$SVC_CPU_ROOT" || fail "cannot create $SVC_CPU_ROOT"
	mount -t cgroup -o cpu cpu "$SVC_CPU_ROOT" || fail "cannot mount cgroup v1's cpu controller"
	mkdir "$SVC_CPU" || fail "cannot create $SVC_CPU"
	[ "$(cat "$SVC_CPU/cpu.cfs_quota_us")" = -1 ] ||
		fail "$SVC_CPU has a quota already: $(cat "$SVC_CPU/cpu.cfs_quota_us")"
	SVC_AA_QUOTA_US=$((($(grep -c '^processor' /proc/cpuinfo) + 1) * $(cat "$SVC_CPU/cpu.cfs_period_us")))
	mkdir "$SVC_MEMCG" || fail "cannot create $SVC_MEMCG"
	mkdir -p "$SVC_DIR" || fail "cannot create $SVC_DIR"
	chown "$NOBODY" "$SVC_DIR" || fail "cannot give $SVC_DIR to nobody"
	su -s /bin/sh nobody -c "TZ=UTC $SVC_BIN/initdb -D $SVC_DIR/data -A trust -U postgres \
		--no-locale -E UTF8 --no-sync --no-instructions" >/tmp/svc-initdb.log 2>&1 ||
		fail "initdb failed: $(tail -n 3 /tmp/svc-initdb.log)"
	# shellcheck disable=SC2016 # expanded by the server's shell
	sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" &&
		exec su -s /bin/sh nobody -c "exec $3/postgres -D $4/data -k $4 -p 5432 \
		-c listen_addresses=127.0.0.1 -c shared_buffers=1MB -c fsync=off \
		-c full_page_writes=off -c jit=off"' \
		sh "$SVC_MEMCG" "$SVC_CPU" "$SVC_BIN" "$SVC_DIR" >/tmp/svc-postgres.log 2>&1 &
	wait_until 30 grep -q "ready to accept connections" /tmp/svc-postgres.log ||
		fail "postgres did not start: $(tail -n 3 /tmp/svc-postgres.log)"
	echo "service: initdb and the server took $(($(uptime_s) - start)) s"
	svc_pgbench -i -s 1 -I dtGp -q postgres >/tmp/svc-pgbench-init.log 2>&1 ||
		fail "pgbench -i failed: $(tail -n 3 /tmp/svc-pgbench-init.log)"
	svc_load -T 2 >/tmp/svc-warm.log 2>&1 || fail "pgbench failed: $(tail -n 3 /tmp/svc-warm.log)"
	echo 0 >"$SVC_MEMCG/memory.force_empty" || fail "cannot reclaim $SVC_MEMCG"
	usage=$(cat "$SVC_MEMCG/memory.usage_in_bytes")
	echo $((usage + SVC_ROOM_MIB * 1024 * 1024)) >"$SVC_MEMCG/memory.limit_in_bytes" ||
		fail "cannot limit $SVC_MEMCG"
	echo "service: the server and its tables took $(($(uptime_s) - start)) s;" \
		"$((usage >> 20)) MiB left after reclaim, limited to $SVC_ROOM_MIB MiB more"
}

# Select-only transactions, one client, over TCP.
svc_load() {
	svc_pgbench -n -S -M prepared -c 1 "$@" postgres
}

# svc_ab NAME ARGS...: vmpctl ab --json -q ARGS, the JSON in /tmp/NAME.json
# and its exit status in /tmp/NAME.status (0, or 1 for a refusal: the
# checks judge it), then what it said.
svc_ab() {
	local name=$1 status=0
	shift
	vmpctl ab --json -q "$@" >"/tmp/$name.json" 2>"/tmp/$name.err" || status=$?
	echo "$status" >"/tmp/$name.status"
	cat "/tmp/$name.err"
	svc_summary "$name"
}

# svc_first KEY FILE: the first value of KEY in the rate's comparison in
# ab's JSON FILE (the "metric" object, after the latency's).
svc_first() {
	sed 's/.*"metric":{//' "$2" | grep -o "\"$1\":[^,}]*" | sed -n '1s/^[^:]*://p'
}

# svc_ci FILE: the rate's 95% interval of B vs A, "LOW,HIGH" in percent.
svc_ci() {
	sed -n 's/.*"metric":{.*"diff_ci_pct":\[\([^]]*\)\].*/\1/p' "$1"
}

# svc_read NAME: sets svc_status, svc_verdict and svc_diff (B vs A, %).
svc_read() {
	svc_status=$(cat "/tmp/$1.status")
	svc_verdict=$(svc_first verdict "/tmp/$1.json")
	svc_diff=$(svc_first diff_pct "/tmp/$1.json")
}

# svc_withheld NAME: the reasons ab gave for "no verdict", a JSON list.
svc_withheld() {
	grep -o '"withheld":\[[^]]*\]' "/tmp/$1.json" | tail -n 1
}

# svc_summary NAME: what ab said, and every slice (for a failure's reason).
svc_summary() {
	local json=/tmp/$1.json
	svc_read "$1"
	echo "$1: exit $svc_status, $(sed -n 's/.*"pairs":{"kept":\([0-9]*\).*/\1/p' "$json") pairs kept," \
		"B vs A $svc_diff% $(svc_ci "$json"), p $(svc_first signed_rank_p "$json")," \
		"verdict $svc_verdict ($(svc_withheld "$1")), MDE $(svc_first mde_pct "$json")%"
	echo "$1: balance $(json_object balance "$json")"
	echo "$1: pairs $(json_object pairs "$json"); sanity $(json_object sanity "$json")"
	echo "$1: intervals $(json_object intervals "$json")"
	echo "$1: slices (arm fate intervals seconds rate pgscan skipped): $(grep -o '{"arm":"[AB]","fate":"[^"]*"[^}]*}' "$json" |
		sed -E 's/.*"arm":"(.)","fate":"([^"]*)".*"intervals":([0-9]*),"time_s":([^,]*),.*"rate":([^,]*),.*"pgscan":([^,]*),"skipped":([^,}]*).*/\1 \2 \3 \4 \5 \6 \7;/' |
		tr '\n' ' ')"
}

# svc_refused NAME [carry-over]: ab refused a verdict, saying why: "no
# verdict" with exit 1 for the kept pairs unbalanced, losses that depend on
# the arm, or stalls that lean on one; or with exit 0 for carry-over alone
# (the effect differs between the halves of the slices; ab reports it and
# exits 0, vmpctl(1)). With carry-over, only that.
svc_refused() {
	[ "$svc_verdict" = '"no verdict"' ] || return 1
	if [ "$svc_status" -eq 0 ]; then
		grep -q '"withheld":\["carry-over"\]' "/tmp/$1.json"
	else
		[ "${2:-}" != carry-over ] && [ "$svc_status" -eq 1 ] &&
			grep -Eq '"balanced":false|"even":false|"stalls_lean":"[AB]"' "/tmp/$1.json"
	fi
}

# svc_compared NAME [PAIRS]: ab compared PAIRS pairs (8) and gave a verdict.
svc_compared() {
	[ "$svc_status" -eq 0 ] || fail "$1: vmpctl ab exited $svc_status"
	grep -q "\"pairs\":{\"kept\":${2:-8}," "/tmp/$1.json" || fail "$1: not ${2:-8} pairs kept"
	case $svc_verdict in
	'"~"' | '"B better"' | '"B worse"') ;;
	*) fail "$1: verdict $svc_verdict" ;;
	esac
}

# svc_check_small NAME [PAIRS]: the vmpressure knob's A/B, or the quota's
# A/A (PAIRS pairs, 8): for the vmpressure knob, vmpressure ran in every
# kept slice and only arm B short-circuited it (ab checks that only for
# the vmpressure knob: its sanity counts are 0 for the quota's file); for
# both, ab's 95% interval reaches into +-SVC_SMALL_PCT, or ab refused
# honestly. On cgroup v1 the knob saves only vmpressure's own accounting,
# so a real effect is small; an interval that excludes every small effect
# is ab's own error. Not the verdict: with no effect, "B better" or
# "B worse" comes 5% of the time by design, and eight noisy pairs put
# such an estimate past 10% (a 17% one was seen in CI); an interval
# wholly past 10% is far rarer.
svc_check_small() {
	local ci
	svc_read "$1"
	if svc_refused "$1"; then
		echo "$1: ab refused a verdict: $(svc_withheld "$1")"
		return 0
	fi
	svc_compared "$1" "${2:-8}"
	grep -q '"slices_without_reclaim":0,"b_slices_not_skipped":0,"a_slices_skipped":0' "/tmp/$1.json" ||
		fail "$1: not a vmpressure A/B: $(json_object sanity "/tmp/$1.json")"
	ci=$(svc_ci "/tmp/$1.json")
	awk -v ci="$ci" -v m="$SVC_SMALL_PCT" 'BEGIN {
		n = split(ci, b, ","); exit !(n == 2 && b[1] <= m && b[2] >= -m) }' ||
		fail "$1: B vs A $svc_diff% [$ci], every value past $SVC_SMALL_PCT%"
}

# svc_cpu_stat FIELD: FIELD of the server's cpu.stat.
svc_cpu_stat() {
	awk -v f="$1" '$1 == f { print $2 }' "$SVC_CPU/cpu.stat"
}

# svc_aa NAME ARGS...: svc_ab NAME with the A/A's knob (arm A no quota,
# arm B SVC_AA_QUOTA_US) and ARGS; keeps the bandwidth periods that passed
# and were throttled meanwhile, for svc_check_aa.
svc_aa() {
	local name=$1 periods throttled
	shift
	periods=$(svc_cpu_stat nr_periods)
	throttled=$(svc_cpu_stat nr_throttled)
	svc_ab "$name" --knob "$SVC_CPU/cpu.cfs_quota_us" --a=-1 --b="$SVC_AA_QUOTA_US" "$@"
	echo "$(($(svc_cpu_stat nr_periods) - periods)) $(($(svc_cpu_stat nr_throttled) - throttled))" >"/tmp/$name.periods"
	echo "$name: B's quota $SVC_AA_QUOTA_US us of $(cat "$SVC_CPU/cpu.cfs_period_us"):" \
		"periods under it, throttled: $(cat "/tmp/$name.periods")"
	[ "$(cat "$SVC_CPU/cpu.cfs_quota_us")" = -1 ] ||
		fail "$name: the quota was not put back: $(cat "$SVC_CPU/cpu.cfs_quota_us")"
}

# svc_check_aa NAME: the A/A's flips were real and B's quota never bound:
# the kernel counted bandwidth periods, which it does only while a quota
# is set, and throttled none of them. Then svc_check_small NAME 6.
svc_check_aa() {
	local periods throttled
	read -r periods throttled <"/tmp/$1.periods"
	[ "$periods" -gt 0 ] || fail "$1: no bandwidth period passed under B's quota: the A/A flipped nothing"
	[ "$throttled" -eq 0 ] || fail "$1: B's quota of $SVC_AA_QUOTA_US us throttled the server $throttled times"
	svc_check_small "$1" 6
}

# svc_check_agrees NAME [may-refuse]: ab on the quota says "B worse" (or
# "~" with an estimate below zero), and its 95% interval of B/A overlaps
# the range of the blocks of its reference, NAME's svc_reference, widened
# by SVC_AGREE_FACTOR. Or
# carry-over (the server recovers from the quota for about 2 s: real), or,
# with may-refuse, any honest refusal (interleaved on report lines only:
# the attach mode drops nothing by arm). Overlap, not containment: each
# side has its own error, and a correct ab misses every block only when
# its interval and all of them err to opposite sides. Where the blocks'
# range reaches a ratio of 1 the test says WEAK: then only the verdict
# rules out no effect.
svc_check_agrees() {
	local ci whole lo hi ratios
	read -r whole lo hi ratios <"/tmp/$1.reference"
	svc_read "$1"
	if svc_refused "$1" "$([ "${2:-}" = may-refuse ] || echo carry-over)"; then
		echo "$1: ab refused a verdict: $(svc_withheld "$1")"
		return 0
	fi
	svc_compared "$1"
	# "~" is allowed only below zero: eight pairs reject only when nearly
	# all agree, and one slice hit by a reclaim storm left -64% at "~" in
	# CI; the overlap check below still holds it to the whole runs.
	case $svc_verdict in
	'"B worse"') ;;
	'"~"') awk -v d="$svc_diff" 'BEGIN { exit !(d < 0) }' ||
		fail "$1: ~ at $svc_diff% on a quota that took $whole% in its reference" ;;
	*) fail "$1: verdict $svc_verdict on a quota that took $whole% in its reference (ab: $svc_diff%)" ;;
	esac
	ci=$(svc_ci "/tmp/$1.json")
	awk -v ci="$ci" -v lo="$lo" -v hi="$hi" -v f="$SVC_AGREE_FACTOR" -v name="$1" 'BEGIN {
		split(ci, b, ","); ab_lo = 1 + b[1] / 100; ab_hi = 1 + b[2] / 100
		printf "%s: ab'"'"'s ratio [%.3f, %.3f] against its reference'"'"'s blocks [%s, %s]\n", name, ab_lo, ab_hi, lo, hi
		if (hi >= 1) printf "%s: WEAK: a block of the reference found no effect: only the verdict rules it out\n", name
		exit !(ab_hi * f >= lo && ab_lo <= hi * f) }' ||
		fail "$1: B vs A $svc_diff% [$ci], outside every block of its reference: ratios $ratios (median $whole%)"
}

# svc_whole_run: one whole run of SVC_RUN_S seconds in one connection;
# sets svc_tps to the mean of pgbench's 1 s reports after the first
# SVC_SETTLE_S, the arm's steady state: a new backend starts cold, and
# after the quota the server recovers for seconds (in CI a whole run of
# 400 transactions right after it was 1.7 to 6.1 times slower than the
# first A run, reclaim catching up in the memcg at its limit).
svc_whole_run() {
	svc_load -T "$SVC_RUN_S" -P 1 >/tmp/svc-whole.log 2>&1 ||
		fail "pgbench failed: $(tail -n 3 /tmp/svc-whole.log)"
	svc_tps=$(awk -v settle="$SVC_SETTLE_S" '$1 == "progress:" && $2 > settle { sum += $4; n++ }
		END { if (n) printf "%.1f\n", sum / n }' /tmp/svc-whole.log)
	[ -n "$svc_tps" ] ||
		fail "pgbench reported nothing after $SVC_SETTLE_S s: $(tail -n 6 /tmp/svc-whole.log); the server: $(tail -n 3 /tmp/svc-postgres.log)"
}

# The running load's reports so far; whether they are more than N.
svc_load_reports() {
	grep -c '^progress:' /tmp/svc-load.log
}
svc_load_reports_past() {
	[ "$(svc_load_reports)" -gt "$1" ]
}

# svc_phase: one phase of SVC_RUN_S seconds in the running load's
# connection (SVC_LOAD, reporting every second to /tmp/svc-load.log); sets
# svc_tps as svc_whole_run does. The first report after the phase starts
# straddles its start, so the phase lasts a second longer.
svc_phase() {
	local first
	first=$(($(svc_load_reports) + 2 + SVC_SETTLE_S))
	wait_until $((SVC_RUN_S + 10)) svc_load_reports_past $((first + SVC_RUN_S - SVC_SETTLE_S - 2)) ||
		fail "the load reported too little in $((SVC_RUN_S + 10)) s: $(tail -n 3 /tmp/svc-load.log)"
	svc_tps=$(awk -v first="$first" -v n=$((SVC_RUN_S - SVC_SETTLE_S)) '$1 == "progress:" && ++k >= first && k < first + n {
		sum += $4 } END { printf "%.1f\n", sum / n }' /tmp/svc-load.log)
}

# svc_reference NAME RUN: the quota's effect in SVC_BLOCKS blocks of four
# RUNs (svc_whole_run or svc_phase) in ABBA order, each block's ratio
# of B's rates to A's, for svc_check_agrees NAME: /tmp/NAME.reference holds
# B vs A in percent from the blocks' median, the smallest and the largest
# block ratio, then every ratio. The median and the range of blocks, not a
# mean and a standard error: reclaim storms hit runs of either arm at
# random (a run's 1 s reports fall from about 1300 to 230 tps in A and to
# 50 in B, major faults in the memcg rising fivefold), and two storms in
# one block's B runs put its ratio at 0.071 where ab's -66% [-76%, -62%]
# was right (CI's run of 53b8b22); a storm moves one block, not the
# median. Measured just before the A/B it judges, in the same kind of
# connection: the server drifts over minutes (one guest's ratio went from
# 0.33 to 0.19 across an attached A/B, A from 1300 to 500 tps), and a
# connection's first seconds are slow (whole runs'; not the load's).
svc_reference() {
	local name=$1 run=$2 quota=$SVC_CPU/cpu.cfs_quota_us block=0 a1 b1 b2 a2 ratios=''
	while [ "$block" -lt "$SVC_BLOCKS" ]; do
		$run
		a1=$svc_tps
		echo "$SVC_QUOTA_US" >"$quota" || fail "cannot set $quota"
		$run
		b1=$svc_tps
		$run
		b2=$svc_tps
		echo -1 >"$quota" || fail "cannot reset $quota"
		$run
		a2=$svc_tps
		ratios="$ratios $(awk -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" \
			'BEGIN { printf "%.4f", (b1 + b2) / (a1 + a2) }')"
		echo "$name: reference ($run), block $((block + 1)): A $a1 $a2 tps, B $b1 $b2 tps"
		block=$((block + 1))
	done
	# shellcheck disable=SC2086 # one ratio a word
	printf '%s\n' $ratios | sort -n | awk '{ r[NR] = $1 } END {
		m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
		printf "%.1f %s %s", 100 * (m - 1), r[1], r[NR]
		for (i = 1; i <= NR; i++) printf " %s", r[i]
		print "" }' >"/tmp/$name.reference"
	echo "$name: reference ($run): B vs A (median), lowest, highest, every block ratio: $(cat "/tmp/$name.reference")"
}

# group: service
# requires: amd64 cgroup-v1
test_service_pgbench() {
	local start quota
	need_module
	trap svc_cleanup EXIT
	svc_start
	quota=$SVC_CPU/cpu.cfs_quota_us
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_ab svc-knob-lines $SVC_LINES_AB -- "$SVC_BIN/pgbench" -h 127.0.0.1 -p 5432 \
		-U postgres -n -S -M prepared -c 1 -T 600 -P 1 postgres
	expect_knob 1 "after vmpctl ab on the service"
	echo "service: interleaved, vmpressure knob: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	svc_reference svc-quota-lines svc_whole_run
	echo "service: whole runs, quota: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_ab svc-quota-lines $SVC_LINES_AB --knob "$quota" --a=-1 --b="$SVC_QUOTA_US" -- \
		"$SVC_BIN/pgbench" -h 127.0.0.1 -p 5432 -U postgres -n -S -M prepared -c 1 -T 600 -P 1 postgres
	[ "$(cat "$quota")" = -1 ] || fail "the quota was not put back: $(cat "$quota")"
	echo "service: interleaved, quota: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_aa svc-aa-lines $SVC_LINES_AB $SVC_AA -- \
		"$SVC_BIN/pgbench" -h 127.0.0.1 -p 5432 -U postgres -n -S -M prepared -c 1 -T 600 -P 1 postgres
	echo "service: interleaved, A/A on the quota's file: $(($(uptime_s) - start)) s"
	svc_load -T 600 -P 1 >/tmp/svc-load.log 2>&1 &
	SVC_LOAD=$!
	wait_until 30 grep -q '^progress:' /tmp/svc-load.log ||
		fail "pgbench reported no progress: $(tail -n 3 /tmp/svc-load.log)"
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_ab svc-knob-attach $SVC_ATTACH_AB
	expect_knob 1 "after vmpctl ab attached to the service"
	echo "service: attached, vmpressure knob: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	svc_reference svc-quota-attach svc_phase
	echo "service: phases in the load's connection, quota: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_ab svc-quota-attach $SVC_ATTACH_AB $SVC_QUOTA_ATTACH --knob "$quota" --a=-1 --b="$SVC_QUOTA_US"
	[ "$(cat "$quota")" = -1 ] || fail "the quota was not put back: $(cat "$quota")"
	echo "service: attached, quota: $(($(uptime_s) - start)) s"
	start=$(uptime_s)
	# shellcheck disable=SC2086 # the SVC_*_AB are lists of options
	svc_aa svc-aa-attach $SVC_ATTACH_AB $SVC_AA
	echo "service: attached, A/A on the quota's file: $(($(uptime_s) - start)) s"
	kill -0 "$SVC_LOAD" 2>/dev/null ||
		fail "pgbench is gone after ab watched the service: $(tail -n 3 /tmp/svc-load.log)"
	memcg_has_processes "$SVC_MEMCG" || fail "the server is gone after ab watched it"
	svc_check_small svc-knob-lines
	svc_check_small svc-knob-attach
	svc_check_aa svc-aa-lines
	svc_check_aa svc-aa-attach
	svc_check_agrees svc-quota-lines may-refuse
	svc_check_agrees svc-quota-attach
}
