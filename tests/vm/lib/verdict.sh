# shellcheck shell=bash
# The verdict of a lane: its KTAP (from the verdict channel, never the
# console), its console log, its declared skips, and whether a lane that
# skipped as a whole may do so.
#
# KTAP from the guest runner: "KTAP version 1", "1..N", then per test an
# optional "# REASON" line and "ok N NAME", "ok N NAME # SKIP" or
# "not ok N NAME", N counting from 1 and NAME the N-th line of the lane's
# test list, then "# time: NAME SECONDS"; "# backend: METHOD" before the
# results and "# tainted: VALUE" after the last one. Anything else on the channel fails the lane. The taint
# may hold O (4096) and E (8192), and K (32768, a livepatch) or R (8, a
# forced rmmod) when a test that caused it announced it with "# taint
# allowed: BITS by NAME" and passed.
#
# Inputs:  vm_dir, top (common.sh); lane_tier, lane_may_skip, lane_skips,
#          lane_console_patterns (lane.sh); selected_tests
#          (VMPCTL_VM_TESTS); CI (set and not 0 or false: a CI run);
#          lane_fail, lane_skip.
# Outputs: check_ktap KTAP TESTS sets passed, failed, skipped, backend,
#          test_times ("NAME SECONDS" lines) and, on any problem, lane_fail (the first problem found is kept);
#          check_console LOG sets lane_fail on a console pattern
#          (tests/vm/console-patterns and the lane's console_patterns=);
#          lane_verdict sets result (pass, FAIL or SKIP), lane_state (pass,
#          fail, skip or undeclared-skip) and lane_fail for a skip that is
#          a failure here.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

verdict_fail() {
	lane_fail=${lane_fail:-$1}
}

check_ktap() {
	local ktap=$1 line num name next=1 plan='' tainted='' seen_version='' reason='' first_failure=''
	local expected=() skipped_tests=() allowed=$((4096 | 8192))
	local -A passed_tests=() taint_by=()
	mapfile -t expected <"$2"
	passed=0 failed=0 skipped=0 backend=- test_times=''
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ ([0-9]+)\ ([a-z0-9_]+)( \#\ SKIP)?$ ]]; then
			num=${BASH_REMATCH[2]} name=${BASH_REMATCH[3]}
			[ -n "$plan" ] || verdict_fail "KTAP result before the plan: $line"
			[ -z "$tainted" ] || verdict_fail "KTAP result after the taint line: $line"
			[ "$num" = "$next" ] || verdict_fail "KTAP result $num out of order (expected $next)"
			[ "$name" = "${expected[num - 1]:-}" ] ||
				verdict_fail "KTAP result $num is $name, but test $num of the lane is ${expected[num - 1]:-none}"
			next=$((next + 1))
			if [ -n "${BASH_REMATCH[1]}" ]; then
				failed=$((failed + 1))
				first_failure=${first_failure:-"$name${reason:+: $reason}"}
			elif [ -n "${BASH_REMATCH[4]}" ]; then
				skipped=$((skipped + 1))
				skipped_tests+=("$name")
			else
				passed=$((passed + 1))
				passed_tests[$name]=1
			fi
			reason=''
			continue
		fi
		case $line in
		'KTAP version 1')
			[ -z "$seen_version" ] || verdict_fail "a second KTAP version line"
			seen_version=1
			;;
		1..*)
			if ! [[ ${line#1..} =~ ^[0-9]+$ ]] || [ -z "$seen_version" ] || [ -n "$plan" ]; then
				verdict_fail "bad or repeated KTAP plan: $line"
			fi
			plan=${line#1..}
			reason=''
			;;
		'# backend: '*) backend=${line#'# backend: '} ;;
		'# time: '*)
			if [[ $line =~ ^'# time: '([a-z0-9_]+)' '([0-9]+\.[0-9])$ ]]; then
				test_times+="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"$'\n'
			else
				verdict_fail "malformed test time: $line"
			fi
			;;
		'# taint allowed: '*)
			if [[ $line =~ ^'# taint allowed: '([0-9]+)' by '([a-z0-9_]+)$ ]]; then
				taint_by[${BASH_REMATCH[2]}]=${BASH_REMATCH[1]}
			else
				verdict_fail "malformed taint allowance: $line"
			fi
			;;
		'# tainted: '*)
			if [ -n "$tainted" ] || [ -z "$plan" ] || [ $((next - 1)) -ne "$plan" ]; then
				verdict_fail "taint line before the last KTAP result or twice: $line"
			fi
			tainted=${line#'# tainted: '}
			;;
		'#'*)
			if [ -z "$reason" ]; then
				reason=${line#'#'}
				reason=${reason# }
			fi
			;;
		'ok'* | 'not ok'*) verdict_fail "malformed KTAP result: $line" ;;
		'') ;;
		*) verdict_fail "unexpected line on the verdict channel: $line" ;;
		esac
	done <"$ktap"
	if [ -z "$seen_version" ] || [ -z "$plan" ]; then
		verdict_fail "no KTAP verdict on the verdict channel"
	elif [ "$plan" -ne "${#expected[@]}" ]; then
		verdict_fail "KTAP plan 1..$plan, but the lane runs ${#expected[@]} tests"
	elif [ $((next - 1)) -ne "$plan" ]; then
		verdict_fail "KTAP plan 1..$plan but $((next - 1)) results"
	fi
	[ "$failed" -eq 0 ] || verdict_fail "$failed test(s) not ok, first: $first_failure"
	check_skips "${expected[*]}" "${skipped_tests[@]}"
	for name in "${!taint_by[@]}"; do
		[ -z "${passed_tests[$name]:-}" ] || allowed=$((allowed | (taint_by[$name] & (32768 | 8))))
	done
	if ! [[ $tainted =~ ^[0-9]+$ ]]; then
		verdict_fail "guest did not report its taint value"
	elif [ $((tainted & ~allowed)) -ne 0 ]; then
		if [ "$allowed" -eq $((4096 | 8192)) ]; then
			verdict_fail "kernel tainted $tainted (only O=4096 and E=8192 allowed)"
		else
			verdict_fail "kernel tainted $tainted (only O=4096, E=8192 and $((allowed & ~(4096 | 8192))) announced by passed tests allowed)"
		fi
	fi
}

# check_skips "EXPECTED..." SKIPPED...: fails the lane unless the tests that
# skipped are exactly those of the expected ones the lane declares with
# skip=. A declared skip of a test the guest does not run is an error of
# the lane file, except when VMPCTL_VM_TESTS chose the tests.
check_skips() {
	local run_list=" $1 " name
	local -A seen=()
	shift
	for name in "$@"; do
		seen[$name]=1
		[ -n "${lane_skips[$name]:-}" ] ||
			verdict_fail "test $name skipped, and the lane does not declare that skip"
	done
	for name in "${!lane_skips[@]}"; do
		if [[ $run_list != *" $name "* ]]; then
			[ -n "$selected_tests" ] ||
				verdict_fail "the lane declares a skip of $name, which the guest does not run"
		elif [ -z "${seen[$name]:-}" ]; then
			verdict_fail "the lane declares that $name skips (${lane_skips[$name]}), but it did not"
		fi
	done
}

# The patterns of tests/vm/console-patterns and of the lane's
# console_patterns= file, comments and blank lines dropped.
console_patterns() {
	local file
	for file in "$vm_dir/console-patterns" ${lane_console_patterns:+"$top/$lane_console_patterns"}; do
		grep -vE '^[[:space:]]*(#|$)' "$file"
	done
}

# The console without the stack an OOM killer's report prints (from
# "invoked oom-killer:" to its "Killed process" line), its line left
# blank so that line numbers stay: a memcg at its limit is what several
# tests build, the kernel killing a task there is designed behaviour (the
# test sees its task killed), and its Call Trace is no kernel problem.
# Every other line of the report is still scanned.
console_without_oom_stacks() {
	tr -d '\r' <"$1" | awk '/invoked oom-killer:/ { oom = 1 }
		oom && /Call Trace/ { print ""; next }
		/Killed process [0-9]+/ { oom = 0 }
		{ print }'
}

check_console() {
	local hits
	hits=$(console_without_oom_stacks "$1" | grep -n -m5 -E -f <(console_patterns)) || return 0
	printf '%s\n' "$hits" >&2
	verdict_fail "kernel reported a problem: ${hits%%$'\n'*}"
}

in_ci() {
	case ${CI:-} in
	'' | 0 | false) return 1 ;;
	esac
}

lane_verdict() {
	if [ -n "$lane_fail" ]; then
		result=FAIL lane_state=fail
	elif [ -z "$lane_skip" ]; then
		result=pass lane_state=pass
	elif [ "$lane_tier" = 1 ]; then
		result=FAIL lane_state=fail lane_fail="a tier-1 lane cannot skip: $lane_skip"
	elif [ -n "$lane_may_skip" ]; then
		result=SKIP lane_state=skip
	elif in_ci; then
		result=FAIL lane_state=fail
		lane_fail="the lane skipped ($lane_skip), and its file does not declare may_skip="
	else
		result=SKIP lane_state=undeclared-skip
	fi
}
