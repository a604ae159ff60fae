# shellcheck shell=dash
# Runs every guest test in its own shell (so `set -e` holds inside it) and
# writes the KTAP verdict to fd 3, which /init connects to the second serial
# port; test output goes to the console only.
set -eu
# shellcheck source=tests/vm/guest/lib.sh
. /vmtest/lib.sh

# Every test_NAME function of tests.sh, then of the other tests-*.sh files in
# name order, reported as NAME; lib.sh's taint check always runs last.
TEST_FILES="/vmtest/tests.sh $(find /vmtest -name 'tests-*.sh' | sort)"
# shellcheck disable=SC2086 # one word per file
TESTS="$(sed -n 's/^test_\([a-z0-9_]*\)() {$/\1/p' $TEST_FILES) kernel_not_tainted"

TEST_TIMEOUT=300

# A hung test fails with the kernel's view of every blocked task and CPU on
# the console (sysrq w and l) instead of stalling the whole lane.
watch_test() {
	sleep "$TEST_TIMEOUT"
	echo "timed out after ${TEST_TIMEOUT}s" >"$REASON_FILE"
	echo "vmtest: $1 still running after ${TEST_TIMEOUT}s, dumping blocked tasks and CPUs"
	echo w >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	kill -9 "$2"
}

ktap() {
	echo "$*" >&3
	echo "ktap: $*"
}

# Every test starts with the module loaded in the stock state and no reclaim
# running, whatever the previous test left behind.
reset_state() {
	hog_stop
	[ -e "$MODULE" ] || return 0
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
	rm -f "$REASON_FILE"
	echo "=== $n $t (uptime $(cut -d' ' -f1 /proc/uptime)s)"
	status=0
	# shellcheck disable=SC2016 # expanded by the test's own shell
	sh -eu -c '. /vmtest/lib.sh; for f in $2; do . "$f"; done; "test_$1"' test "$t" "$TEST_FILES" &
	test_pid=$!
	watch_test "$t" "$test_pid" &
	watchdog_pid=$!
	wait "$test_pid" || status=$?
	kill "$watchdog_pid" 2>/dev/null || true
	reason=$(cat "$REASON_FILE" 2>/dev/null || echo "exited with status $status")
	case $status in
	0) ktap "ok $n $t" ;;
	4) ktap "ok $n $t # SKIP $reason" ;;
	*) ktap "not ok $n $t # $reason" ;;
	esac
	reset_state
done
ktap "# tainted: $(cat /proc/sys/kernel/tainted)"
