# shellcheck shell=dash
# Helpers shared by the guest tests and the demo (sourced by busybox sh).

KNOB_DIR=/sys/kernel/vmpressure_ctl
KNOB=$KNOB_DIR/enabled
MODULE=/lib/modules/$(uname -r)/extra/vmpressure_ctl.ko
ENABLED_FUNCTIONS=/sys/kernel/tracing/enabled_functions
REASON_FILE=/tmp/vmtest-reason
# skip() leaves this mark next to its reason: exit status 4 alone is no skip.
SKIP_MARK=/tmp/vmtest-skipped
# Extra insmod parameters from the host (VMPCTL_VM_MODULE_PARAMS), e.g. method=kprobe.
MODULE_PARAMS=$(cat /etc/vmtest/module-params)
NOBODY=65534

# Runs a command as uid/gid 65534 (the initramfs has a passwd entry "nobody"),
# and fails the test if the switch did not happen, so that a broken switch
# cannot pass as "permission denied".
as_nobody() {
	[ "$(su -s /bin/sh nobody -c 'id -u')" = "$NOBODY" ] || fail "cannot run commands as uid $NOBODY"
	su -s /bin/sh nobody -c 'exec "$@"' as-nobody "$@"
}

# A test ends with `fail REASON` or `skip REASON`; returning 0 is a pass.
fail() {
	echo "$*" >"$REASON_FILE"
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "$*" >"$REASON_FILE"
	: >"$SKIP_MARK"
	exit 4
}

need_module() {
	[ -e "$MODULE" ] || skip "vmpressure_ctl.ko was not built for this kernel"
}

# A vmpctl that is there but cannot run measure is a failure, not a skip.
need_measure() {
	local status=0 out
	command -v vmpctl >/dev/null || skip "vmpctl is not in the initramfs"
	out=$(vmpctl measure --help 2>&1) || status=$?
	[ "$status" -eq 0 ] || fail "vmpctl measure --help exited $status: $(echo "$out" | tail -n 1)"
}

have_memcg_v1() {
	[ -d /sys/fs/cgroup/memory ]
}

# Pressure notifications need memory.pressure_level (cgroup-v1 memory
# hierarchy only) and a cgroup.event_control that takes registrations:
# PREEMPT_RT kernels refuse every line with EOPNOTSUPP before parsing it,
# the others reject this malformed one with EINVAL.
have_pressure_level() {
	[ -e /sys/fs/cgroup/memory/memory.pressure_level ] || return 1
	case $(echo probe | dd of=/sys/fs/cgroup/memory/cgroup.event_control conv=notrunc 2>&1) in
	*"not supported"*) return 1 ;;
	esac
}

# Runs COMMAND... every 0.1 s until it succeeds, for at most SECONDS; its
# status: 0, or 1 when the time ran out. Waits on a condition, as
# livepatch's selftests' loop_until, instead of a sleep that guesses.
wait_until() {
	local tries=$(($1 * 10))
	shift
	until "$@"; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Whole seconds since boot.
uptime_s() {
	cut -d. -f1 /proc/uptime
}

# The JSON readers, for vmpctl's objects of one line each. In FILE's (or
# stdin's) first line that has NAME, the last NAME on it (write / as \/):
# json_number: the number, nothing when it is null or missing;
json_number() {
	sed -n "/.*\"$1\":\(-\{0,1\}[0-9][-0-9.e+]*\)[],}].*/{s//\1/p;q;}" ${2:+"$2"}
}

# json_string: the string, without its quotes (one without escapes);
json_string() {
	sed -n "/.*\"$1\":\"\([^\"\\]*\)\".*/{s//\1/p;q;}" ${2:+"$2"}
}

# json_object: the object, braces and all (one without nested objects).
json_object() {
	sed -n "/.*\"$1\":\({[^{}]*}\).*/{s//\1/p;q;}" ${2:+"$2"}
}

# vmpctl check --json in FILE, one phase's object a line, to stdout.
check_phases() {
	sed 's/{"phase":/\n&/g' "$1" | sed -n '2,$p'
}

process_gone() {
	! kill -0 "$1" 2>/dev/null
}

# For wait_until: succeeds when COMMAND... fails.
not() {
	! "$@"
}

# Prints a demo's vmpctl ab --save FILE on the demo's output, each line
# behind DEMO_SAVE_MARK: the host's scripts/demo keeps those lines as the
# demo's --save file (to re-analyse and plot) and shows the rest.
DEMO_SAVE_MARK='#ab-save '
demo_print_save() {
	sed "s/^/$DEMO_SAVE_MARK/" "$1"
}

module_loaded() {
	[ -d "$KNOB_DIR" ]
}

load_module() {
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$MODULE" $MODULE_PARAMS "$@" || fail "insmod vmpressure_ctl $* failed"
	module_loaded || fail "insmod $* succeeded but $KNOB_DIR is missing"
}

unload_module() {
	# The module holds itself while hooked (enabled=0): rmmod is refused
	# there, so back to 1 first.
	[ "$(cat "$KNOB")" = 1 ] || echo 1 >"$KNOB" || fail "cannot write 1 to $KNOB before rmmod"
	rmmod vmpressure_ctl || fail "rmmod vmpressure_ctl failed"
	! module_loaded || fail "$KNOB_DIR still present after rmmod"
}

knob() {
	cat "$KNOB"
}

skipped_count() {
	cat "$KNOB_DIR/skipped"
}

set_knob() {
	echo "$1" >"$KNOB" || fail "writing $1 to $KNOB failed"
	[ "$(knob)" = "$1" ] || fail "wrote $1 to $KNOB but it reads $(knob)"
}

expect_knob() {
	[ "$(knob)" = "$1" ] || fail "$2: knob reads $(knob), expected $1"
}

# Targets the module must hook on this kernel: vmpressure_prio only where the
# kernel still has it.
expected_targets() {
	echo vmpressure
	if grep -q ' vmpressure_prio$' /proc/kallsyms; then echo vmpressure_prio; fi
}

# The lines of enabled_functions (ftrace, kprobes on ftrace) and of kprobes'
# list that name a target (TARGET, an extended regular expression, or
# either target): the one test of "is it hooked".
hook_lines() {
	local target=${1:-vmpressure|vmpressure_prio}
	grep -E "^($target)[[:space:]]" "$ENABLED_FUNCTIONS" || true
	grep -E "[[:space:]]($target)\+0x0([[:space:]]|$)" /sys/kernel/debug/kprobes/list 2>/dev/null || true
}

target_hooked() {
	[ -n "$(hook_lines "$1")" ]
}

expect_unhooked() {
	local target
	for target in vmpressure vmpressure_prio; do
		! target_hooked "$target" || fail "$1: $target is still hooked"
	done
}

expect_hooked() {
	local target
	for target in $(expected_targets); do
		target_hooked "$target" || fail "$1: $target is not hooked"
	done
}

# Root of the memory cgroup hierarchy and the name of its limit file.
memcg_root() {
	if [ -d /sys/fs/cgroup/memory ]; then
		echo /sys/fs/cgroup/memory
	else
		echo /sys/fs/cgroup
	fi
}

memcg_limit_file() {
	if [ -d /sys/fs/cgroup/memory ]; then
		echo memory.limit_in_bytes
	else
		echo memory.max
	fi
}

# The memory cgroups below the root, every level, sorted by path.
memcg_children() {
	find "$(memcg_root)" -mindepth 1 -type d | sort
}

# cgroup files report size 0, so read them rather than test -s.
memcg_has_processes() {
	[ -n "$(cat "$1/cgroup.procs")" ]
}

# Reclaim without vmpctl: HOG_FILE_MIB of zeroes written to a tmpfs file from
# inside a memcg limited to HOG_LIMIT_MIB, so its shmem pages are swapped to
# zram. One short dd per MiB: every ftrace unregistration waits for an
# RCU-tasks grace period, which a task that stays in the kernel holds off
# (one 64 MiB read of /dev/zero made each toggle take seconds on 6.12).
HOG_CGROUP=$(memcg_root)/vmtest-hog
HOG_FILE=/tmp/vmtest-hog
HOG_LIMIT_MIB=24
HOG_FILE_MIB=64

hog_cgroup_create() {
	[ -d "$HOG_CGROUP" ] || mkdir "$HOG_CGROUP"
	echo $((HOG_LIMIT_MIB * 1024 * 1024)) >"$HOG_CGROUP/$(memcg_limit_file)"
}

# Reclaim passes in HOG_CGROUP: one with "once", until killed with "loop".
hog_passes() {
	hog_cgroup_create
	sh -c 'echo $$ >"$1/cgroup.procs" || exit
		while :; do
			: >"$2"
			i=0
			while [ "$i" -lt "$3" ]; do
				dd if=/dev/zero of="$2" bs=1M count=1 seek="$i" conv=notrunc 2>/dev/null || exit
				i=$((i + 1))
			done
			[ "$4" = loop ] || exit 0
		done' hog "$HOG_CGROUP" "$HOG_FILE" "$HOG_FILE_MIB" "$1"
}

# One pass of reclaim in the foreground.
hog_once() {
	hog_passes once || fail "reclaim pass in $HOG_CGROUP failed"
}

# Reclaim in the background until hog_stop.
hog_start() {
	hog_passes loop &
}

# Kills what runs in HOG_CGROUP; whether it is empty.
hog_killed() {
	xargs kill -9 <"$HOG_CGROUP/cgroup.procs" 2>/dev/null || true
	! memcg_has_processes "$HOG_CGROUP"
}

hog_stop() {
	[ -d "$HOG_CGROUP" ] || return 0
	wait_until 10 hog_killed || fail "reclaim processes in $HOG_CGROUP do not die"
	wait 2>/dev/null || true
	rm -f "$HOG_FILE"
	rmdir "$HOG_CGROUP"
}

# A test that taints the kernel on purpose writes the bits here; run-tests.sh
# accepts K (a livepatch) or R (a forced rmmod) from it
# (VMTEST_ALLOWED_TAINT) only if it passed.
# shellcheck disable=SC2034 # used by run-tests.sh and tests-module.sh
TAINT_ALLOWED_FILE=/tmp/vmtest-taint-allowed

TRACEFS=/sys/kernel/tracing

# Writes VALUE and a newline to the tracefs FILE, with O_TRUNC (so '' clears
# a filter, the buffer or the kprobe events); a refused write fails the test.
tracefs_write() {
	echo "$2" >"$TRACEFS/$1" || fail "writing '$2' to $TRACEFS/$1 failed"
}

# Whether the kernel's function tracer can see vmpressure_work_fn, the work
# item vmpressure() schedules on cgroup v1 and v2 alike (gone with MEMCG_V1=n
# from 7.3 on).
have_work_fn() {
	grep -q '^vmpressure_work_fn\( \|$\)' "$TRACEFS/available_filter_functions"
}

# Runs COMMAND... in this shell with the kernel's function tracer on FILTER
# (set_ftrace_filter's syntax), for process PID only unless PID is empty;
# then TRACE_CALLS holds how many calls of functions matching PATTERN (a
# basic regular expression) the tracer saw, listed on stderr. A refused
# tracefs write fails the test, so a tracer that never ran cannot count 0;
# the tracer is back to nop and unfiltered afterwards. COMMAND's status.
# The one tracer session of the guest tests: call it outside $(...), or
# under set -e, so that a fail() in it ends the test.
trace_calls() {
	local filter=$1 pattern=$2 pid=$3 status=0
	shift 3
	tracefs_write tracing_on 0
	tracefs_write set_ftrace_filter "$filter"
	[ -z "$pid" ] || tracefs_write set_ftrace_pid "$pid"
	tracefs_write current_tracer function
	tracefs_write trace ''
	tracefs_write tracing_on 1
	"$@" || status=$?
	tracefs_write tracing_on 0
	grep ": $pattern <-" "$TRACEFS/trace" >&2 || true
	TRACE_CALLS=$(grep -c ": $pattern <-" "$TRACEFS/trace") || true
	tracefs_write current_tracer nop
	[ -z "$pid" ] || tracefs_write set_ftrace_pid ''
	tracefs_write set_ftrace_filter ''
	tracefs_write trace ''
	tracefs_write tracing_on 1
	return "$status"
}

# Whether every vmpressure work item queued since the trace began has run
# (the workqueue_queue_work event counts the queueing, the function tracer
# the runs; a pending item queued again is not queued twice).
work_fn_queued() {
	grep -c 'workqueue_queue_work: .* function=vmpressure_work_fn ' "$TRACEFS/trace" || true
}

work_fn_ran() {
	grep -c ': vmpressure_work_fn <-' "$TRACEFS/trace" || true
}

work_fn_drained() {
	[ "$(work_fn_ran)" -ge "$(work_fn_queued)" ]
}

# COMMAND..., then the wait until the work it queued has run on a kworker.
# A work item pending before the trace runs once: two runs with no queueing
# seen means the event is not what work_fn_drained reads, and the wait
# would wait for nothing.
then_drain_work() {
	local status=0 queued ran
	"$@" || status=$?
	wait_until 30 work_fn_drained || fail "vmpressure work queued under reclaim had not run 30 s later"
	queued=$(work_fn_queued)
	ran=$(work_fn_ran)
	[ "$ran" -le 1 ] || [ "$queued" -gt 0 ] ||
		fail "vmpressure_work_fn ran $ran times, yet no workqueue_queue_work event named it: the wait for queued work sees none"
	return "$status"
}

# Runs COMMAND... in this shell and sets TRACE_CALLS to how often
# vmpressure_work_fn ran meanwhile and until the work items queued
# meanwhile ran, counted by the kernel's own function tracer: evidence
# that does not take vmpressure_ctl's word for it, and a 0 that is not
# merely early. The tracer's ftrace_ops sits on vmpressure_work_fn, never
# on a hooked function. COMMAND's status; call it outside $(...).
trace_work_fn() {
	local status=0
	tracefs_write events/workqueue/workqueue_queue_work/enable 1
	trace_calls vmpressure_work_fn vmpressure_work_fn '' then_drain_work "$@" || status=$?
	tracefs_write events/workqueue/workqueue_queue_work/enable 0
	return "$status"
}

# trace_work_fn with COMMAND's output on stderr and the count on stdout.
work_fn_runs() {
	local status=0
	trace_work_fn "$@" >&2 || status=$?
	echo "$TRACE_CALLS"
	return "$status"
}

# Whether debugfs' kprobes switch can be read: under lockdown (the Secure
# Boot lane) debugfs refuses it, and no test can disarm kprobes there.
kprobes_switch_usable() {
	cat /sys/kernel/debug/kprobes/enabled >/dev/null 2>&1
}

CGV2_PROBE=/sys/fs/cgroup/vmtest-cgv2-probe

# Whether this kernel's memory.events counts sock_throttled, asked of a
# cgroup of our own (the root has no memory.events).
kernel_has_sock_throttled() {
	local found=1
	mkdir "$CGV2_PROBE" || fail "cannot create $CGV2_PROBE"
	grep -q '^sock_throttled ' "$CGV2_PROBE/memory.events" && found=0
	rmdir "$CGV2_PROBE"
	return "$found"
}
