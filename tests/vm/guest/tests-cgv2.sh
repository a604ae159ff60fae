# shellcheck shell=dash
# Guest tests of what the knob changes on cgroup v2 (issue 12): there,
# vmpressure() is what puts a memcg under socket pressure, and TCP in that
# memcg is throttled. vmpctl check runs loopback TCP next to its reclaim
# and must see memory.events' sock_throttled move with the knob at 1, stay
# exactly still at 0 and move again at 1, on kernels that count it.
# Sourced with lib.sh and the other tests*.sh by run-tests.sh, which runs
# each test_NAME in its own shell and reports it as NAME. Logs go to /tmp.

CGV2_PROBE=/sys/fs/cgroup/vmtest-cgv2-probe

need_cgroup_v2() {
	! have_memcg_v1 || skip "cgroup-v1 memory controller: socket pressure is v2's"
}

# Whether this kernel's memory.events counts sock_throttled, asked of a
# cgroup of our own (the root has no memory.events).
kernel_has_sock_throttled() {
	local found=1
	mkdir "$CGV2_PROBE" || fail "cannot create $CGV2_PROBE"
	grep -q '^sock_throttled ' "$CGV2_PROBE/memory.events" && found=0
	rmdir "$CGV2_PROBE"
	return "$found"
}

# Field NAME of one line of JSON in FILE: a number, "null" or empty.
json_field() {
	sed -n "s/.*\"$1\":\([0-9.]*\|null\)[,}].*/\1/p" "$2"
}

# Splits vmpctl check --json in FILE into one line per phase in /tmp/cgv2.phases.
split_phases() {
	sed 's/{"phase":/\n/g' "$1" | sed -n '2,$p' >/tmp/cgv2.phases
	[ "$(wc -l </tmp/cgv2.phases)" -eq 3 ] || fail "vmpctl check --json has no three phases"
}

# Issue 12: the knob's effect on TCP, by the kernel's own count.
test_check_sock_throttled_follows_knob() {
	local status=0 phase=0 knob throttled line
	need_module
	need_cgroup_v2
	kernel_has_sock_throttled || skip "memory.events has no sock_throttled on this kernel"
	vmpctl check --json >/tmp/cgv2-check.json || status=$?
	cat /tmp/cgv2-check.json
	[ "$status" -eq 0 ] || fail "vmpctl check exited $status"
	expect_knob 1 "after vmpctl check"
	split_phases /tmp/cgv2-check.json
	while read -r line; do
		phase=$((phase + 1))
		echo "$line" >/tmp/cgv2.phase
		knob=$(json_field knob /tmp/cgv2.phase)
		throttled=$(json_field sock_throttled /tmp/cgv2.phase)
		echo "phase $phase knob $knob: sock_throttled +$throttled, net $(sed -n 's/.*"net":\({[^}]*}\).*/\1/p' /tmp/cgv2.phase)"
		case $throttled in
		'' | null) fail "phase $phase: no sock_throttled in vmpctl's JSON" ;;
		esac
		if [ "$knob" = 1 ]; then
			[ "$throttled" -gt 0 ] || fail "phase $phase (knob 1): sock_throttled did not move"
		else
			[ "$throttled" -eq 0 ] || fail "phase $phase (knob 0): sock_throttled grew by $throttled"
		fi
	done </tmp/cgv2.phases
	[ "$phase" -eq 3 ] || fail "read $phase phases"
}
