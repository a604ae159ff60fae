#!/bin/bash
# tools/vmpctl.bash-completion: complete a few command lines with the
# completion function as bash would call it, and check that for every
# command the options it offers are the ones `vmpctl CMD --help` lists.
# Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/vmpctl.bash-completion
. "$TOOLS/vmpctl.bash-completion"

# complete WORD...: COMPREPLY for the last word, sorted, on one line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	_vmpctl
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

expect() {
	local want=$1 got
	shift
	got=$(complete_words "$@")
	if [ "$got" = "$want" ]; then pass "complete '$*' -> $want"; else
		fail "complete '$*': got '$got', expected '$want'"; fi
}

check "vmpctl has a completion function" [ "$(complete -p vmpctl)" = "complete -F _vmpctl vmpctl" ]
expect "check" vmpctl ch
expect "ab" vmpctl a
expect "disable" vmpctl dis
expect "--help --version" vmpctl --
expect "--level --limit" vmpctl check --l
expect "critical" vmpctl measure --level cr
expect "hierarchy" vmpctl watch -m h
expect "abba random" vmpctl ab --order ""
expect "--metric --metric-name" vmpctl ab --met
expect "--memcg-limit" vmpctl pft --mem
mkdir "$scratch/cg" "$scratch/cg/app"
expect "$scratch/cg/app" vmpctl watch --cgroup "$scratch/cg/a"
printf 'always [madvise] never\n' >"$scratch/thp"
expect "madvise" vmpctl ab --knob "$scratch/thp" --a m
expect "always" vmpctl ab -k "$scratch/thp" --a madvise --b al
# after "--": the command to run, then its arguments (files)
mkdir "$scratch/bin"
touch "$scratch/bin/vmpctl-test-command"
chmod +x "$scratch/bin/vmpctl-test-command"
PATH=$scratch/bin:$PATH
expect "vmpctl-test-command" vmpctl ab -n 3 -- vmpctl-test-c
touch "$scratch/input.txt"
expect "$scratch/input.txt" vmpctl ab -- cat "$scratch/inp"

# The options offered are exactly those --help documents (long and short).
for cmd in status enable disable measure check watch ab pft; do
	documented=$("$VMPCTL" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' |
		tr -s ', ' '\n' | grep . | sort -u | tr '\n' ' ')
	offered=$(_vmpctl_options "$cmd" | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ')
	if [ "$documented" = "$offered" ]; then
		pass "$cmd: completion offers what --help lists"
	else
		fail "$cmd: --help lists [$documented], completion offers [$offered]"
	fi
done

finish
