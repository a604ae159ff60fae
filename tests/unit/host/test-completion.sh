#!/bin/bash
# Every command's options, three ways: tools/vmpctl.bash-completion
# completes a few command lines (called as bash would call it) and offers
# exactly the options `vmpctl CMD --help` lists; the man page documents
# each of them in that command's section; and a short option means the
# same in every command. Inputs and output: see lib.sh.
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
expect "--seconds" vmpctl net --sec
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

# Every preset of the source table (tools/ab/source_list.h: a source whose
# ops are of the preset family) is in ab --help, which prints them from
# the table, and is offered after --preset, where this file lists them by
# hand: a new preset fails here until both name it.
has_word() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}
table_presets=()
while read -r source; do
	file=$TOOLS/ab/source_$source.c
	grep -q 'AB_SOURCE_PRESET' "$file" &&
		table_presets+=("$(sed -nE 's/^\t\.name = "([^"]+)",$/\1/p' "$file")")
done < <(sed -nE 's/^AB_SOURCE\(([a-z0-9_]+)\)$/\1/p' "$TOOLS/ab/source_list.h")
check "the source table has presets (${table_presets[*]})" [ "${#table_presets[@]}" -ge 4 ]
help_presets=$("$VMPCTL" ab --help | grep -A 1 -e '--preset NAME' | tail -n 1 | tr -d ',')
offered_presets=$(complete_words vmpctl ab --preset "")
for preset in "${table_presets[@]}"; do
	check "ab --help lists the preset $preset" has_word "$preset" "$help_presets"
	check "completion offers the preset $preset" has_word "$preset" "$offered_presets"
done
expect "$(printf '%s\n' "${table_presets[@]}" | sort | tr '\n' ' ' | sed 's/ $//')" \
	vmpctl ab --preset ""

# The options offered are exactly those --help documents (long and short).
for cmd in status enable disable measure check watch ab pft net; do
	documented=$("$VMPCTL" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' |
		tr -s ', ' '\n' | grep . | sort -u | tr '\n' ' ')
	offered=$(_vmpctl_options "$cmd" | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ')
	if [ "$documented" = "$offered" ]; then
		pass "$cmd: completion offers what --help lists"
	else
		fail "$cmd: --help lists [$documented], completion offers [$offered]"
	fi
done

# Each command's section of the man page (check shares measure's options,
# the toggles share one section) names every option --help lists.
man_section() {
	awk -v title="$1" '
		/^\.S[SH] / { inside = ($0 == ".SS " title) }
		inside' "$TOOLS/vmpctl.1"
}
for cmd in status enable measure check watch ab pft net; do
	case $cmd in
	enable) title="enable, on, disable, off" ;;
	check) title=measure ;;
	*) title=$cmd ;;
	esac
	section=$(man_section "$title")
	missing=""
	[ -n "$section" ] || missing=" (no section)"
	for opt in $("$VMPCTL" "$cmd" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' |
		grep -oE -- '--[a-z-]+' | sort -u); do
		grep -qF -- "${opt//-/\\-}" <<<"$section" || missing="$missing $opt"
	done
	check "man page, section $title: documents every option of $cmd${missing:+ (missing:$missing)}" \
		[ -z "$missing" ]
done

# A short option means the same long option wherever it exists.
pairs=$(for cmd in status enable measure check watch ab pft net; do
	"$VMPCTL" "$cmd" --help | grep -oE '^ +-[a-zA-Z], --[a-z-]+' | tr -d ' ,'
done | sort -u)
clashes=$(cut -c1-2 <<<"$pairs" | uniq -d | tr '\n' ' ')
check "short options mean one thing in every command${clashes:+ (clashes: $clashes)}" \
	[ -z "$clashes" ]

finish
