# shellcheck shell=dash disable=SC2153 # KNOB_DIR and the other names come from lib.sh
# Guest tests of what makes a short-circuited call cheap and sound (issue 14
# part 2), read from the kernel rather than from the module: the flags the
# ftrace backend's ops really runs with (tracefs' enabled_functions).
# Sourced with lib.sh and the other tests*.sh by run-tests.sh, which runs
# each test_NAME in its own shell and reports it as NAME. Logs go to /tmp.

# The ftrace backend asks for full pt_regs (R in enabled_functions) only
# where the kernel lacks DYNAMIC_FTRACE_WITH_ARGS, and for no recursion
# guard: on x86-64 the ops' own trampoline then calls the callback itself,
# not ftrace_ops_assist_func. The hook still short-circuits.
test_ftrace_hook_flags() {
	local line before
	need_module
	load_backend ftrace enabled=0
	line=$(grep -E '^vmpressure[[:space:]]' "$ENABLED_FUNCTIONS") ||
		fail "method=ftrace: vmpressure is not in enabled_functions"
	echo "enabled_functions: $line"
	if kconfig_on HAVE_DYNAMIC_FTRACE_WITH_ARGS; then
		! echo "$line" | grep -qE '\([0-9]+\) R' ||
			fail "full pt_regs (R) requested although this kernel honours an IP change from ftrace_regs: $line"
	else
		echo "$line" | grep -qE '\([0-9]+\) R' ||
			fail "no full pt_regs (R) although this kernel has no DYNAMIC_FTRACE_WITH_ARGS: $line"
	fi
	case $line in
	*"->ftrace_ops_assist_func"*) fail "ftrace calls the callback through its recursion guard: $line" ;;
	*"->vmpc_ftrace_redirect"*) ;;
	*) [ "$(uname -m)" != x86_64 ] || fail "no trampoline target in enabled_functions: $line" ;;
	esac
	before=$(skipped_count)
	evidence_round
	[ "$(skipped_count)" -gt "$before" ] || fail "method=ftrace: skipped did not grow under reclaim"
	expect_work_stopped "method=ftrace with these flags"
	set_knob 1
	unload_module
}
