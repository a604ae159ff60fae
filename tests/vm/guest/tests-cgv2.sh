# shellcheck shell=dash
# Guest tests of what the knob changes on cgroup v2 (issue 12): there,
# vmpressure() is what puts a memcg under socket pressure, and TCP in that
# memcg is throttled. vmpctl check runs loopback TCP next to its reclaim
# and must see memory.events' sock_throttled move with the knob at 1, stay
# exactly still at 0 and move again at 1, on kernels that count it.
# Sourced with the guest lib by run-tests.sh, which runs each test_NAME in
# its own shell and reports it as NAME. Logs go to /tmp.

need_cgroup_v2() {
	! have_memcg_v1 || skip "cgroup-v1 memory controller: socket pressure is v2's"
}


# Issue 12: the knob's effect on TCP, by the kernel's own count.
# group: core
# requires: cgroup-v2
test_check_sock_throttled_follows_knob() {
	local status=0 phase=0 knob throttled line
	need_module
	need_cgroup_v2
	kernel_has_sock_throttled || skip "memory.events has no sock_throttled on this kernel"
	vmpctl check --json >/tmp/cgv2-check.json || status=$?
	cat /tmp/cgv2-check.json
	[ "$status" -eq 0 ] || fail "vmpctl check exited $status"
	expect_knob 1 "after vmpctl check"
	check_phases /tmp/cgv2-check.json >/tmp/cgv2.phases
	[ "$(wc -l </tmp/cgv2.phases)" -eq 3 ] || fail "vmpctl check --json has no three phases"
	while read -r line; do
		phase=$((phase + 1))
		echo "$line" >/tmp/cgv2.phase
		knob=$(json_number knob /tmp/cgv2.phase)
		throttled=$(json_number sock_throttled /tmp/cgv2.phase)
		echo "phase $phase knob $knob: sock_throttled +$throttled, net $(json_object net /tmp/cgv2.phase)"
		[ -n "$throttled" ] || fail "phase $phase: no sock_throttled in vmpctl's JSON"
		if [ "$knob" = 1 ]; then
			[ "$throttled" -gt 0 ] || fail "phase $phase (knob 1): sock_throttled did not move"
		else
			[ "$throttled" -eq 0 ] || fail "phase $phase (knob 0): sock_throttled grew by $throttled"
		fi
	done </tmp/cgv2.phases
	[ "$phase" -eq 3 ] || fail "read $phase phases"
}

# Issue 12: vmpctl net runs TCP in a memcg at its limit and reports it.
# group: tool
test_vmpctl_net_reports_throughput() {
	local status=0 before rate bytes
	before=$(memcg_children)
	vmpctl net --json --seconds 3 >/tmp/net.json || status=$?
	cat /tmp/net.json
	[ "$status" -eq 0 ] || fail "vmpctl net exited $status"
	bytes=$(json_number bytes /tmp/net.json)
	rate=$(json_number 'MB\/s' /tmp/net.json)
	[ "${bytes:-0}" -gt 0 ] || fail "vmpctl net received '$bytes' bytes"
	case $rate in
	'' | 0 | 0.0) fail "vmpctl net reports a throughput of '$rate' MB/s" ;;
	esac
	grep -q '"private_netns":true' /tmp/net.json || fail "vmpctl net did not get a network namespace of its own"
	[ "$(memcg_children)" = "$before" ] || fail "cgroups left after vmpctl net: $(memcg_children | tr '\n' ' ')"
}

# The sock_throttled increments vmpctl watch printed to /tmp/watch.out.
watch_sum() {
	awk '$2 == "sock_throttled" { n += $3 } END { print n + 0 }' /tmp/watch.out
}

# Whether they add up to COUNT.
watch_printed() {
	[ "$(watch_sum)" = "$1" ]
}

# Issue 12: vmpctl watch on a v2 cgroup prints sock_throttled as it grows,
# and its increments add up to what the cgroup counted meanwhile.
# group: core
# requires: cgroup-v2
test_vmpctl_watch_sock_throttled() {
	local cg status=0 watcher counted printed moved try
	need_cgroup_v2
	kernel_has_sock_throttled || skip "memory.events has no sock_throttled on this kernel"
	cg=/sys/fs/cgroup/vmtest-watch
	mkdir "$cg" || fail "cannot create $cg"
	echo $((64 * 1024 * 1024)) >"$cg/memory.max"
	vmpctl watch --cgroup "$cg" >/tmp/watch.out 2>/tmp/watch.err &
	watcher=$!
	wait_until 10 grep -q "sock_throttled of $cg" /tmp/watch.err ||
		fail "vmpctl watch did not start in 10 s: $(cat /tmp/watch.err)"
	# Whether a 4 s run reaches vmpressure's medium level under TCG varies
	# (one of three cold CI runs saw 0): up to three runs, their counts
	# added, until one moves. The knob's effect is check's and net's test.
	counted=0
	for try in 1 2 3; do
		vmpctl net --cgroup "$cg" --seconds 4 --json >/tmp/watch-net.json || status=$?
		cat /tmp/watch-net.json
		moved=$(json_number sock_throttled /tmp/watch-net.json)
		counted=$((counted + ${moved:-0}))
		if [ "$status" -ne 0 ] || [ "$counted" -gt 0 ]; then
			break
		fi
		echo "run $try: sock_throttled did not move; again"
	done
	# one notification can lag the last increment by the kernel's 10 ms
	# rate limit; the watch also re-reads every second
	wait_until 10 watch_printed "$counted" || true
	kill -TERM "$watcher"
	wait "$watcher" || true
	cat /tmp/watch.err /tmp/watch.out
	rmdir "$cg"
	[ "$status" -eq 0 ] || fail "vmpctl net --cgroup $cg exited $status"
	case $counted in
	'' | 0) fail "sock_throttled did not move in $cg ('$counted')" ;;
	esac
	grep -q '  sock_throttled  ' /tmp/watch.out || fail "vmpctl watch printed no sock_throttled line"
	printed=$(watch_sum)
	[ "$printed" -eq "$counted" ] || fail "vmpctl watch printed increments adding to $printed, the cgroup counted $counted"
}

# One run of vmpctl net, its JSON and its stderr in files: 3 s instead of
# the default 6, as the reclaim reaches vmpressure() within the first.
net_phase() {
	vmpctl net --seconds 3 --json >/tmp/net-phase.json 2>/tmp/net-phase.err
}

# Whether the last net_phase shows vmpressure at work: sock_throttled
# grew, where the kernel counts it, and the tracer (count $1, empty
# without it) saw vmpressure's work item.
net_phase_moved() {
	local throttled
	throttled=$(json_number sock_throttled /tmp/net-phase.json)
	[ -z "$throttled" ] || [ "$throttled" -gt 0 ] || return 1
	[ -z "$1" ] || [ "$1" -gt 0 ]
}

# Issue 12, on every cgroup-v2 kernel: vmpctl net (loopback TCP in a memcg
# at its limit) at knob 1, 0, 1. The kernel's own evidence per phase:
# sock_throttled where memory.events counts it (7.3), else the function
# tracer counting vmpressure's work item, which vmpressure() schedules only
# when it runs (6.12). TCP's own: with the knob at 0 no socket pressure,
# so the receiver's rcv_ssthresh is never cut. The cuts at 1 are printed,
# not asserted: in 6.12 guests they came in 10 of 15 phases (docs/cgroup-v2.md).
# group: core
# requires: cgroup-v2 tracer
test_net_socket_pressure_follows_knob() {
	local phase=0 knob status throttled drops work tracer=no try
	need_module
	need_cgroup_v2
	if have_work_fn; then
		tracer=yes
	elif ! kernel_has_sock_throttled; then
		fail "neither sock_throttled nor a traceable vmpressure_work_fn: no kernel evidence left"
	fi
	for knob in 1 0 1; do
		phase=$((phase + 1))
		set_knob "$knob"
		for try in 1 2 3; do
			status=0 work=''
			if [ "$tracer" = yes ]; then
				trace_work_fn net_phase || status=$?
				work=$TRACE_CALLS
			else
				net_phase || status=$?
			fi
			cat /tmp/net-phase.err >&2
			[ "$try" -lt 3 ] || break
			# Under TCG the memcg OOM killer now and then takes the reclaim
			# child when a socket's charge finds too little reclaimed in
			# time: the workload failed, not the knob. And whether a 3 s
			# run's reclaim reaches vmpressure's level varies (one 7.3
			# phase at 1 in CI counted 0): at 1 the phase runs again,
			# up to three times; at 0 one run must show nothing.
			if [ "$status" -ne 0 ]; then
				grep -q 'killed by the OOM killer' /tmp/net-phase.err || break
				echo "phase $phase: the memcg OOM killer ended vmpctl net's reclaim child; running the phase again"
			elif [ "$knob" = 1 ] && ! net_phase_moved "$work"; then
				echo "phase $phase (knob 1), run $try: no sign of vmpressure yet; running the phase again"
			else
				break
			fi
		done
		cat /tmp/net-phase.json
		[ "$status" -eq 0 ] || fail "phase $phase: vmpctl net exited $status"
		throttled=$(json_number sock_throttled /tmp/net-phase.json)
		drops=$(json_number rcv_ssthresh_drops /tmp/net-phase.json)
		echo "phase $phase knob $knob: sock_throttled $throttled, vmpressure_work_fn ${work:--}, rcv_ssthresh cuts $drops, $(json_number 'MB\/s' /tmp/net-phase.json) MB/s"
		if [ -n "$throttled" ]; then
			if [ "$knob" = 1 ]; then
				[ "$throttled" -gt 0 ] || fail "phase $phase (knob 1): sock_throttled did not move"
			else
				[ "$throttled" -eq 0 ] || fail "phase $phase (knob 0): sock_throttled grew by $throttled"
			fi
		fi
		if [ "$tracer" = yes ]; then
			if [ "$knob" = 1 ]; then
				[ "$work" -gt 0 ] || fail "phase $phase (knob 1): vmpressure_work_fn never ran under reclaim"
			else
				[ "$work" -eq 0 ] || fail "phase $phase (knob 0): vmpressure_work_fn ran $work times"
			fi
		fi
		[ "$knob" = 1 ] || [ "$drops" -eq 0 ] || fail "phase $phase (knob 0): TCP cut rcv_ssthresh $drops times without socket pressure"
	done
}

# The negative control of check's v2 verdict: the test-only build's hooks
# with count_only=1 count in skipped but let vmpressure() run, so at 0 TCP
# is still throttled and vmpressure's work still runs, and check must say
# FAIL (exit 1) for that reason: sock_throttled where the kernel counts it
# (7.3), the function tracer's count of the work item where it does not
# (6.12).
# group: hooks
# requires: cgroup-v2
test_check_catches_count_only_hook() {
	local backend status=0 reason
	need_module
	need_cgroup_v2
	if kernel_has_sock_throttled; then
		reason='sock_throttled grew by [1-9]'
	elif have_work_fn; then
		reason="vmpressure's work ran [1-9][0-9]* times"
	else
		fail "neither sock_throttled nor a traceable vmpressure_work_fn: check has no kernel evidence here"
	fi
	backend=$(lane_backends | cut -d' ' -f1)
	load_testing method="$backend" count_only=1
	vmpctl check --json >/tmp/cgv2-count-only.json || status=$?
	cat /tmp/cgv2-count-only.json
	expect_knob 1 "after vmpctl check with count_only=1"
	unload_stock_or_testing
	[ "$status" -eq 1 ] || fail "count_only=1 method=$backend: vmpctl check exited $status, expected 1 (FAIL)"
	grep -q '"pass":false' /tmp/cgv2-count-only.json || fail "count_only=1: the JSON does not say pass false"
	grep -q "\"reason\":\"disabled: $reason" /tmp/cgv2-count-only.json ||
		fail "count_only=1: the reason is not /disabled: $reason/"
}
