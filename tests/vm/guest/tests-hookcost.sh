# shellcheck shell=dash disable=SC2153 # KNOB_DIR and the other names come from lib.sh
# Guest tests of what makes a short-circuited call cheap and sound (issue 14
# part 2), read from the kernel rather than from the module: the flags the
# ftrace backend's ops really runs with (tracefs' enabled_functions), and
# stack traces the kernel's unwinder takes from inside the direct backend's
# trampoline and the stub (a kprobe of tests/vm/kmods/unwind), every
# backend of the lane; and the uncounted short-circuit of count_skipped=0
# (issue 24), judged by the kernel's evidence.
# Sourced with the guest lib by run-tests.sh, which runs each test_NAME in
# its own shell and reports it as NAME. Logs go to /tmp.

# The ftrace backend asks for full pt_regs (R in enabled_functions) only
# where the kernel lacks DYNAMIC_FTRACE_WITH_ARGS, and for no recursion
# guard: on x86-64 the ops' own trampoline then calls the callback itself,
# not ftrace_ops_assist_func. The hook still short-circuits.
# group: hooks
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

UNWIND_MODULE=/lib/modules/$(uname -r)/extra/vmpc_test_unwind.ko

# The stack trace the kernel takes from a kprobe on SYMBOL (the test module
# of tests/vm/kmods/unwind) at its first hit during one reclaim pass, one
# frame a line, in /tmp/unwind-SYMBOL.
unwind_from() {
	local symbol=$1
	[ -e "$UNWIND_MODULE" ] || fail "the test module $UNWIND_MODULE is missing"
	dmesg -c >/dev/null
	insmod "$UNWIND_MODULE" symbol="$symbol" || fail "cannot put a kprobe on $symbol"
	evidence_round
	rmmod vmpc_test_unwind
	dmesg | sed 's/^\[[ 0-9.]*\] *//' | awk '
		/vmpc_test_unwind: stack at/ { on = !done; next }
		/vmpc_test_unwind: end of stack/ { done = done || on; on = 0; next }
		on && /^[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ { print }' >"/tmp/unwind-$symbol"
}

# That trace must pass the probe, reach reclaim and end at the task's entry
# into the kernel: an unwind that stops early or loses its way (a wrong ORC
# entry, a wrong return address) does not.
expect_full_unwind() {
	local trace
	trace=$(cat "/tmp/unwind-$1")
	[ -n "$trace" ] || fail "$2: no stack trace from a kprobe on $1 during reclaim"
	echo "$2: stack trace from $1:"
	echo "$trace"
	echo "$trace" | grep -q "^$1+0x" || fail "$2: the trace does not pass $1"
	echo "$trace" | sed -n "/^$1+0x/,\$p" |
		grep -qE '^(shrink_node|shrink_lruvec|do_try_to_free_pages|try_to_free_mem_cgroup_pages|balance_pgdat)\+' ||
		fail "$2: the unwind from $1 does not reach reclaim"
	echo "$trace" | grep -qE '^(entry_SYSCALL_64[a-z_]*|asm_exc_page_fault|ret_from_fork[a-z_]*|el0t_64_sync|el0_svc)\+' ||
		fail "$2: the unwind from $1 stops short of the task's entry"
}

# Whether this kernel's build of the direct backend runs in jump mode
# (module/direct_mode.h): the fentry site JMPs to vmpc_stub (resident mode:
# vmpc_direct_jmp_stub) where x86-64 has DYNAMIC_FTRACE_WITH_JMP and no
# vmpressure_prio (MEMCG_V1=n).
direct_jump_mode() {
	[ "$(uname -m)" = x86_64 ] && kconfig_on DYNAMIC_FTRACE_WITH_JMP && ! kconfig_on MEMCG_V1
}

# The frame under the probe on SYMBOL in its trace is not vmpressure's:
# the target was entered by a JMP, as vmpressure() itself would have been,
# where a CALL from the fentry site would leave vmpressure+0x9 there.
expect_no_target_frame() {
	local below
	below=$(sed -n "/^$1+0x/{n;p;q}" "/tmp/unwind-$1")
	echo "$2: the frame under $1: $below"
	case $below in
	vmpressure+* | vmpressure_prio+* | "") fail "$2: $1 was not entered in vmpressure's place: the frame under it is '$below'" ;;
	esac
}

# vmpressure's ftrace site leads straight to TARGET by ARROW, the kernel's
# "direct" (a CALL or BL) or, in jump mode, "direct(jmp)": enabled_functions
# says so on the indented line under vmpressure's.
expect_direct_target() {
	local arrow=$1 target=$2 line
	line=$(awk '/^vmpressure[[:space:]]/ { on = 1; printf "%s", $0; next }
		on && /^[[:space:]]/ { printf " %s", $0; next } { on = 0 }' "$ENABLED_FUNCTIONS")
	[ -n "$line" ] || fail "$3: vmpressure is not in enabled_functions"
	echo "$3: enabled_functions: $line"
	case $line in
	*"$arrow-->$target+0x0/"*) ;;
	*) fail "$3: vmpressure's site does not lead by $arrow straight to $target: $line" ;;
	esac
}

# ORC (x86-64) or frame records (arm64) lead from inside the stub, and from
# the direct trampoline's label (which it reaches by a RET) or the jump
# stub, back through reclaim to the task's entry, with every backend of
# the lane. In jump mode the site JMPs to the stub itself (resident mode:
# to the jump stub), which stands in vmpressure's frame.
# group: hooks
test_hook_stack_unwinds() {
	local backend
	need_module
	trap '[ ! -d /sys/module/vmpc_test_unwind ] || rmmod vmpc_test_unwind' EXIT
	for backend in $(lane_backends); do
		load_backend "$backend" enabled=0
		unwind_from vmpc_stub
		expect_full_unwind vmpc_stub "method=$backend"
		if [ "$backend" = direct ] && direct_jump_mode; then
			expect_direct_target "direct(jmp)" vmpc_stub "method=direct, jump mode"
			expect_no_target_frame vmpc_stub "method=direct, jump mode"
			set_knob 1
			unload_module
			load_backend direct resident=1 enabled=0
			expect_direct_target "direct(jmp)" vmpc_direct_jmp_stub "method=direct resident=1, jump mode"
			unwind_from vmpc_direct_jmp_stub
			expect_full_unwind vmpc_direct_jmp_stub "method=direct resident=1, jump mode"
			expect_no_target_frame vmpc_direct_jmp_stub "method=direct resident=1, jump mode"
		elif [ "$backend" = direct ]; then
			unwind_from vmpc_direct_tramp_to_stub
			expect_full_unwind vmpc_direct_tramp_to_stub "method=direct"
		fi
		set_knob 1
		unload_module
	done
}

# The direct backend's entry under count_skipped=0 (module/hook_direct.c)
# in the default mode (resident 0) or resident mode (1): the kernel's arrow
# to it and its name.
uncounted_direct_entry() {
	if direct_jump_mode; then
		if [ "$1" = 1 ]; then
			echo "direct(jmp) vmpc_direct_jmp_stub_uncounted"
		else
			echo "direct(jmp) vmpc_stub_uncounted"
		fi
	elif [ "$(uname -m)" = aarch64 ] && [ "$1" = 0 ]; then
		echo "direct vmpc_direct_tramp_skip_uncounted"
	else
		echo "direct vmpc_direct_tramp_uncounted"
	fi
}

# count_skipped=0 (issue 24: the short-circuit at the floor), every backend
# of the lane, the direct one also resident: no skipped attribute, the
# direct site leads to the uncounted entry, and vmpctl check proves by the
# kernel's evidence alone (pressure events on v1, sock_throttled where
# memory.events counts it, else vmpressure's work by the function tracer)
# that the knob at 0 short-circuits and at 1 restores stock.
# group: hooks
test_uncounted_short_circuit() {
	local backend resident label status entry
	need_module
	for backend in $(lane_backends); do
		for resident in 0 1; do
			[ "$backend" = direct ] || [ "$resident" = 0 ] || continue
			label="method=$backend resident=$resident count_skipped=0"
			load_backend "$backend" resident="$resident" count_skipped=0 enabled=0
			[ "$(cat /sys/module/vmpressure_ctl/parameters/count_skipped)" = N ] ||
				fail "$label: the count_skipped parameter reads $(cat /sys/module/vmpressure_ctl/parameters/count_skipped)"
			[ ! -e "$KNOB_DIR/skipped" ] ||
				fail "$label: $KNOB_DIR/skipped exists and reads $(cat "$KNOB_DIR/skipped")"
			if [ "$backend" = direct ]; then
				entry=$(uncounted_direct_entry "$resident")
				expect_direct_target "${entry% *}" "${entry#* }" "$label"
			fi
			set_knob 1
			status=0
			# Half check's default size: the verdict needs reclaim in each
			# phase, not its amount.
			vmpctl check --limit 16M --json >/tmp/uncounted-check.json || status=$?
			cat /tmp/uncounted-check.json
			[ "$status" -eq 0 ] || fail "$label: vmpctl check exited $status"
			grep -q '"pass":true' /tmp/uncounted-check.json ||
				fail "$label: the JSON does not say pass true"
			grep -q 'skipped not counted' /tmp/uncounted-check.json ||
				fail "$label: vmpctl check did not judge without skipped"
			expect_knob 1 "$label after vmpctl check"
			unload_module
		done
	done
}
