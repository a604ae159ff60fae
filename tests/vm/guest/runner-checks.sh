# shellcheck shell=dash disable=SC2153 # names come from lib.sh
# The runner's own checks, run after every other test on every lane
# (tests/vm/lib/initramfs.sh lists them last, whatever the profile): the
# kernel fails loudly, a test cannot write a verdict of its own or leave
# processes or tracing state behind, and the kernel is not tainted.

# The kernel fails loudly (the harness boots it so): a warning, a soft
# lockup, an RCU stall and a hung task each panic, where the kernel has
# the switch.
test_kernel_watchdogs_armed() {
	local knob
	for knob in panic_on_warn softlockup_panic panic_on_rcu_stall hung_task_panic; do
		[ -e "/proc/sys/kernel/$knob" ] || continue
		[ "$(cat "/proc/sys/kernel/$knob")" = 1 ] ||
			fail "kernel.$knob is $(cat "/proc/sys/kernel/$knob"), expected 1"
	done
	[ -e /proc/sys/kernel/panic_on_warn ] || fail "no kernel.panic_on_warn"
}

# A test cannot write a result of its own: fd 3 (the runner's verdict
# channel) is closed in it and the channel's device node is gone.
test_verdict_channel_private() {
	local arg cmdline
	if (true >&3) 2>/dev/null; then
		fail "fd 3, the verdict channel, is open in the test"
	fi
	read -r cmdline </proc/cmdline
	for arg in $cmdline; do
		case $arg in
		vmtest.verdict=*) [ ! -e "/dev/${arg#vmtest.verdict=}" ] || fail "/dev/${arg#vmtest.verdict=} exists" ;;
		esac
	done
}

# A test's background processes do not outlive it (run-tests.sh kills its
# process group): this one leaves a sleep running, the next check looks for it.
LEFTOVER_PID_FILE=/tmp/vmtest-leftover-pid

test_leaves_a_process() {
	sleep 600 &
	echo "$!" >"$LEFTOVER_PID_FILE"
}

test_leftovers_killed() {
	local pid
	pid=$(cat "$LEFTOVER_PID_FILE") || fail "leaves_a_process left no pid"
	[ -n "$pid" ] || fail "leaves_a_process left an empty pid file"
	! kill -0 "$pid" 2>/dev/null || fail "the sleep leaves_a_process started ($pid) still runs"
}

# Every test starts from a clean slate (run-tests.sh's reset_state): this
# one leaves what a failed test might (the function tracer on a filtered
# function for one pid, a kprobe event, kprobes and ftrace disabled, a memory
# cgroup with a process in it), the next check finds it all reset.
CLEAN_SLATE_MEMCG=$(memcg_root)/vmtest-leftover

test_leaves_a_mess() {
	local first
	first=$(awk 'NR == 1 { print $1; exit }' "$TRACEFS/available_filter_functions")
	[ -n "$first" ] || fail "available_filter_functions is empty"
	tracefs_write set_ftrace_filter "$first"
	tracefs_write set_ftrace_pid $$
	tracefs_write current_tracer function
	[ ! -e "$TRACEFS/kprobe_events" ] || tracefs_write kprobe_events 'p:vmtest_leftover vfs_read'
	[ ! -e "$TRACEFS/kprobe_events" ] || tracefs_write events/kprobes/enable 1
	! kprobes_switch_usable || echo 0 >/sys/kernel/debug/kprobes/enabled ||
		fail "cannot disable kprobes"
	# 7.3 deprecated the switch ("no longer disables ftrace") and refuses 0.
	echo 0 >/proc/sys/kernel/ftrace_enabled ||
		echo "kernel.ftrace_enabled=0 refused here: left out of the mess"
	mkdir "$CLEAN_SLATE_MEMCG" || fail "cannot create $CLEAN_SLATE_MEMCG"
	# shellcheck disable=SC2016 # expanded by the child's shell
	setsid sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 600' leftover "$CLEAN_SLATE_MEMCG" &
	wait_until 5 memcg_has_processes "$CLEAN_SLATE_MEMCG" || fail "no process joined $CLEAN_SLATE_MEMCG"
}

test_slate_clean() {
	[ "$(cat "$TRACEFS/current_tracer")" = nop ] || fail "current_tracer is $(cat "$TRACEFS/current_tracer")"
	! grep -qv '^#' "$TRACEFS/set_ftrace_filter" ||
		fail "set_ftrace_filter holds $(grep -v '^#' "$TRACEFS/set_ftrace_filter")"
	! grep -qvx 'no pid' "$TRACEFS/set_ftrace_pid" ||
		fail "set_ftrace_pid holds $(cat "$TRACEFS/set_ftrace_pid")"
	[ ! -e "$TRACEFS/kprobe_events" ] || [ -z "$(cat "$TRACEFS/kprobe_events")" ] ||
		fail "kprobe_events holds $(cat "$TRACEFS/kprobe_events")"
	! kprobes_switch_usable || [ "$(cat /sys/kernel/debug/kprobes/enabled)" = 1 ] ||
		fail "kprobes are disabled"
	[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ] || fail "kernel.ftrace_enabled is 0"
	[ ! -d "$CLEAN_SLATE_MEMCG" ] || fail "$CLEAN_SLATE_MEMCG is still there"
}

# Tests run under pipefail: a pipeline whose first command fails fails.
test_pipefail_set() {
	if false | true; then
		fail "a pipeline whose first command failed succeeded: no pipefail in the test's shell"
	fi
}

# Taint bits other than O (out-of-tree), E (unsigned module) and those a
# passed test brought in on purpose.
test_kernel_not_tainted() {
	local tainted allowed
	tainted=$(cat /proc/sys/kernel/tainted)
	allowed=$((4096 | 8192 | ${VMTEST_ALLOWED_TAINT:-0}))
	[ $((tainted & ~allowed)) -eq 0 ] || fail "tainted is $tainted: bits other than O, E and $((allowed & ~(4096 | 8192)))"
}
