# shellcheck shell=dash
# Runs the guest tests named in /etc/vmtest/tests (the harness lists them,
# in order, from the test_* functions of /vmtest/tests*.sh and
# runner-checks.sh), each in its own `sh -eu` with the guest lib and its own
# file sourced (no test leans on another file's helpers), and writes the KTAP
# verdict to fd 3, which /init connects to the verdict channel. Tests run
# with fd 3 closed and their output goes to the console only.
#
# Every test starts from a clean slate (reset_state, as ftracetest's
# initialize_ftrace): a test that cannot be given one is not ok, and not run.
#
# Per test, KTAP gets a "# REASON" line (for a failure or a skip) and then
# "ok N NAME", "ok N NAME # SKIP" or "not ok N NAME": a reason never shares
# the result's line, so none can read as a directive. "# time: NAME SECONDS"
# follows each result.
#
# A test that passed and left $TAINT_ALLOWED_FILE (a livepatch test, a
# forced rmmod) gets "# taint allowed: BITS by NAME" before its result; the
# harness then accepts K or R in the final taint value.
set -eu -o pipefail
# The guest lib: lib.sh, then the lib-*.sh helpers built on it.
LIB_FILES="/vmtest/lib.sh $(find /vmtest -name 'lib-*.sh' | LC_ALL=C sort)"
for f in $LIB_FILES; do
	# shellcheck source=/dev/null
	. "$f"
done

TEST_FILES="/vmtest/tests.sh $(find /vmtest -name 'tests-*.sh' | LC_ALL=C sort) /vmtest/runner-checks.sh"

# The file that defines test_NAME.
test_file() {
	# shellcheck disable=SC2086 # one word per file
	grep -l "^test_$1()" $TEST_FILES | head -n 1
}
TESTS=$(cat /etc/vmtest/tests)

# The lane's timeout_scale= (a debug kernel runs every test slower).
TEST_TIMEOUT=$((300 * $(cat /etc/vmtest/timeout-scale)))
# How long a timed-out test's EXIT traps get to undo what it did.
TERM_GRACE=10

# A hung test fails with the kernel's view of every blocked task and CPU on
# the console (sysrq w and l) instead of stalling the whole lane. It gets
# TERM first, so that its EXIT traps run (each test's shell turns TERM into
# exit), then KILL.
watch_test() {
	sleep "$TEST_TIMEOUT"
	echo "timed out after ${TEST_TIMEOUT}s" >"$REASON_FILE"
	echo "vmtest: $1 still running after ${TEST_TIMEOUT}s, dumping blocked tasks and CPUs"
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	kill -s TERM "-$2"
	wait_until "$TERM_GRACE" process_gone "$2" ||
		echo "vmtest: $1 still running ${TERM_GRACE}s after TERM, killing it"
	kill -s KILL "-$2" 2>/dev/null || true
}

# Each test runs as the leader of its own process group, so that what it
# started in the background and left running (a failed test exits past its
# own cleanup) is killed before the next test, instead of acting on it.
# Prints how many processes were left.
kill_leftovers() {
	local left
	left=$(ps -o pgid= -o pid= | awk -v g="$1" '$1 == g && $2 != g' | wc -l)
	kill -s KILL "-$1" 2>/dev/null || true
	echo "$left"
}

ktap() {
	echo "$*" >&3
	echo "ktap: $*"
}

# The reason a test left, one "# " line each.
ktap_reason() {
	local line
	while IFS= read -r line; do
		ktap "# $line"
	done
}

# Memory cgroups there before the first test: any other is a test's.
BOOT_MEMCGS=$(memcg_children)

remove_leftover_memcgs() {
	local dir
	# Reverse order: a child before its parent.
	for dir in $(memcg_children | sort -r); do
		! echo "$BOOT_MEMCGS" | grep -qxF "$dir" || continue
		xargs kill -9 <"$dir/cgroup.procs" 2>/dev/null || true
		wait_until 10 rmdir "$dir" 2>/dev/null || fail "cannot remove $dir, which a test left"
	done
}

# Tracing as the kernel booted: the nop tracer, no event enabled, no kprobe
# event, no function filter or pid filter, an empty buffer, tracing on.
reset_tracing() {
	local file
	tracefs_write tracing_on 0
	tracefs_write current_tracer nop
	tracefs_write events/enable 0
	[ ! -e "$TRACEFS/kprobe_events" ] || tracefs_write kprobe_events ''
	for file in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_graph_function set_graph_notrace; do
		[ ! -e "$TRACEFS/$file" ] || tracefs_write "$file" ''
	done
	tracefs_write trace ''
	tracefs_write tracing_on 1
}

# Every test starts with ftrace and kprobes enabled, no reclaim running, no
# test module or memory cgroup left, the shipped module loaded (without
# resident=) in the stock state and tracing reset, whatever the previous
# test left behind. Runs in a subshell as a condition, where set -e does not
# hold: every step that can fail says so with fail().
reset_state() {
	echo 1 >/proc/sys/kernel/ftrace_enabled || fail "cannot set kernel.ftrace_enabled to 1"
	! kprobes_switch_usable || echo 1 >/sys/kernel/debug/kprobes/enabled ||
		fail "cannot enable kprobes"
	hog_stop
	unload_test_modules
	remove_leftover_memcgs
	if [ -e "$MODULE" ]; then
		# The test-only build, or the shipped one loaded resident or
		# uncounted.
		if [ -e /sys/module/vmpressure_ctl/parameters/fail_errno ] ||
			[ "$(cat /sys/module/vmpressure_ctl/parameters/resident 2>/dev/null)" = Y ] ||
			[ "$(cat /sys/module/vmpressure_ctl/parameters/count_skipped 2>/dev/null)" = N ]; then
			unload_module
		fi
		# shellcheck disable=SC2086 # one word per parameter
		module_loaded || insmod "$MODULE" $MODULE_PARAMS || fail "cannot load $MODULE $MODULE_PARAMS"
		echo 1 >"$KNOB" || fail "cannot write 1 to $KNOB"
	fi
	# After the unhook: disabling a kprobe event on vmpressure while the
	# kprobe backend holds it warns (DESIGN: kprobes aggregate probes).
	reset_tracing
}

ktap "KTAP version 1"
ktap "# kernel: $(uname -r), cgroup $(if have_memcg_v1; then echo v1; else echo v2; fi), pressure events $(if have_pressure_level; then echo yes; else echo no; fi)"
# shellcheck disable=SC2086 # one word per test name
ktap "1..$(echo $TESTS | wc -w)"
(reset_state) || echo "vmtest: the first clean slate failed: $(cat "$REASON_FILE")"
[ ! -e "$KNOB_DIR/method" ] || ktap "# backend: $(cat "$KNOB_DIR/method")"

n=0
for t in $TESTS; do
	n=$((n + 1))
	rm -f "$REASON_FILE" "$SKIP_MARK" "$TAINT_ALLOWED_FILE"
	read -r start _ </proc/uptime
	echo "=== $n $t (uptime ${start}s)"
	if ! (reset_state); then
		echo "cannot give it a clean slate: $(cat "$REASON_FILE")" | ktap_reason
		ktap "not ok $n $t"
		continue
	fi
	status=0
	# shellcheck disable=SC2016 # expanded by the test's own shell
	setsid sh -eu -o pipefail -c 'trap "exit 143" TERM; for f in $2; do . "$f"; done; "test_$1"' \
		test "$t" "$LIB_FILES $(test_file "$t")" 3>&- &
	test_pid=$!
	watch_test "$t" "$test_pid" 3>&- &
	watchdog_pid=$!
	wait "$test_pid" || status=$?
	kill "$watchdog_pid" 2>/dev/null || true
	left=$(kill_leftovers "$test_pid")
	[ "$left" -eq 0 ] || echo "vmtest: $t left $left processes running; killed them"
	[ -e "$REASON_FILE" ] || echo "exited with status $status" >"$REASON_FILE"
	if [ "$status" -eq 0 ] && [ -e "$TAINT_ALLOWED_FILE" ]; then
		# K (livepatch) and R (forced rmmod) only.
		allowed=$(($(cat "$TAINT_ALLOWED_FILE") & (32768 | 8)))
		export VMTEST_ALLOWED_TAINT=$((${VMTEST_ALLOWED_TAINT:-0} | allowed))
		ktap "# taint allowed: $allowed by $t"
	fi
	# Only skip() leaves the mark: a command that happens to exit 4 fails.
	if [ "$status" -eq 0 ]; then
		ktap "ok $n $t"
	elif [ "$status" -eq 4 ] && [ -e "$SKIP_MARK" ]; then
		ktap_reason <"$REASON_FILE"
		ktap "ok $n $t # SKIP"
	else
		ktap_reason <"$REASON_FILE"
		ktap "not ok $n $t"
	fi
	ktap "# time: $t $(awk -v a="$start" '{ printf "%.1f", $1 - a }' /proc/uptime)"
done
ktap "# tainted: $(cat /proc/sys/kernel/tainted)"
