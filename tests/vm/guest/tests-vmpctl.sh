# shellcheck shell=dash
# Guest tests of vmpctl ab on real kernel knobs (issue 11): the sysfs list
# transparent_hugepage/enabled and two sysctls (one value, one of two
# fields) come back exactly after an A/B and after a stop signal; each arm
# runs with its own value in force; a choice the list does not offer is
# refused before any write; the vmpressure knob comes back after vmpctl ab
# dies of a closed pipe or a SIGUSR1.
# Sourced with the guest lib by run-tests.sh, which runs each test_NAME in
# its own shell and reports it as NAME. Logs go to /tmp.

THP_ENABLED=/sys/kernel/mm/transparent_hugepage/enabled
SWAPPINESS=/proc/sys/vm/swappiness
PORT_RANGE=/proc/sys/net/ipv4/ip_local_port_range

vmpctl_present() {
	command -v vmpctl >/dev/null || fail "vmpctl is not in the initramfs"
}

# knob_as_found FILE COPY WHAT: FILE holds exactly the bytes of COPY.
# A reader of a pipe that leaves at the first line with TEXT, and says so
# in /tmp/reader-left. Under pipefail the writer's death by the closed pipe
# is the pipeline's status, so the tests look for the mark instead.
reader_leaves_at() {
	grep -m 1 "$1" >/dev/null && : >/tmp/reader-left
}

knob_as_found() {
	cmp -s "$1" "$2" || fail "$3: $1 holds '$(cat "$1")', was '$(cat "$2")'"
}

# no_readback_warning ERRFILE: vmpctl saw each arm's value take.
no_readback_warning() {
	! grep -q "reads back" "$1" || fail "$(grep "reads back" "$1")"
}

# group: tool
# requires: thp
test_vmpctl_ab_restores_thp_list() {
	local status=0
	vmpctl_present
	grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' /etc/vmtest/kconfig ||
		skip "no transparent hugepages (TRANSPARENT_HUGEPAGE off)"
	cp "$THP_ENABLED" /tmp/thp.found || fail "TRANSPARENT_HUGEPAGE=y but no $THP_ENABLED"
	echo "found: $(cat /tmp/thp.found)"

	rm -f /tmp/thp.log
	# shellcheck disable=SC2016 # expanded by the command's shell
	vmpctl ab -q --csv --knob "$THP_ENABLED" --a madvise --b never -n 2 -w 0 -- \
		sh -c 'cat "$1" >>"$2"' sh "$THP_ENABLED" /tmp/thp.log >/tmp/thp.csv 2>/tmp/thp.err ||
		status=$?
	cat /tmp/thp.err
	[ "$status" -eq 0 ] || fail "vmpctl ab --knob $THP_ENABLED exited $status"
	knob_as_found "$THP_ENABLED" /tmp/thp.found "after vmpctl ab"
	no_readback_warning /tmp/thp.err
	# ABBA: each run saw its own arm's choice selected
	printf '%s\n' "always [madvise] never" "always madvise [never]" \
		"always madvise [never]" "always [madvise] never" >/tmp/thp.want
	cmp -s /tmp/thp.log /tmp/thp.want || fail "the arms' runs saw: $(tr '\n' '|' </tmp/thp.log)"

	status=0
	vmpctl ab --knob "$THP_ENABLED" --a madvise --b sometimes -n 2 -- true 2>/tmp/thp.err || status=$?
	cat /tmp/thp.err
	[ "$status" -eq 2 ] || fail "a choice $THP_ENABLED does not offer: exit $status, expected 2"
	knob_as_found "$THP_ENABLED" /tmp/thp.found "after a refused choice"

	# a stop signal while arm B runs
	status=0
	# shellcheck disable=SC2016 # expanded by the command's shell
	vmpctl ab -q --knob "$THP_ENABLED" --a madvise --b never -n 2 -w 0 -- \
		sh -c 'case $(cat "$1") in *"[never]"*) kill -TERM $PPID; sleep 5 ;; esac' \
		sh "$THP_ENABLED" >/dev/null 2>&1 || status=$?
	[ "$status" -eq 143 ] || fail "vmpctl ab stopped by SIGTERM exited $status, expected 143"
	knob_as_found "$THP_ENABLED" /tmp/thp.found "after SIGTERM during arm B"
}

# group: tool
test_vmpctl_ab_restores_sysctls() {
	local status=0
	vmpctl_present
	cp "$SWAPPINESS" /tmp/swappiness.found
	cp "$PORT_RANGE" /tmp/range.found
	echo "found: swappiness $(cat /tmp/swappiness.found), port range $(cat /tmp/range.found)"

	rm -f /tmp/swappiness.log
	# shellcheck disable=SC2016 # expanded by the command's shell
	vmpctl ab -q --csv --knob "$SWAPPINESS" --a 10 --b 100 -n 2 -w 0 -- \
		sh -c 'cat "$1" >>"$2"' sh "$SWAPPINESS" /tmp/swappiness.log >/dev/null 2>/tmp/sysctl.err ||
		status=$?
	cat /tmp/sysctl.err
	[ "$status" -eq 0 ] || fail "vmpctl ab --knob $SWAPPINESS exited $status"
	knob_as_found "$SWAPPINESS" /tmp/swappiness.found "after vmpctl ab"
	[ "$(tr '\n' ' ' </tmp/swappiness.log)" = "10 100 100 10 " ] ||
		fail "the arms' runs saw swappiness $(tr '\n' ' ' </tmp/swappiness.log)"

	# two fields the kernel prints with a tab
	status=0
	vmpctl ab -q --csv --knob "$PORT_RANGE" --a "40000 50001" --b "45000 55001" -n 2 -w 0 -- \
		true >/dev/null 2>/tmp/sysctl.err || status=$?
	cat /tmp/sysctl.err
	[ "$status" -eq 0 ] || fail "vmpctl ab --knob $PORT_RANGE exited $status"
	knob_as_found "$PORT_RANGE" /tmp/range.found "after vmpctl ab"
	no_readback_warning /tmp/sysctl.err

	# a closed pipe: the reader leaves at arm B's first progress line, so
	# the next write to it comes while the knob is at B (ABBA)
	rm -f /tmp/reader-left
	vmpctl ab --knob "$PORT_RANGE" --a "40000 50001" --b "45000 55001" -n 2 -w 0 -- \
		sleep 0.5 2>&1 | reader_leaves_at " B: " || true
	[ -e /tmp/reader-left ] || fail "vmpctl ab --knob $PORT_RANGE printed no line of arm B"
	knob_as_found "$PORT_RANGE" /tmp/range.found "after vmpctl ab died of a closed pipe"
}

# Issue 11's first report: `vmpctl ab ... 2>&1 | head` left vmpressure off.
# Each run writes a line to the pipe; the reader leaves at arm B's, so the
# next write to the closed pipe comes while the knob is at B.
# group: tool
test_vmpctl_ab_restores_vmpressure_knob() {
	local status=0
	vmpctl_present
	need_module
	expect_knob 1 "before vmpctl ab"
	rm -f /tmp/reader-left
	# shellcheck disable=SC2016 # expanded by the command's shell
	vmpctl ab -q -n 2 -w 0 -- sh -c 'echo "knob $(cat "$1")" >&2; sleep 0.5' sh "$KNOB" \
		2>&1 | reader_leaves_at "knob 0" || true
	[ -e /tmp/reader-left ] || fail "vmpctl ab's command never saw the knob at 0"
	expect_knob 1 "after vmpctl ab died of a closed pipe"

	# shellcheck disable=SC2016 # expanded by the command's shell
	vmpctl ab -q -n 2 -w 0 -- sh -c '[ "$(cat "$1")" = 1 ] || kill -USR1 $PPID; sleep 1' \
		sh "$KNOB" >/dev/null 2>&1 || status=$?
	[ "$status" -eq 138 ] || fail "vmpctl ab stopped by SIGUSR1 exited $status, expected 138"
	expect_knob 1 "after SIGUSR1 during arm B"
}
