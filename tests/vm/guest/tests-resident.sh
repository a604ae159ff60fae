# shellcheck shell=dash disable=SC2153 # KNOB and the other names come from lib.sh
# Guest tests of resident mode (resident=1): the hooks are registered from
# load to unload, in both knob states; the knob still says what the kernel
# does (vmpressure_work_fn counted by the kernel's function tracer); a write
# waits for no grace period; rmmod works from either state and leaves
# nothing hooked; every backend the lane declares loads resident; a conflict
# refuses the load as it refuses a write of 0 in the default mode. Uses the
# helpers of lib.sh (expect_hooked, hook_lines) and lib-module.sh
# (load_backend, the evidence rounds). Run by run-tests.sh, each function in
# its own `sh -eu`, starting with the shipped module loaded at enabled=1.

RESIDENT_PARAM=/sys/module/vmpressure_ctl/parameters/resident

# A test that fails half-way leaves no resident module behind: the next
# test starts from the default mode (run-tests.sh reloads it).
resident_cleanup() {
	[ "$(cat "$RESIDENT_PARAM" 2>/dev/null)" = Y ] || return 0
	rmmod vmpressure_ctl
}

# Loads the shipped module resident with method=BACKEND (auto: the default)
# and more parameters.
load_resident() {
	local backend=$1
	shift
	trap resident_cleanup EXIT
	if [ "$backend" = auto ]; then
		unload_stock_or_testing
		load_module resident=1 "$@"
	else
		load_backend "$backend" resident=1 "$@"
	fi
	[ "$(cat "$RESIDENT_PARAM")" = Y ] || fail "loaded with resident=1, $RESIDENT_PARAM reads $(cat "$RESIDENT_PARAM")"
}

# Calls, while COMMAND... runs in this shell, of the functions that wait for
# a grace period (synchronize_rcu, synchronize_rcu_tasks, ..._rude): every
# backend's unregistration waits in one of them, in the writer's context,
# so a knob write that unhooks shows here. Counted by the kernel's function
# tracer for this shell's process only (kernel threads and other tasks
# wait for grace periods of their own); the calls go to stderr.
grace_period_waits() {
	local status=0 self
	read -r self _ </proc/self/stat
	trace_calls 'synchronize_rcu*' 'synchronize_rcu[a-z_]*' "$self" "$@" >&2 || status=$?
	echo "$TRACE_CALLS"
	return "$status"
}

# COUNT writes alternating 0 and 1, starting with 0 (so an even COUNT ends
# at 1); fails on the first refusal.
toggle_knob() {
	local i=1
	while [ "$i" -le "$1" ]; do
		echo $(((i + 1) % 2)) >"$KNOB" || return
		i=$((i + 1))
	done
}

# group: resident
test_resident_hooked_in_both_states() {
	local lines
	need_module
	load_resident auto
	expect_knob 1 "resident at load"
	expect_armed 0 "resident at 1"
	expect_hooked "resident at 1"
	lines=$(hook_lines)
	echo "resident at 1: $lines"
	set_knob 0
	expect_armed 1 "resident at 0"
	[ "$(hook_lines)" = "$lines" ] || fail "resident: the hooks changed from 1 to 0: $(hook_lines | tr '\n' ' ')"
	set_knob 1
	expect_armed 0 "resident at 1 again"
	[ "$(hook_lines)" = "$lines" ] || fail "resident: the hooks changed from 0 to 1: $(hook_lines | tr '\n' ' ')"
	unload_module
	load_resident auto enabled=0
	expect_knob 0 "resident loaded at 0"
	expect_armed 1 "resident loaded at 0"
	expect_hooked "resident loaded at 0"
	unload_module
}

# The kernel's own count of vmpressure()'s work follows the flag the hooks
# read: runs at 1, none at 0, runs at 1 again.
# group: resident
# requires: tracer
test_resident_work_fn_follows_knob() {
	need_module
	have_work_fn || skip "no vmpressure_work_fn in available_filter_functions (MEMCG_V1=n): the cgroup-v2 evidence is sock_throttled"
	load_resident auto
	expect_work_runs "resident at 1"
	set_knob 0
	expect_work_stopped "resident at 0"
	set_knob 1
	expect_work_runs "resident at 1 again"
	unload_module
}

# 1000 writes patch no text and wait for no grace period, where 2 in the
# default mode do both (which shows the count can see them); the hooks are
# the same lines before and after and the last state is what the kernel does.
# group: resident
test_resident_toggles_patch_nothing() {
	local lines waits
	need_module
	waits=$(grace_period_waits toggle_knob 2) || fail "default mode: 2 writes under the function tracer failed"
	echo "default mode, 2 writes: $waits grace-period waits"
	[ "$waits" -gt 0 ] || fail "default mode: 2 writes waited for no grace period: the count cannot see an unhook"
	load_resident auto
	lines=$(hook_lines)
	waits=$(grace_period_waits toggle_knob 1000) || fail "resident: 1000 writes under the function tracer failed"
	echo "resident, 1000 writes: $waits grace-period waits"
	[ "$waits" -eq 0 ] || fail "resident: 1000 writes waited for $waits grace periods"
	[ "$(hook_lines)" = "$lines" ] || fail "resident: 1000 writes changed the hooks: $(hook_lines | tr '\n' ' ')"
	expect_knob 1 "resident after 1000 writes"
	expect_armed 0 "resident after 1000 writes"
	expect_work_runs "resident at 1 after 1000 writes"
	waits=$(grace_period_waits toggle_knob 1001) || fail "resident: 1001 writes under the function tracer failed"
	[ "$waits" -eq 0 ] || fail "resident: 1001 writes waited for $waits grace periods"
	expect_knob 0 "resident after 1001 writes"
	expect_armed 1 "resident after 1001 writes"
	expect_work_stopped "resident at 0 after 1001 writes"
	unload_module
}

# rmmod from either state, with no write first: nothing stays hooked and
# vmpressure() runs again.
# group: resident
test_resident_rmmod_either_state() {
	local state
	need_module
	for state in 1 0; do
		load_resident auto
		set_knob "$state"
		rmmod vmpressure_ctl || fail "resident: rmmod at $state failed"
		! module_loaded || fail "resident: $KNOB_DIR still present after rmmod at $state"
		expect_no_hook_lines "resident: after rmmod at $state"
		expect_work_runs "resident: after rmmod at $state"
	done
}

# Every backend the lane declares, explicitly: hooked at 1, short-circuits
# at 0, hands calls back at 1 again, unloads at 0.
# group: resident
test_resident_every_backend() {
	local backend
	need_module
	for backend in $(lane_backends); do
		echo "== method=$backend resident=1"
		load_resident "$backend"
		expect_hooked "method=$backend resident at 1"
		expect_armed 0 "method=$backend resident at 1"
		set_knob 0
		expect_armed 1 "method=$backend resident at 0"
		expect_work_stopped "method=$backend resident at 0"
		set_knob 1
		expect_work_runs "method=$backend resident at 1 again"
		set_knob 0
		rmmod vmpressure_ctl || fail "method=$backend resident: rmmod at 0 failed"
		expect_no_hook_lines "method=$backend resident: after rmmod at 0"
	done
}

# Another IPMODIFY owner of vmpressure() refuses a resident load with EBUSY
# and the message a write of 0 gives in the default mode, at either initial
# state; nothing is left hooked.
# group: resident
test_resident_conflict_refuses_load() {
	local backend state out
	need_module
	need_holder ipmodify "vmpc_test_ipmodify.ko was not built for this kernel"
	trap conflict_cleanup EXIT
	unload_stock_or_testing
	holder_load ipmodify || fail "ipmodify does not load on its own"
	for backend in $(lane_backends); do
		[ "$(expected_outcome "$backend" ipmodify)" = busy ] || continue
		for state in 1 0; do
			clear_log
			out=$(insmod_must_fail method="$backend" resident=1 enabled="$state")
			case $out in
			*"Device or resource busy"*) ;;
			*) fail "method=$backend resident enabled=$state under ipmodify: expected EBUSY, got: $out" ;;
			esac
			log_has "$backend: cannot hook: -16: .*$(owner_phrase ipmodify)" ||
				fail "method=$backend resident under ipmodify: the message does not name the owner: $(new_log)"
		done
	done
	holder_unload ipmodify
	expect_no_hook_lines "resident refused, ipmodify gone"
}

# Resident with the direct backend, the knob is what the kernel does on
# cgroup v2, by vmpctl check's evidence (sock_throttled, which only
# vmpressure()'s body sets off): at 1 every call is handed back into the
# body (in jump mode by a JMP past the fentry site), at 0 none is.
# group: resident
# requires: amd64 cgroup-v2
test_resident_direct_check_follows_knob() {
	local status=0
	need_module
	kernel_has_sock_throttled || skip "memory.events has no sock_throttled on this kernel"
	load_resident direct
	vmpctl check --json >/tmp/resident-direct-check.json || status=$?
	cat /tmp/resident-direct-check.json
	[ "$status" -eq 0 ] || fail "resident method=direct: vmpctl check exited $status"
	grep -q '"pass":true' /tmp/resident-direct-check.json || fail "resident method=direct: the JSON does not say pass true"
	expect_knob 1 "resident method=direct after vmpctl check"
	unload_module
}
