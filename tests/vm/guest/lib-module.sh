# shellcheck shell=dash disable=SC2153 # KNOB and the other names come from lib.sh
# Helpers of the guest tests that load the module's builds, read its hooks'
# state and the kernel's evidence, and bring in the test-only modules that
# own vmpressure() too (tests/vm/kmods): the builds, the backends the lane
# declares, the kernel log, knob writes that must fail, armed, reclaim
# rounds with the work item counted, the holders and the livepatch, and
# the cleanup after a conflict. Sourced after lib.sh, before the tests.

EXTRA_DIR=/lib/modules/$(uname -r)/extra
TESTING_MODULE=$EXTRA_DIR/testing/vmpressure_ctl.ko
ARMED=$KNOB_DIR/armed
LIVEPATCH_DIR=/sys/kernel/livepatch/vmpc_test_livepatch

# The backends the lane declares (its backends= line).
lane_backends() {
	cat /etc/vmtest/backends
}

kconfig_on() {
	grep -q "^CONFIG_$1=y" /etc/vmtest/kconfig
}

# Prints FULL, or DEBUG on a kernel with KASAN (the debug lane). There each
# round costs five to eight times as much, and a sanitizer reports a bad
# access the first time a path runs: the debug lane runs each path a few
# times, the lanes of Debian's kernels run the full counts.
full_or_debug() {
	if kconfig_on KASAN; then
		echo "$2"
	else
		echo "$1"
	fi
}

# dmesg lines logged since the last clear_log.
clear_log() {
	dmesg -c >/dev/null
}

new_log() {
	dmesg
}

# Whether the log has a line matching the extended regular expression
# (grep reads it all: under pipefail a dmesg cut off by grep -q would fail).
log_has() {
	dmesg | grep -E "$1" >/dev/null
}

# insmod of the shipped module (or the test-only build with --testing) that
# must fail: prints insmod's error message.
insmod_must_fail() {
	local module=$MODULE out
	if [ "$1" = --testing ]; then
		module=$TESTING_MODULE
		shift
	fi
	if out=$(insmod "$module" "$@" 2>&1); then
		fail "insmod $* succeeded, expected it to fail"
	fi
	! module_loaded || fail "insmod $* failed, but $KNOB_DIR exists"
	echo "$out"
}

load_testing() {
	unload_stock_or_testing
	[ -e "$TESTING_MODULE" ] || fail "the test-only build $TESTING_MODULE is missing"
	insmod "$TESTING_MODULE" "$@" || fail "insmod testing/vmpressure_ctl.ko $* failed"
	module_loaded || fail "insmod testing/vmpressure_ctl.ko $* left no $KNOB_DIR"
}

# Unloads vmpressure_ctl, whichever build, from either state.
unload_stock_or_testing() {
	module_loaded || return 0
	unload_module
}

# Loads the shipped module with method=BACKEND and more parameters.
load_backend() {
	local backend=$1
	shift
	unload_stock_or_testing
	load_module method="$backend" "$@"
	[ "$(cat "$KNOB_DIR/method")" = "$backend" ] ||
		fail "loaded with method=$backend, method reads $(cat "$KNOB_DIR/method")"
}

# Writes VALUE (a printf format, so '\n' is a newline) to the knob: status
# and error text of the write.
knob_write() {
	# shellcheck disable=SC2059 # the value is the format: its escapes count
	printf "$1" >/tmp/knob-value
	{ dd if=/tmp/knob-value of="$KNOB" bs=4096 count=1 conv=notrunc >/dev/null; } 2>&1
}

# A write that must fail with ERRTEXT (strerror) and change nothing.
expect_write_fails() {
	local value=$1 errtext=$2 label=$3 before out
	before=$(knob)
	if out=$(knob_write "$value"); then
		fail "$label: writing '$value' succeeded"
	fi
	case $out in
	*"$errtext"*) ;;
	*) fail "$label: writing '$value': expected '$errtext', got: $out" ;;
	esac
	expect_knob "$before" "$label: after the refused write of '$value'"
}

expect_armed() {
	[ "$(cat "$ARMED")" = "$1" ] || fail "$2: armed reads $(cat "$ARMED"), expected $1"
}

expect_no_hook_lines() {
	[ -z "$(hook_lines)" ] || fail "$1: a target is still hooked: $(hook_lines | tr '\n' ' ')"
}

# One reclaim pass of 24 MiB through a 16 MiB limit: 8 MiB reclaimed is at
# least four of vmpressure()'s 512-page windows scanned, so its work runs
# (the positive controls) and a short-circuit has calls to skip, in 24 short
# dd runs instead of the usual pass's 64. The last pass's file goes first:
# its charge would otherwise sit above the lower limit.
evidence_round() {
	# shellcheck disable=SC2034 # hog_passes reads them (dynamic scope)
	local HOG_LIMIT_MIB=16 HOG_FILE_MIB=24
	rm -f "$HOG_FILE"
	hog_once
}

# A small reclaim pass: 6 MiB past a 10 MiB limit, enough for vmpressure()
# to be called, in 16 short dd runs. The last pass's file goes first: its
# charge would otherwise sit above the lower limit.
vmpressure_called() {
	# shellcheck disable=SC2034 # hog_passes reads them (dynamic scope)
	local HOG_LIMIT_MIB=10 HOG_FILE_MIB=16
	rm -f "$HOG_FILE"
	hog_once
}

# Whether the evidence rounds count vmpressure's work with the function
# tracer: not on kernels without vmpressure_work_fn (MEMCG_V1=n), and not on
# the debug lane. There a round is for the sanitizers, which see the hooks
# (or, after an unload, what they left) run under reclaim; the count of the
# kernel's own work, which takes a larger pass for the work item to be
# queued and the tracer's session, 6.1 proves on the same source and hook
# interfaces.
evidence_traced() {
	have_work_fn && [ "$(full_or_debug traced untraced)" = traced ]
}

# vmpressure()'s own work while one reclaim pass runs, counted by the
# function tracer: stopped (0 runs) or running (more than 0). Untraced
# (evidence_traced), skipped has to grow at 0 in a small pass (calls to
# skip are all it needs), and at 1 the small pass only runs.
expect_work_stopped() {
	local runs before
	if evidence_traced; then
		# The positive control of the same round: reclaim reached vmpressure().
		before=$(skipped_count)
		runs=$(work_fn_runs evidence_round)
		echo "$1: vmpressure_work_fn ran $runs times, skipped $before -> $(skipped_count)"
		[ "$runs" -eq 0 ] || fail "$1: vmpressure_work_fn ran $runs times during reclaim"
		[ "$(skipped_count)" -gt "$before" ] || fail "$1: skipped did not grow in the round: no reclaim reached vmpressure()"
	else
		before=$(skipped_count)
		vmpressure_called
		echo "$1: untraced, skipped $before -> $(skipped_count)"
		[ "$(skipped_count)" -gt "$before" ] || fail "$1: skipped did not grow under reclaim"
	fi
}

expect_work_runs() {
	local runs
	have_work_fn || return 0
	evidence_traced || { vmpressure_called; return; }
	runs=$(work_fn_runs evidence_round)
	echo "$1: vmpressure_work_fn ran $runs times"
	[ "$runs" -gt 0 ] || fail "$1: vmpressure_work_fn never ran during reclaim"
}

holder_module() {
	echo "$EXTRA_DIR/vmpc_test_$1.ko"
}

need_holder() {
	[ -e "$(holder_module "$1")" ] || skip "$2"
}

holder_calls() {
	cat "/sys/module/vmpc_test_$1/parameters/calls"
}

livepatch_in_transition() {
	[ -e "$LIVEPATCH_DIR/transition" ] && [ "$(cat "$LIVEPATCH_DIR/transition")" = 1 ]
}

# Waits until the livepatch's transition is over (patched or unpatched).
livepatch_settled() {
	wait_until 60 not livepatch_in_transition ||
		fail "the livepatch transition did not finish in 60 s: $(grep -l 1 /proc/*/patch_state 2>/dev/null | tr '\n' ' ')"
}

# Loads HOLDER; insmod's status.
holder_load() {
	insmod "$(holder_module "$1")" || return
	[ "$1" != livepatch ] || livepatch_settled
}

# The patch is freed, and its module released, after its transition.
livepatch_removed() {
	[ ! -d "$LIVEPATCH_DIR" ] && rmmod vmpc_test_livepatch 2>/dev/null
}

holder_unload() {
	if [ "$1" = livepatch ]; then
		[ "$(cat "$LIVEPATCH_DIR/enabled")" = 0 ] || echo 0 >"$LIVEPATCH_DIR/enabled" ||
			fail "cannot disable the livepatch"
		livepatch_settled
		wait_until 60 livepatch_removed || fail "cannot remove the disabled livepatch"
	else
		rmmod "vmpc_test_$1" || fail "rmmod vmpc_test_$1 failed"
	fi
}

# Every test-only module out, the livepatch disabled first.
unload_test_modules() {
	local name names
	[ ! -d "$LIVEPATCH_DIR" ] || holder_unload livepatch
	names=$(awk '$1 ~ /^vmpc_test_/ { print $1 }' /proc/modules)
	for name in $names; do
		wait_until 10 rmmod "$name" 2>/dev/null || fail "cannot unload $name, which a test left loaded"
	done
}

# busy when BACKEND cannot hook vmpressure() next to HOLDER, else shares.
expected_outcome() {
	case $2 in
	direct) if [ "$1" = direct ]; then echo busy; else echo shares; fi ;;
	*)
		# A breakpoint kprobe (no KPROBES_ON_FTRACE) is not an ftrace user.
		if [ "$1" = kprobe ] && ! kconfig_on KPROBES_ON_FTRACE; then
			echo shares
		else
			echo busy
		fi
		;;
	esac
}

# What the refusal message says about HOLDER's kind of owner.
owner_phrase() {
	case $1 in
	direct) echo "already has an ftrace direct call: a BPF trampoline" ;;
	*) echo "IPMODIFY ftrace user holds a target" ;;
	esac
}

# After a failure half-way: every holder out, so that later tests start from
# the kernel as it was (vmpressure_ctl itself comes back in reset_state).
conflict_cleanup() {
	unload_test_modules
	unload_stock_or_testing
}

# TAINT_LIVEPATCH, which the livepatch conflict test brings in.
# shellcheck disable=SC2034 # read by the test files
TAINT_K=32768
