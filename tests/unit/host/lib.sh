# shellcheck shell=bash
# Helpers for the host tests (sourced by host/test-*.sh): a scratch
# directory, assertions that name what failed, and a check counter.
# Inputs (from tests/unit/Makefile): VMPCTL, the vmpctl to test;
# JSON_VALID, the JSON checker; TOOLS, the tools/ directory.
# Output: "ok"/"FAIL" lines; the script exits 1 when a check failed.
set -u

: "${VMPCTL:?set VMPCTL to the vmpctl binary to test}"
scratch=$(mktemp -d /tmp/vmpctl-host.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

pass() {
	echo "ok: $*"
}

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# The exact bytes of a file, as od shows them (for comparisons and messages).
bytes() {
	od -An -c "$1" | tr -s ' \n' ' '
}

# same_bytes FILE EXPECTED-FILE
same_bytes() {
	cmp -s "$1" "$2" || {
		echo "  $1 holds [$(bytes "$1")], expected [$(bytes "$2")]"
		return 1
	}
}

# equal WHAT GOT EXPECTED
equal() {
	[ "$2" = "$3" ] || {
		echo "  $1: got [$2], expected [$3]"
		return 1
	}
}

# not_grep PATTERN FILE...: passes when no FILE has PATTERN; shows those that do.
not_grep() {
	local pattern=$1
	shift
	! grep -H -- "$pattern" "$@"
}

# wait_for_content FILE TEXT: up to 10 s until FILE holds TEXT and a newline.
wait_for_content() {
	local _
	for _ in $(seq 200); do
		[ "$(cat "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05
	done
	echo "  $1 never held '$2' (holds [$(bytes "$1")])"
	return 1
}

# wait_for_file FILE: up to 10 s until FILE is not empty.
wait_for_file() {
	local _
	for _ in $(seq 200); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	echo "  $1 never appeared"
	return 1
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$(basename "$0"): $failures check(s) failed"
		exit 1
	fi
	echo "$(basename "$0"): all checks passed"
}
