# shellcheck shell=dash
# Runs the guest tests named in /etc/vmtest/tests (the harness lists them,
# in order, from the test_* functions of /vmtest/tests*.sh and lib.sh), each
# in its own `sh -eu` with every tests*.sh sourced, and writes the KTAP
# verdict to fd 3, which /init connects to the verdict channel. Tests run
# with fd 3 closed and their output goes to the console only.
#
# Per test, KTAP gets a "# REASON" line (for a failure or a skip) and then
# "ok N NAME", "ok N NAME # SKIP" or "not ok N NAME": a reason never shares
# the result's line, so none can read as a directive.
#
# A test that passed and left $TAINT_ALLOWED_FILE (a livepatch test) gets
# "# taint allowed: BITS by NAME" before its result; the harness then accepts
# K in the final taint value.
set -eu
# shellcheck source=tests/vm/guest/lib.sh
. /vmtest/lib.sh

TEST_FILES="/vmtest/tests.sh $(find /vmtest -name 'tests-*.sh' | LC_ALL=C sort)"
TESTS=$(cat /etc/vmtest/tests)

TEST_TIMEOUT=300

# A hung test fails with the kernel's view of every blocked task and CPU on
# the console (sysrq w and l) instead of stalling the whole lane.
watch_test() {
	sleep "$TEST_TIMEOUT"
	echo "timed out after ${TEST_TIMEOUT}s" >"$REASON_FILE"
	echo "vmtest: $1 still running after ${TEST_TIMEOUT}s, dumping blocked tasks and CPUs"
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	kill -s KILL "-$2"
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

# Every test starts with the module loaded in the stock state and no reclaim
# running, whatever the previous test left behind.
reset_state() {
	hog_stop
	[ -e "$MODULE" ] || return 0
	# A test that failed with the test-only build loaded leaves it behind.
	if [ -e /sys/module/vmpressure_ctl/parameters/fail_errno ]; then
		echo 1 >"$KNOB"
		rmmod vmpressure_ctl
	fi
	# shellcheck disable=SC2086 # one word per parameter
	module_loaded || insmod "$MODULE" $MODULE_PARAMS
	echo 1 >"$KNOB"
}

ktap "KTAP version 1"
ktap "# kernel: $(uname -r), cgroup $(if have_memcg_v1; then echo v1; else echo v2; fi), pressure events $(if have_pressure_level; then echo yes; else echo no; fi)"
# shellcheck disable=SC2086 # one word per test name
ktap "1..$(echo $TESTS | wc -w)"
reset_state
[ ! -e "$KNOB_DIR/method" ] || ktap "# backend: $(cat "$KNOB_DIR/method")"

n=0
for t in $TESTS; do
	n=$((n + 1))
	rm -f "$REASON_FILE" "$SKIP_MARK" "$TAINT_ALLOWED_FILE"
	echo "=== $n $t (uptime $(cut -d' ' -f1 /proc/uptime)s)"
	status=0
	# shellcheck disable=SC2016 # expanded by the test's own shell
	setsid sh -eu -c '. /vmtest/lib.sh; for f in $2; do . "$f"; done; "test_$1"' test "$t" "$TEST_FILES" 3>&- &
	test_pid=$!
	watch_test "$t" "$test_pid" 3>&- &
	watchdog_pid=$!
	wait "$test_pid" || status=$?
	kill "$watchdog_pid" 2>/dev/null || true
	left=$(kill_leftovers "$test_pid")
	[ "$left" -eq 0 ] || echo "vmtest: $t left $left processes running; killed them"
	[ -e "$REASON_FILE" ] || echo "exited with status $status" >"$REASON_FILE"
	if [ "$status" -eq 0 ] && [ -e "$TAINT_ALLOWED_FILE" ]; then
		# K (livepatch) only.
		allowed=$(($(cat "$TAINT_ALLOWED_FILE") & 32768))
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
	reset_state
done
ktap "# tainted: $(cat /proc/sys/kernel/tainted)"
