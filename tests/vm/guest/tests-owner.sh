# shellcheck shell=dash disable=SC2153 # KNOB and the other names come from lib.sh
# Guest tests of one owner at a time on vmpressure()'s call site: another
# kprobe there (a tracefs kprobe event, as `perf probe` and bpftrace make)
# in either order, an IPMODIFY holder under method=auto, kprobes disarmed
# globally (also under a function tracer that keeps the call site live), a
# detach the kernel refuses (the test-only fail_detach), and readers of
# every attribute across unload.
# Whatever happens, no WARN (the harness panics on one) and no fallback
# past an owner. Uses the helpers of lib.sh and lib-module.sh. Run by
# run-tests.sh, each function in its own `sh -eu`, starting with the
# shipped module loaded at enabled=1.

OTHER_EVENT=vmpc_other
# Log lines of the kprobe backend at work (refusal messages may name
# kprobes as a kind of owner).
KPROBE_USED='(trying|using) kprobe|vmpressure_ctl: kprobe: '
FAIL_DETACH=/sys/module/vmpressure_ctl/parameters/fail_detach
# The task that holds an RCU-tasks grace period off (armed_not_behind_write).
LONG_READER=
OTHER_DIR=$TRACEFS/events/kprobes/$OTHER_EVENT

# Defines another kprobe on vmpressure through tracefs (it registers
# disabled), and with "enable" arms it.
other_probe_add() {
	echo "p:$OTHER_EVENT vmpressure" >>"$TRACEFS/kprobe_events" ||
		fail "cannot add a kprobe event on vmpressure"
	[ "$1" != enable ] || other_probe_enable 1
}

other_probe_enable() {
	echo "$1" >"$OTHER_DIR/enable" || fail "cannot write $1 to the $OTHER_EVENT event's enable"
}

other_probe_remove() {
	[ -d "$OTHER_DIR" ] || return 0
	other_probe_enable 0
	echo "-:$OTHER_EVENT" >>"$TRACEFS/kprobe_events" || fail "cannot remove the $OTHER_EVENT kprobe event"
}

# Hits of the other probe, from kprobes' own count.
other_probe_hits() {
	awk -v e="$OTHER_EVENT" '$1 == e { print $2 }' "$TRACEFS/kprobe_profile"
}

owner_cleanup() {
	[ ! -d "$OTHER_DIR" ] || other_probe_remove
	conflict_cleanup
}

# Both the other probe and the short-circuit see vmpressure() calls.
expect_both_run() {
	local hits skipped
	hits=$(other_probe_hits)
	skipped=$(skipped_count)
	vmpressure_called
	[ "$(other_probe_hits)" -gt "$hits" ] || fail "$1: the other kprobe's hits stayed at $hits"
	[ "$(skipped_count)" -gt "$skipped" ] || fail "$1: skipped stayed at $skipped"
}

# The kprobe backend refuses to join another kprobe on vmpressure, armed
# or not; the other backends hook next to it. Refused: EBUSY, a log line
# naming the way out, the knob and the method unchanged, no hook; a write
# of 0 works once the other probe is gone.
# group: conflict
test_owner_other_kprobe_first() {
	local backend state
	need_module
	trap owner_cleanup EXIT
	for backend in $(lane_backends); do
		for state in enable disabled; do
			echo "== another kprobe ($state) first, then method=$backend"
			other_probe_add "$state"
			load_backend "$backend"
			clear_log
			if [ "$backend" = kprobe ]; then
				expect_write_fails 0 "Device or resource busy" "method=kprobe under another kprobe ($state)"
				log_has 'kprobe: another kprobe sits on vmpressure' ||
					fail "method=kprobe under another kprobe: the log does not name the symbol: $(new_log)"
				log_has 'kprobe: cannot hook: -16: another kprobe sits on a target: .*kprobe_events.*perf probe or bpftrace' ||
					fail "method=kprobe under another kprobe: the log does not name the way out: $(new_log)"
				expect_armed 0 "method=kprobe under another kprobe ($state)"
				[ "$(cat "$KNOB_DIR/method")" = kprobe ] || fail "method moved to $(cat "$KNOB_DIR/method")"
				other_probe_remove
				set_knob 0
				expect_armed 1 "method=kprobe after the other kprobe left"
			else
				set_knob 0
				expect_armed 1 "method=$backend next to another kprobe ($state)"
				[ "$state" = disabled ] || expect_both_run "method=$backend next to another kprobe"
				set_knob 1
				other_probe_remove
			fi
			unload_module
			expect_no_hook_lines "another kprobe ($state) first, method=$backend, both gone"
		done
	done
}

# Ours first, then another kprobe on vmpressure: it joins, both run; it
# leaves while ours is live, ours keeps working; it comes back and ours
# leaves while it is live, then it leaves last. No WARN in any order
# (the kprobe backend's last one is the order the WARN needed).
# group: conflict
test_owner_other_kprobe_after_ours() {
	local backend skipped hits
	need_module
	trap owner_cleanup EXIT
	for backend in $(lane_backends); do
		echo "== method=$backend at 0 first, then another kprobe"
		load_backend "$backend" enabled=0
		other_probe_add enable
		expect_armed 1 "method=$backend with another kprobe next to it"
		expect_both_run "method=$backend with another kprobe next to it"
		other_probe_remove
		expect_armed 1 "method=$backend after the other kprobe left"
		skipped=$(skipped_count)
		vmpressure_called
		[ "$(skipped_count)" -gt "$skipped" ] || fail "method=$backend after the other kprobe left: skipped stayed at $skipped"
		echo "== another kprobe joins, then method=$backend leaves first"
		other_probe_add enable
		set_knob 1
		unload_module
		hits=$(other_probe_hits)
		vmpressure_called
		[ "$(other_probe_hits)" -gt "$hits" ] || fail "the other kprobe stopped after method=$backend left: hits stayed at $hits"
		other_probe_remove
		expect_no_hook_lines "method=$backend first, another kprobe last, both gone"
	done
}

# A kprobe that joined ours on vmpressure's ftrace site keeps the IPMODIFY
# claim ours armed the site with after ours left (kprobes keep the post
# handler of an aggregate on ftrace): an IPMODIFY user, method=ftrace here,
# is refused while the one probe in kprobe_events is a plain p: event.
# The way out of docs/conflicts.md: the event removed and added again.
# group: conflict
# requires: amd64
test_owner_kprobe_claim_outlives_ours() {
	need_module
	trap owner_cleanup EXIT
	load_backend kprobe enabled=0
	other_probe_add enable
	set_knob 1
	unload_module
	load_backend ftrace
	clear_log
	expect_write_fails 0 "Device or resource busy" "method=ftrace after method=kprobe left, another kprobe staying"
	log_has 'ftrace: cannot hook: -16: an IPMODIFY ftrace user holds a target' ||
		fail "method=ftrace refused, but not for an IPMODIFY owner: $(new_log)"
	[ "$(cat "$TRACEFS/kprobe_events")" = "p:kprobes/$OTHER_EVENT vmpressure" ] ||
		fail "kprobe_events reads: $(cat "$TRACEFS/kprobe_events")"
	echo "what the kernel shows of vmpressure's hooks meanwhile:"
	hook_lines vmpressure
	other_probe_remove
	other_probe_add enable
	set_knob 0
	expect_armed 1 "method=ftrace next to the kprobe event added again"
	expect_both_run "method=ftrace next to the kprobe event added again"
	set_knob 1
	other_probe_remove
	unload_module
}

# method=auto under an owner that refuses direct and ftrace alike (an
# IPMODIFY ftrace_ops, a livepatch): refused, never a kprobe planted in
# front of the owner. At load with enabled=0 and at a later write of 0:
# EBUSY, the method unchanged, the owner still called, no word of kprobe.
# group: conflict
test_owner_auto_never_kprobe() {
	local holder method calls skipped out lines tested=
	need_module
	trap conflict_cleanup EXIT
	for holder in ipmodify livepatch; do
		[ -e "$(holder_module "$holder")" ] || continue
		tested="$tested $holder"
		# K taint from the livepatch, accepted only if this test passes.
		[ "$holder" != livepatch ] || echo "$TAINT_K" >"$TAINT_ALLOWED_FILE"
		echo "== $holder holds vmpressure, then method=auto"
		unload_stock_or_testing
		holder_load "$holder" || fail "$holder does not load on its own"
		clear_log
		out=$(insmod_must_fail method=auto enabled=0)
		case $out in
		*"Device or resource busy"*) ;;
		*) fail "method=auto enabled=0 under $holder: expected EBUSY, insmod said: $out" ;;
		esac
		! new_log | grep -E "$KPROBE_USED" || fail "method=auto under $holder at load: a kprobe was tried"
		load_module method=auto
		method=$(cat "$KNOB_DIR/method")
		lines=$(hook_lines)
		clear_log
		expect_write_fails 0 "Device or resource busy" "method=auto under $holder"
		! new_log | grep -E "$KPROBE_USED" || fail "method=auto under $holder: a kprobe was tried"
		[ "$(cat "$KNOB_DIR/method")" = "$method" ] || fail "method=auto under $holder moved from $method to $(cat "$KNOB_DIR/method")"
		expect_armed 0 "method=auto under $holder"
		[ "$(hook_lines)" = "$lines" ] || fail "method=auto under $holder: a refused write changed the hooks"
		skipped=$(skipped_count)
		calls=$(holder_calls "$holder")
		vmpressure_called
		[ "$(holder_calls "$holder")" -gt "$calls" ] || fail "$holder's calls stayed at $calls under method=auto"
		[ "$(skipped_count)" -eq "$skipped" ] || fail "skipped grew under $holder"
		unload_module
		holder_unload "$holder"
	done
	[ -n "$tested" ] || skip "no IPMODIFY holder built for this kernel"
	echo "tested under:$tested"
}

# Waits up to 30 s for the log to have a line matching the regex.
log_shows() {
	wait_until 30 log_has "$1" || fail "no log line matching '$1' in 30 s: $(dmesg | tail -n 5)"
}

fail_detach_cleanup() {
	[ ! -e "$FAIL_DETACH" ] || echo 0 >"$FAIL_DETACH"
	wait
}

# Taint R: a module unloaded with rmmod -f while referenced.
TAINT_FORCED_RMMOD=8

# rmmod [ARGS] (LABEL, BACKEND) of a hooked module whose detach fails: it
# waits, the module going, its hooks in the kernel's lists and reclaim
# calling through them into its text, until the detach works; then the
# module goes.
rmmod_waits_for_detach() {
	local pid
	clear_log
	# shellcheck disable=SC2086 # no word when empty
	rmmod $3 vmpressure_ctl &
	pid=$!
	log_shows "$2: cannot unhook at unload: -5"
	[ "$(cat /sys/module/vmpressure_ctl/initstate 2>/dev/null)" = going ] ||
		fail "$1: rmmod $3: the module is not going with its hooks failing to detach"
	[ -n "$(hook_lines)" ] || fail "$1: rmmod $3: no hook while the detach fails"
	# The hooks lead into the module's text: it must still be there.
	vmpressure_called
	echo 0 >"$FAIL_DETACH"
	wait "$pid" || fail "$1: rmmod $3 failed once the detach worked"
	[ ! -d /sys/module/vmpressure_ctl ] || fail "$1: still loaded after rmmod $3"
	log_has "$2: unhooked at last, unloading" || fail "$1: rmmod $3: no 'unhooked at last' in the log: $(new_log)"
}

# rmmod -f of the module pinned by a failed detach (default mode, hooked,
# holding a reference on itself). Without CONFIG_MODULE_FORCE_UNLOAD it is
# refused like rmmod, and nothing changes. With it (Debian's kernels) the
# kernel unloads the referenced module anyway and taints R; the module's
# exit then waits for the detach (rmmod_waits_for_detach). The test
# announces R.
expect_forced_rmmod_waits() {
	if ! kconfig_on MODULE_FORCE_UNLOAD; then
		! rmmod -f vmpressure_ctl || fail "$1: rmmod -f succeeded after a failed detach"
		module_loaded || fail "$1: the module went with rmmod -f after a failed detach"
		[ $(($(cat /proc/sys/kernel/tainted) & TAINT_FORCED_RMMOD)) -eq 0 ] ||
			fail "$1: rmmod -f tainted the kernel R"
		echo 0 >"$FAIL_DETACH"
		unload_module
		return
	fi
	rmmod_waits_for_detach "$1" "$2" -f
	[ $(($(cat /proc/sys/kernel/tainted) & TAINT_FORCED_RMMOD)) -ne 0 ] ||
		fail "$1: rmmod -f did not taint R: the kernel did not force the unload"
	echo "$TAINT_FORCED_RMMOD" >"$TAINT_ALLOWED_FILE"
}

# A detach the kernel refuses (the test-only fail_detach) never lets the
# module's text go while a hook leads into it. Default mode: the write of
# 1 fails, the knob, the hooks and the module stay, rmmod is refused, and
# rmmod -f is refused or, where the kernel forces it, waits for the detach
# (expect_forced_rmmod_waits). Resident mode
# (no module reference, so rmmod -f is plain rmmod and taints nothing):
# rmmod and rmmod -f wait, with the hooks live and vmpressure() still
# calling into the module, until the detach works.
# group: conflict
test_owner_fail_detach() {
	local backend skipped rmmod_force taint_before
	need_module
	trap fail_detach_cleanup EXIT
	for backend in $(lane_backends); do
		echo "== method=$backend, default mode"
		load_testing method="$backend" enabled=0
		echo 1 >"$FAIL_DETACH"
		clear_log
		expect_write_fails 1 "Input/output error" "method=$backend, detach failing"
		log_has "$backend: cannot unhook: -5; staying hooked, and loaded" ||
			fail "method=$backend: the failed detach is not in the log: $(new_log)"
		expect_armed 1 "method=$backend, detach failing"
		! rmmod vmpressure_ctl || fail "method=$backend: rmmod succeeded after a failed detach"
		module_loaded || fail "method=$backend: the module went after a failed detach"
		skipped=$(skipped_count)
		vmpressure_called
		[ "$(skipped_count)" -gt "$skipped" ] || fail "method=$backend: the hooks stopped after a failed detach"
		expect_forced_rmmod_waits "method=$backend" "$backend"
		expect_no_hook_lines "method=$backend, default mode, detach working again"

		for rmmod_force in '' -f; do
			echo "== method=$backend, resident mode, rmmod $rmmod_force"
			load_testing method="$backend" resident=1 enabled=0
			echo 1 >"$FAIL_DETACH"
			taint_before=$(($(cat /proc/sys/kernel/tainted) & TAINT_FORCED_RMMOD))
			rmmod_waits_for_detach "method=$backend resident" "$backend" "$rmmod_force"
			[ $(($(cat /proc/sys/kernel/tainted) & TAINT_FORCED_RMMOD)) -eq "$taint_before" ] ||
				fail "method=$backend resident: rmmod $rmmod_force tainted the kernel R"
			expect_no_hook_lines "method=$backend, resident, unloaded"
		done
	done
}

# Reading armed does not wait behind a write that waits for an RCU-tasks
# grace period: a task that stays in the kernel (one long read() after
# another) holds the write of 1 off, and a read of armed meanwhile returns
# while the write still waits. method stays readable likewise. A round in
# which the write ended first (the grace period came while the reader
# started, under TCG) proves nothing either way and is tried again; a read
# that waits for the write makes every round end so, and the test fails.
# Without preemption ftrace waits for no RCU-tasks grace period at
# unregistration (ftrace_shutdown()): no write stays long to race.
# group: conflict
# requires: preemption
test_owner_armed_not_behind_write() {
	local writer armed_read tries round=0
	need_module
	trap 'kill "$LONG_READER" 2>/dev/null || true; wait' EXIT
	while :; do
		round=$((round + 1))
		[ "$round" -le 5 ] || fail "in 5 rounds, armed and method never returned while a write of 1 waited"
		load_backend ftrace enabled=0
		dd if=/dev/zero of=/dev/null bs=16M count=1000000 2>/dev/null &
		LONG_READER=$!
		sleep 0.3
		echo 1 >"$KNOB" &
		writer=$!
		sleep 0.2
		# dd leaves the kernel between its reads, where the grace period
		# can end: a write already done has nothing to race, so try again
		if ! kill -0 "$writer" 2>/dev/null; then
			echo "round $round: the write of 1 did not wait for the grace period: again"
			kill "$LONG_READER"
			wait "$writer" || fail "the write of 1 failed"
			unload_module
			continue
		fi
		{ cat "$ARMED" "$KNOB_DIR/method" >/tmp/armed-read; } &
		armed_read=$!
		tries=0
		while kill -0 "$armed_read" 2>/dev/null; do
			tries=$((tries + 1))
			[ "$tries" -le 40 ] || fail "reading armed and method took over 2 s while the write of 1 waits"
			sleep 0.05
		done
		if kill -0 "$writer" 2>/dev/null; then
			echo "round $round: while the write waits: armed, method: $(tr '\n' ' ' </tmp/armed-read)"
			break
		fi
		echo "round $round: the write of 1 ended before the read returned: again"
		kill "$LONG_READER"
		wait "$writer" || fail "the write of 1 failed once the grace period could end"
		unload_module
	done
	kill "$LONG_READER"
	wait "$writer" || fail "the write of 1 failed once the grace period could end"
	expect_knob 1 "after the write of 1"
	unload_module
}

KPROBES_SWITCH=/sys/kernel/debug/kprobes/enabled

# Run under a function tracer on vmpressure (trace_calls): kprobes
# disarmed, the hook's call site stays live for the tracer alone.
kprobes_disarmed_under_tracer() {
	local mode=$1 skipped
	echo 0 >"$KPROBES_SWITCH" || fail "cannot write 0 to $KPROBES_SWITCH"
	expect_armed 0 "$mode, kprobes disarmed, a function tracer on vmpressure"
	skipped=$(skipped_count)
	vmpressure_called
	[ "$(skipped_count)" -eq "$skipped" ] || fail "$mode: armed reads 0, yet the kprobe ran"
	clear_log
	if [ "$mode" = resident ]; then
		set_knob 1
		expect_write_fails 0 "Device or resource busy" "$mode, kprobes disarmed"
		log_has 'kprobe: the kernel registered the hook but its call sites do not lead to it' ||
			fail "$mode: the refused write is not in the log: $(new_log)"
	else
		set_knob 1
		expect_write_fails 0 "Device or resource busy" "$mode, kprobes disarmed"
		log_has 'kprobe: cannot hook: -16: the kernel registered the hook but its call sites do not lead to it' ||
			fail "$mode: the refused write is not in the log: $(new_log)"
		# enabled_functions lists the tracer: kprobes' own list only.
		! grep -E '[[:space:]](vmpressure|vmpressure_prio)\+0x0([[:space:]]|$)' /sys/kernel/debug/kprobes/list ||
			fail "$mode: a kprobe stayed after the refused write"
	fi
	echo 1 >"$KPROBES_SWITCH" || fail "cannot write 1 to $KPROBES_SWITCH"
	set_knob 0
	expect_armed 1 "$mode, kprobes armed again"
	skipped=$(skipped_count)
	vmpressure_called
	[ "$(skipped_count)" -gt "$skipped" ] || fail "$mode: kprobes armed again, skipped stayed at $skipped"
}

# debugfs kprobes/enabled=0 while another ftrace user, a function tracer
# filtered on every target, keeps their call sites live (on x86 the
# kprobes sit on those sites): armed reads 0, the kprobe does not run, a
# write of 0 is refused with a log line, in the default and resident
# modes. The tracer seeing vmpressure() meanwhile is the control.
# group: conflict
# requires: tracer
test_owner_kprobes_disarmed_site_shared() {
	local mode
	need_module
	kprobes_switch_usable || skip "debugfs refuses $KPROBES_SWITCH (lockdown)"
	trap 'echo 1 >"$KPROBES_SWITCH"' EXIT
	for mode in default resident; do
		echo "== method=kprobe, $mode mode"
		if [ "$mode" = resident ]; then
			load_backend kprobe resident=1 enabled=0
		else
			load_backend kprobe enabled=0
		fi
		expect_armed 1 "$mode, kprobes armed"
		trace_calls "$(expected_targets | tr '\n' ' ')" vmpressure '' kprobes_disarmed_under_tracer "$mode" 2>/dev/null
		[ "$TRACE_CALLS" -gt 0 ] || fail "$mode: the function tracer saw no vmpressure() call"
		echo "$mode: the function tracer saw vmpressure() $TRACE_CALLS times"
		unload_module
	done
}

# Files the readers of test_owner_readers_across_unload leave.
READERS_DIR=/tmp/unload-readers

# Reads attribute NAME in a loop until the stop file appears, whether the
# module is there or not; leaves how many reads returned a value and how
# many found no file (the module unloaded, or not yet loaded), and a line
# in errors for a value no state of the module gives.
attr_reader_across_unload() {
	local name=$1 value found=0 missing=0
	while [ ! -e "$READERS_DIR/stop" ]; do
		if read -r value 2>/dev/null <"$KNOB_DIR/$name"; then
			found=$((found + 1))
			case $name:$value in
			enabled:[01] | armed:[01] | method:direct | method:ftrace | method:kprobe | targets:vmpressure) ;;
			skipped:*[!0-9]* | skipped:) echo "$name read '$value'" >>"$READERS_DIR/errors" ;;
			skipped:*) ;;
			*) echo "$name read '$value'" >>"$READERS_DIR/errors" ;;
			esac
		else
			missing=$((missing + 1))
		fi
	done
	echo "$found $missing" >"$READERS_DIR/count.$name"
}

# Teardown order: readers of every attribute hammer them while the module
# loads and unloads 6 times (a round takes 4 s on 6.12), 3 on the debug
# lane (one per mode, 9 s a round), in the default mode at 1, after a write
# of 0 and 1, and in resident mode hooked. unload removes the files and the
# kobject from sysfs before the final put, so no reader enters freed module
# text (KASAN on the debug lane reports it; elsewhere it oopses, and the
# guest panics). Every reader both read values and found no file: the race
# ran. CONFIG_DEBUG_KOBJECT_RELEASE on the debug kernel did not make this
# test catch an exit without sysfs_remove_group() and kobject_del(): rmmod
# waits for the module's own delayed kobject releases (2-8 s), longer than
# the 1-4 s the module's sysfs kobject is delayed, while it added 5 s to
# every unload and failed load there (docs/testing.md).
# group: unload
test_owner_readers_across_unload() {
	local rounds i=0 attr attrs found missing
	need_module
	rounds=$(full_or_debug 6 3)
	rm -rf "$READERS_DIR"
	mkdir -p "$READERS_DIR"
	attrs=$(cd "$KNOB_DIR" && echo *)
	trap 'touch "$READERS_DIR/stop"; wait' EXIT
	for attr in $attrs; do
		attr_reader_across_unload "$attr" &
	done
	while [ "$i" -lt "$rounds" ]; do
		case $((i % 3)) in
		0) ;;
		1) set_knob 0 && set_knob 1 ;;
		2) unload_module && load_module resident=1 enabled=0 ;;
		esac
		rmmod vmpressure_ctl || fail "round $i: rmmod failed"
		! module_loaded || fail "round $i: $KNOB_DIR still present after rmmod"
		load_module
		i=$((i + 1))
	done
	touch "$READERS_DIR/stop"
	wait
	[ ! -s "$READERS_DIR/errors" ] || fail "a reader read what no state gives: $(head -n 1 "$READERS_DIR/errors")"
	for attr in $attrs; do
		[ -s "$READERS_DIR/count.$attr" ] || fail "the reader of $attr left no count"
		read -r found missing <"$READERS_DIR/count.$attr"
		echo "$attr: $found reads returned a value, $missing found no file, across $rounds unloads"
		[ "$found" -gt 0 ] || fail "the reader of $attr never read a value"
		[ "$missing" -gt 0 ] || fail "the reader of $attr never ran while the module was gone"
	done
}
