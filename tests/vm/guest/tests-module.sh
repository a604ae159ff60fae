# shellcheck shell=dash disable=SC2153 # KNOB and the other names come from lib.sh
# Guest tests of the module's promise: what enabled says is what the kernel
# does, and the module never leaves the kernel worse than it found it. Knob
# grammar, method errors, every backend the lane declares, evidence from the
# kernel's function tracer, the test-only build's knobs, safe unload,
# kernel.ftrace_enabled=0, and conflicts with other owners of vmpressure()
# (the test-only modules of tests/vm/kmods/conflict). Run by run-tests.sh,
# each function in its own `sh -eu`, starting with the shipped module loaded
# at enabled=1.

# One boolean word per line: the value it means, then the word.
knob_words() {
	for word in 1 y Y yes YES Yes yEs on ON On true TRUE True tRuE; do
		echo "1 $word"
	done
	for word in 0 n N no NO No off OFF Off oFF false FALSE False fAlSe; do
		echo "0 $word"
	done
}

# What kstrtobool() took, or nearly did: the grammar takes none of them.
knob_rejects() {
	# shellcheck disable=SC1003 # printf escapes, not shell ones
	printf '%s\n' '0x1' '1abc' 'nah' 'yesterday' 'of' 'o' 'offf' 'tru' \
		'2' '-1' '+1' '01' '00' '10' '1 0' ' 1' '1 ' '\t0' '0\t' \
		'1\n\n' '\n1' '1\r\n' '1\r' 'yes!' 'enable' '\n' '1\0' '0\0\n' \
		'y\ny' 'on\n\n'
}

# group: knob
test_knob_grammar() {
	local state value word before
	need_module
	set_knob 1
	knob_words | while read -r value word; do
		for suffix in '' '\n'; do
			knob_write "$word$suffix" >/dev/null || fail "writing '$word$suffix' was refused"
			expect_knob "$value" "after writing '$word$suffix'"
		done
	done
	for state in 1 0; do
		set_knob "$state"
		knob_rejects | while IFS= read -r value; do
			expect_write_fails "$value" "Invalid argument" "state $state"
		done
		if [ "$state" = 0 ]; then
			expect_armed 1 "after refused writes at 0"
		else
			expect_no_hook_lines "after refused writes at 1"
		fi
	done
	# The current value again: success, and nothing re-registered.
	set_knob 0
	before=$(hook_lines)
	for word in 0 n off false; do
		knob_write "$word" >/dev/null || fail "writing '$word' at 0 was refused"
	done
	[ "$(hook_lines)" = "$before" ] || fail "writing 0 at 0 changed the hooks"
	set_knob 1
	for word in 1 y on true; do
		knob_write "$word" >/dev/null || fail "writing '$word' at 1 was refused"
	done
	expect_no_hook_lines "after writing 1 at 1"
}

# group: core
test_armed_follows_knob() {
	need_module
	[ "$(stat -c %a "$ARMED")" = 444 ] || fail "$ARMED has mode $(stat -c %a "$ARMED")"
	expect_armed 0 "stock"
	set_knob 0
	expect_armed 1 "enabled=0"
	set_knob 1
	expect_armed 0 "enabled=1 again"
}

# The parameters a module file declares (its .modinfo parmtype= entries,
# what modinfo -p lists; busybox modinfo wants a modules.dep).
declared_params() {
	strings "$1" | sed -n 's/^parmtype=\([^:]*\):.*/\1/p' | sort | tr '\n' ' '
}

# The shipped build has none of the test-only knobs; the test-only build
# has them, so the first check cannot pass by looking in the wrong place.
# group: module
test_shipped_build_has_no_test_knobs() {
	local param shipped testing
	need_module
	shipped=$(declared_params "$MODULE")
	testing=$(declared_params "$TESTING_MODULE")
	echo "shipped: $shipped; test-only: $testing"
	[ "$shipped" = "count_skipped enabled method resident " ] || fail "the shipped build has parameters: $shipped"
	for param in fail_resolve fail_attach fail_attach_late fail_detach fail_errno count_only lose_kprobe; do
		case " $testing" in
		*" $param "*) ;;
		*) fail "the test-only build lacks $param (has: $testing)" ;;
		esac
	done
	[ "$(cd /sys/module/vmpressure_ctl/parameters && echo *)" = "count_skipped method resident" ] ||
		fail "the loaded shipped module shows parameters $(cd /sys/module/vmpressure_ctl/parameters && echo *)"
}

# "No such method" (EOPNOTSUPP) is not "the kernel refused" (its errno).
# group: module
test_method_errors() {
	local out backend
	need_module
	unload_module
	clear_log
	out=$(insmod_must_fail method=bogus)
	case $out in
	*"Operation not supported"*) ;;
	*) fail "method=bogus: expected EOPNOTSUPP, insmod said: $out" ;;
	esac
	log_has 'method=bogus: no such method; this build has: auto ' ||
		fail "method=bogus: no clear message: $(new_log)"
	for backend in direct ftrace kprobe; do
		case " $(lane_backends) " in
		*" $backend "*) continue ;;
		esac
		clear_log
		out=$(insmod_must_fail method="$backend")
		case $out in
		*"Operation not supported"*) ;;
		*) fail "method=$backend (not on this lane): expected EOPNOTSUPP, got: $out" ;;
		esac
		log_has "method=$backend: not built for this kernel" ||
			fail "method=$backend: no clear message: $(new_log)"
	done
	# A refusal the kernel gives (injected: EINVAL, which the kernel's own
	# register_kprobe() returns for an unprobeable address) keeps its errno.
	for backend in $(lane_backends); do
		clear_log
		out=$(insmod_must_fail --testing method="$backend" fail_resolve="$backend:vmpressure" fail_errno=22)
		case $out in
		*"Invalid argument"*) ;;
		*) fail "method=$backend refused: expected EINVAL, insmod said: $out" ;;
		esac
		log_has "$backend: the kernel refused to resolve vmpressure: -22" ||
			fail "method=$backend refused: no clear message: $(new_log)"
		! log_has "no such method" || fail "method=$backend refused reads as no such method"
		# An attach that fails at load: no sysfs directory, nothing hooked.
		out=$(insmod_must_fail --testing method="$backend" enabled=0 fail_attach="$backend" fail_errno=5)
		case $out in
		*"Input/output error"*) ;;
		*) fail "method=$backend attach failure at load: expected EIO, got: $out" ;;
		esac
		expect_no_hook_lines "after a failed attach at load ($backend)"
	done
}

# method=auto moves on in one case only: direct refused by another direct
# call (injected: EBUSY before the kernel is asked) goes to ftrace, which
# shares a function with one, at load with enabled=0 and at a later write
# of 0. ftrace refused stays refused: auto never tries kprobe. An explicit
# method never moves.
# group: module
test_auto_falls_back_when_busy() {
	local backend
	need_module
	case " $(lane_backends) " in
	*" direct "*)
		load_testing enabled=0 fail_attach=direct fail_errno=16
		[ "$(cat "$KNOB_DIR/method")" = ftrace ] ||
			fail "auto with direct busy at load uses $(cat "$KNOB_DIR/method"), expected ftrace"
		expect_knob 0 "auto fell back at load"
		expect_armed 1 "auto fell back at load"
		expect_work_stopped "auto fell back at load"
		set_knob 1
		unload_module
		load_testing fail_attach=direct fail_errno=16
		[ "$(cat "$KNOB_DIR/method")" = direct ] || fail "auto at 1 picks $(cat "$KNOB_DIR/method"), expected direct"
		set_knob 0
		[ "$(cat "$KNOB_DIR/method")" = ftrace ] || fail "auto with direct busy at a write of 0 uses $(cat "$KNOB_DIR/method")"
		set_knob 1
		unload_module
		;;
	esac
	load_testing fail_attach=direct,ftrace fail_errno=16
	backend=$(cat "$KNOB_DIR/method")
	clear_log
	expect_write_fails 0 "Device or resource busy" "auto with direct and ftrace busy"
	! new_log | grep -E '(trying|using) kprobe' || fail "auto with direct and ftrace busy tried kprobe"
	[ "$(cat "$KNOB_DIR/method")" = "$backend" ] || fail "auto with every backend busy moved from $backend to $(cat "$KNOB_DIR/method")"
	unload_module
	backend=$(lane_backends | cut -d' ' -f1)
	load_testing method="$backend" fail_attach="$backend" fail_errno=16
	expect_write_fails 0 "Device or resource busy" "method=$backend busy"
	[ "$(cat "$KNOB_DIR/method")" = "$backend" ] || fail "method=$backend moved to $(cat "$KNOB_DIR/method")"
	unload_module
}

# Every backend the lane declares, explicitly, not only what auto picks.
# group: hooks
test_every_backend() {
	local backend i
	need_module
	for backend in $(lane_backends); do
		echo "== method=$backend"
		load_backend "$backend" enabled=0
		expect_knob 0 "method=$backend enabled=0"
		expect_armed 1 "method=$backend enabled=0"
		[ -n "$(hook_lines)" ] || fail "method=$backend: no hook in enabled_functions or the kprobes list"
		expect_work_stopped "method=$backend at 0"
		i=1
		while [ "$i" -le 10 ]; do
			set_knob $((i % 2))
			i=$((i + 1))
		done
		expect_knob 0 "method=$backend after 10 toggles"
		expect_armed 1 "method=$backend after 10 toggles"
		expect_no_rmmod_at_0 "method=$backend"
		set_knob 1
		expect_no_hook_lines "method=$backend back at 1"
		unload_module
		expect_work_runs "after rmmod (method=$backend)"
	done
}

# rmmod at 0 is refused: the module holds a reference on itself while
# hooked, so its text cannot go while a hook leads into it.
expect_no_rmmod_at_0() {
	local out
	if out=$(rmmod vmpressure_ctl 2>&1); then
		fail "$1: rmmod at enabled=0 succeeded"
	fi
	echo "$1: rmmod at 0: $out"
	module_loaded || fail "$1: $KNOB_DIR is gone after a refused rmmod"
	expect_knob 0 "$1: after a refused rmmod"
	expect_armed 1 "$1: after a refused rmmod"
}

# group: module
test_rmmod_refused_while_hooked() {
	need_module
	set_knob 0
	expect_no_rmmod_at_0 "enabled=0"
	expect_work_stopped "after the refused rmmod"
	set_knob 1
	unload_module
	expect_no_hook_lines "after rmmod at 1"
	expect_work_runs "after rmmod at 1"
}

# The kernel's own count of vmpressure()'s work: runs at 1, none at 0, runs
# at 1 again and after rmmod.
# group: core
# requires: tracer
test_work_fn_follows_knob() {
	need_module
	have_work_fn || skip "no vmpressure_work_fn in available_filter_functions (MEMCG_V1=n): the cgroup-v2 evidence is sock_throttled"
	expect_work_runs "enabled=1"
	set_knob 0
	expect_work_stopped "enabled=0"
	set_knob 1
	expect_work_runs "enabled=1 again"
	unload_module
	expect_work_runs "after rmmod"
}

# The negative control: hooks that count in skipped but let vmpressure()
# run (the test-only count_only=1) must not pass for a short-circuit.
# group: hooks
# requires: tracer
test_work_fn_catches_count_only() {
	local backend before runs
	need_module
	have_work_fn || skip "no vmpressure_work_fn in available_filter_functions (MEMCG_V1=n): the cgroup-v2 evidence is sock_throttled"
	for backend in $(lane_backends); do
		load_testing method="$backend" enabled=0 count_only=1
		before=$(skipped_count)
		runs=$(work_fn_runs evidence_round)
		echo "count_only method=$backend: skipped $before -> $(skipped_count), vmpressure_work_fn ran $runs times"
		[ "$(skipped_count)" -gt "$before" ] || fail "count_only method=$backend: skipped did not grow"
		[ "$runs" -gt 0 ] || fail "count_only method=$backend: the evidence saw no work although vmpressure() ran"
		unload_stock_or_testing
	done
}

ftrace_enabled() {
	cat /proc/sys/kernel/ftrace_enabled
}

# kernel.ftrace_enabled=0 turns ftrace call sites into NOPs. The ftrace
# backend's ops is FTRACE_OPS_FL_PERMANENT, so the sysctl is refused while
# hooked; the direct backend and kprobes on ftrace cannot carry the flag, so
# armed reads 0 while the knob stays 0, and a write of 0 is refused. Kernels
# whose sysctl no longer disables ftrace (7.x: EOPNOTSUPP, "deprecated")
# refuse it whatever is registered: there the hook must simply stay armed.
# group: hooks
test_ftrace_disabled() {
	local backend out before sysctl_works=1
	need_module
	trap 'echo 1 >/proc/sys/kernel/ftrace_enabled 2>/dev/null || true' EXIT
	if out=$(sysctl -w kernel.ftrace_enabled=0 2>&1); then
		echo 1 >/proc/sys/kernel/ftrace_enabled
	else
		case $out in
		*"Operation not supported"*) ;;
		*) fail "kernel.ftrace_enabled=0 with nothing hooked: $out" ;;
		esac
		echo "this kernel's kernel.ftrace_enabled no longer disables ftrace: $out"
		sysctl_works=
	fi
	for backend in $(lane_backends); do
		echo "== method=$backend"
		load_backend "$backend" enabled=0
		if [ -z "$sysctl_works" ]; then
			! sysctl -w kernel.ftrace_enabled=0 || fail "kernel.ftrace_enabled=0 accepted with method=$backend"
			expect_armed 1 "method=$backend, after the refused sysctl"
		elif out=$(sysctl -w kernel.ftrace_enabled=0 2>&1); then
			echo "sysctl accepted: $out"
			case $backend in
			ftrace) fail "method=ftrace: kernel.ftrace_enabled=0 accepted while hooked" ;;
			esac
			expect_knob 0 "method=$backend, ftrace disabled"
			if [ "$backend" = kprobe ] && ! kconfig_on KPROBES_ON_FTRACE; then
				# A breakpoint kprobe does not go through ftrace.
				expect_armed 1 "method=kprobe (breakpoint), ftrace disabled"
			else
				expect_armed 0 "method=$backend, ftrace disabled"
				before=$(skipped_count)
				evidence_round
				[ "$(skipped_count)" -eq "$before" ] ||
					fail "method=$backend: armed reads 0, yet the hook ran"
				echo 1 >/proc/sys/kernel/ftrace_enabled
				expect_armed 1 "method=$backend, ftrace enabled again, no write"
				set_knob 1
				echo 0 >/proc/sys/kernel/ftrace_enabled
				expect_write_fails 0 "Device or resource busy" "method=$backend, ftrace disabled"
				expect_no_hook_lines "method=$backend, refused while ftrace is disabled"
				echo 1 >/proc/sys/kernel/ftrace_enabled
				set_knob 0
			fi
			echo 1 >/proc/sys/kernel/ftrace_enabled
		else
			echo "sysctl refused: $out"
			[ "$backend" = ftrace ] || fail "method=$backend: kernel.ftrace_enabled=0 refused: $out"
			case $out in
			*"Device or resource busy"*) ;;
			*) fail "method=ftrace: sysctl refused with: $out" ;;
			esac
			[ "$(ftrace_enabled)" = 1 ] || fail "ftrace_enabled reads $(ftrace_enabled) after the refused write"
			# At 1 nothing holds the sysctl; a write of 0 then is refused.
			set_knob 1
			sysctl -w kernel.ftrace_enabled=0
			expect_write_fails 0 "Device or resource busy" "method=ftrace, ftrace disabled"
			echo 1 >/proc/sys/kernel/ftrace_enabled
			set_knob 0
		fi
		expect_armed 1 "method=$backend, ftrace enabled"
		expect_work_stopped "method=$backend, ftrace enabled"
		unload_stock_or_testing
	done
	[ -n "$sysctl_works" ] || return 0
	case " $(lane_backends) " in
	*" direct "*) auto_stays_when_unarmed ;;
	esac
}

# method=auto: direct registered but not armed (ftrace disabled) is no
# refusal by another direct call, so auto does not move on to ftrace.
auto_stays_when_unarmed() {
	echo "== method=auto, ftrace disabled"
	unload_stock_or_testing
	load_module method=auto
	[ "$(cat "$KNOB_DIR/method")" = direct ] || fail "method=auto picks $(cat "$KNOB_DIR/method"), expected direct"
	clear_log
	echo 0 >/proc/sys/kernel/ftrace_enabled
	expect_write_fails 0 "Device or resource busy" "method=auto, ftrace disabled"
	echo 1 >/proc/sys/kernel/ftrace_enabled
	! log_has 'trying ftrace' || fail "method=auto, ftrace disabled: moved on to ftrace: $(new_log)"
	log_has 'direct: cannot hook: -16: the kernel registered the hook but its call sites do not lead to it' ||
		fail "method=auto, ftrace disabled: no message that direct was not armed: $(new_log)"
	[ "$(cat "$KNOB_DIR/method")" = direct ] || fail "method=auto, ftrace disabled: now uses $(cat "$KNOB_DIR/method")"
	expect_no_hook_lines "method=auto, refused while ftrace is disabled"
	set_knob 0
	expect_armed 1 "method=auto, ftrace enabled again"
	set_knob 1
	unload_module
}

# Conflicts with the other owners of vmpressure() (tests/vm/kmods/conflict):
# an IPMODIFY ftrace_ops (as livepatch and kprobes with a post handler use),
# an ftrace direct call that shares the function with IPMODIFY users (as a
# BPF trampoline does), and a real livepatch. For every backend of the lane
# and both orders: refused with EBUSY and a message naming the kind of
# owner, or sharing the function with the short-circuit in effect; the knob
# and the hooks unchanged by a refusal; a write of 0 working without a
# reload once the other owner left; nothing left hooked after every unload
# order. The debug lane runs the holder-first order only: that is where
# the module's own refusal and unwind paths run, which the sanitizers
# watch; in the other order the module only stays hooked while the holder
# is refused, which every other x86 lane proves.

# HOLDER got vmpressure() and we did not: reclaim runs the livepatch's
# replacement, or passes the other holders' hooks, while skipped stays.
expect_holder_owns() {
	local before_calls before_skipped
	before_skipped=$(skipped_count)
	if [ "$1" = direct ]; then
		expect_work_runs "$1 holds vmpressure"
	else
		before_calls=$(holder_calls "$1")
		evidence_round
		[ "$(holder_calls "$1")" -gt "$before_calls" ] ||
			fail "$1 holds vmpressure, but its calls stayed at $before_calls"
	fi
	[ "$(skipped_count)" -eq "$before_skipped" ] || fail "skipped grew while $1 holds vmpressure"
}

# HOLDER takes vmpressure() first, then vmpressure_ctl with BACKEND.
conflict_holder_first() {
	local backend=$1 holder=$2 outcome lines
	outcome=$(expected_outcome "$backend" "$holder")
	echo "== $holder first, then method=$backend: $outcome expected"
	unload_stock_or_testing
	holder_load "$holder" || fail "$holder does not load on its own"
	load_backend "$backend"
	lines=$(hook_lines)
	clear_log
	if [ "$outcome" = busy ]; then
		expect_write_fails 0 "Device or resource busy" "method=$backend under $holder"
		log_has "$backend: cannot hook: -16: .*$(owner_phrase "$holder")" ||
			fail "method=$backend under $holder: the message does not name the owner: $(new_log)"
		# Refused again the same way: nothing was left half-registered.
		expect_write_fails 0 "Device or resource busy" "method=$backend under $holder, again"
		[ "$(hook_lines)" = "$lines" ] || fail "method=$backend under $holder: a refused write changed the hooks"
		expect_armed 0 "method=$backend under $holder"
		expect_holder_owns "$holder"
		holder_unload "$holder"
		set_knob 0
		expect_armed 1 "method=$backend after $holder left, no reload"
		expect_work_stopped "method=$backend after $holder left, no reload"
	else
		set_knob 0
		expect_armed 1 "method=$backend next to $holder"
		expect_work_stopped "method=$backend next to $holder"
		set_knob 1
		unload_module
		[ "$holder" = livepatch ] || expect_work_runs "$holder alone after vmpressure_ctl left"
		holder_unload "$holder"
	fi
	unload_stock_or_testing
	expect_no_hook_lines "$holder first, method=$backend, both gone"
}

# vmpressure_ctl at 0 with BACKEND first, then HOLDER.
conflict_hook_first() {
	local backend=$1 holder=$2 outcome lines
	outcome=$(expected_outcome "$backend" "$holder")
	echo "== method=$backend at 0 first, then $holder: $outcome expected"
	load_backend "$backend" enabled=0
	lines=$(hook_lines)
	if [ "$outcome" = busy ]; then
		! holder_load "$holder" || fail "$holder loaded while method=$backend holds vmpressure"
		expect_knob 0 "method=$backend after $holder was refused"
		expect_armed 1 "method=$backend after $holder was refused"
		[ "$(hook_lines)" = "$lines" ] || fail "the refused $holder changed the hooks"
		expect_work_stopped "method=$backend after $holder was refused"
	else
		holder_load "$holder" || fail "$holder does not load next to method=$backend"
		expect_armed 1 "method=$backend with $holder next to it"
		expect_work_stopped "method=$backend with $holder next to it"
		holder_unload "$holder"
		expect_armed 1 "method=$backend after $holder left"
		expect_work_stopped "method=$backend after $holder left"
	fi
	set_knob 1
	unload_module
	expect_no_hook_lines "method=$backend first, then $holder, both gone"
}

conflicts_with() {
	local backend order orders
	trap conflict_cleanup EXIT
	orders=$(full_or_debug "holder hook" holder)
	for backend in $(lane_backends); do
		for order in $orders; do
			"conflict_${order}_first" "$backend" "$1"
		done
	done
	expect_work_runs "every owner gone"
}

# The conflict row of a BPF-style direct-call holder on arm64: its
# trampoline (tests/vm/kmods/conflict/direct_holder_tramp_arm64.S) owns
# vmpressure()'s direct call, so method=direct is refused with the owner
# named while ftrace and kprobe share the function with it, in either
# order of loading. Kernels without arm64 direct calls (before 6.4) cannot
# build the holder: there the row is skipped, saying so.
# group: conflict
# requires: arm64
test_conflict_direct_arm64() {
	need_module
	need_holder direct "no ftrace direct calls on this arm64 kernel (6.4+ with CALL_OPS): vmpc_test_direct.ko not built"
	conflicts_with direct
}

# group: conflict
test_conflict_ipmodify() {
	need_module
	need_holder ipmodify "vmpc_test_ipmodify.ko was not built for this kernel"
	conflicts_with ipmodify
}

# group: conflict
# requires: amd64
test_conflict_direct() {
	need_module
	need_holder direct "no ops-based ftrace direct calls on this kernel or architecture (vmpc_test_direct.ko not built)"
	conflicts_with direct
}

# Loading a livepatch taints the kernel with K: only a K this test brought
# in, and only when it passed, is accepted by the final taint check.
# group: livepatch
# requires: livepatch
test_conflict_livepatch() {
	need_module
	need_holder livepatch "no CONFIG_LIVEPATCH in this kernel (vmpc_test_livepatch.ko not built)"
	[ $(($(cat /proc/sys/kernel/tainted) & TAINT_K)) -eq 0 ] || fail "the kernel has K (livepatch) taint before this test"
	echo "$TAINT_K" >"$TAINT_ALLOWED_FILE"
	conflicts_with livepatch
}

# debugfs kprobes/enabled=0 disarms every kprobe, ours included, without
# unregistering it: armed reads 0 and the hook does not run, a write of 0
# is refused meanwhile, and the hook is live again once kprobes are.
# group: hooks
test_kprobes_disarmed() {
	local before
	need_module
	case " $(lane_backends) " in
	*" kprobe "*) ;;
	*) fail "the lane declares no kprobe backend" ;;
	esac
	trap 'echo 1 >/sys/kernel/debug/kprobes/enabled' EXIT
	load_backend kprobe enabled=0
	echo 0 >/sys/kernel/debug/kprobes/enabled
	expect_knob 0 "kprobes disarmed"
	expect_armed 0 "kprobes disarmed"
	before=$(skipped_count)
	evidence_round
	[ "$(skipped_count)" -eq "$before" ] || fail "armed reads 0, yet the kprobe ran"
	echo 1 >/sys/kernel/debug/kprobes/enabled
	expect_armed 1 "kprobes armed again, no write"
	expect_work_stopped "kprobes armed again, no write"
	set_knob 1
	echo 0 >/sys/kernel/debug/kprobes/enabled
	expect_write_fails 0 "Device or resource busy" "kprobes disarmed"
	echo 1 >/sys/kernel/debug/kprobes/enabled
	unload_stock_or_testing
}

# The kprobe backend arms its probes one by one, then its canary: an
# attach that fails after the first ones are armed (injected a second
# after they are) short-circuits no call meanwhile, while reclaim calls
# vmpressure() (the function tracer's count) all along.
# group: hooks
# requires: tracer
test_failed_attach_short_circuits_nothing() {
	need_module
	case " $(lane_backends) " in
	*" kprobe "*) ;;
	*) fail "the lane declares no kprobe backend" ;;
	esac
	trap hog_stop EXIT
	load_testing method=kprobe fail_attach_late=kprobe fail_errno=5
	hog_start
	trace_calls vmpressure vmpressure '' \
		expect_write_fails 0 "Input/output error" "an attach failing after the probes are armed" 2>/dev/null
	hog_stop
	echo "vmpressure ran $TRACE_CALLS times during the failed write, skipped reads $(skipped_count)"
	[ "$TRACE_CALLS" -gt 0 ] || fail "no reclaim reached vmpressure() during the failed write"
	[ "$(skipped_count)" -eq 0 ] || fail "the failed attach short-circuited $(skipped_count) calls"
	expect_no_hook_lines "after the failed attach"
	unload_module
}

# A kprobe the kernel fails to unregister (unregister_kprobes() clears its
# address and leaves it linked; the test-only lose_kprobe makes the next
# detach leave one so) can no longer be found at its address, so no call
# reaches it: the write of 1 goes through, says so, and vmpressure() runs;
# the lost probe's memory is never reused (a write of 0 hooks with new
# probes) and rmmod does not wait for it.
# group: hooks
test_kprobe_lost_by_kernel() {
	local before
	need_module
	case " $(lane_backends) " in
	*" kprobe "*) ;;
	*) fail "the lane declares no kprobe backend" ;;
	esac
	load_testing method=kprobe enabled=0
	clear_log
	echo 1 >/sys/module/vmpressure_ctl/parameters/lose_kprobe
	set_knob 1
	log_has 'kprobe: the kernel failed to unregister the kprobe on vmpressure' ||
		fail "no message about the lost kprobe: $(new_log)"
	expect_armed 0 "after the kernel lost a kprobe"
	before=$(skipped_count)
	reclaim_with_work_runs "after the kernel lost a kprobe"
	[ "$(skipped_count)" -eq "$before" ] || fail "the lost kprobe still short-circuits vmpressure()"
	set_knob 0
	expect_armed 1 "hooked again after the loss"
	expect_work_stopped "hooked again after the loss"
	set_knob 1
	timeout 30 rmmod vmpressure_ctl || fail "rmmod after the loss failed or hung"
	! module_loaded || fail "$KNOB_DIR still present after rmmod"
	reclaim_with_work_runs "after rmmod, the lost kprobe still linked"
}

# One reclaim round, in which vmpressure_work_fn must run where the kernel
# has it.
reclaim_with_work_runs() {
	if have_work_fn; then
		expect_work_runs "$1"
	else
		evidence_round
	fi
}
