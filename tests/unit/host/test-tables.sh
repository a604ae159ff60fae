#!/bin/bash
# The tables of vmpctl ab and ab report (libsmartcols): every table line
# at most 100 characters wide, counted as characters, not bytes, with the
# widest figures a real A/B gives (values near -1.2e9, a target with two
# decimals, a metric name in UTF-8 longer than a line, which wraps):
# whole runs, interleaved slices and a baseline comparison; the columns
# that would not fit (min, max, cover, Welch t, U p, t p, W p) only when
# --output names them; --raw, --noheadings and --output COLUMNS as
# util-linux prints them; an --output column no table has is a usage
# error (exit 2) named on stderr; check, net and pft take the same
# options (measure prints no table). Inputs and output: see lib.sh, and
# AA_WORKLOAD, the fake workload that prints rate lines.
# shellcheck disable=SC2016 # the command vmpctl runs expands its own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"
: "${AA_WORKLOAD:?set AA_WORKLOAD to the aa-workload binary}"

export LC_ALL=C.UTF-8
knob=$scratch/knob
printf '1\n' >"$knob"
name="latence µs — une étiquette bien plus large que ce qu'une ligne de cent caractères peut montrer"
# big negative values with noise: ten characters a figure ("-1.216e+09")
metric_cmd='k=$(cat "$1"); echo "x -$(( (k ? 1000000000 : 1200000000) + RANDOM * 1000 )).123456"'

# table_lines FILE: the lines of FILE's tables, from a header line (it
# starts with "metric" or "arm" and two blanks) to the next blank line or
# line of prose (a colon and a blank: no cell has one).
table_lines() {
	awk '/^(metric|arm)  / { t = 1 } /^$/ || /: / { t = 0 } t' "$1"
}

# fits WHAT FILE: every table line of FILE at most 100 characters (wc -L
# counts the characters of the locale, UTF-8).
fits() {
	local widest
	widest=$(table_lines "$2" | wc -L)
	check "$1: the tables are at most 100 characters wide (widest line: $widest)" \
		[ "$widest" -le 100 ]
}

"$VMPCTL" ab -q --knob "$knob" -n 6 -w 0 --target 0.25% --metric 'x (-?[0-9.]+)' \
	--metric-name "$name" --save "$scratch/runs" -- bash -c "$metric_cmd" sh "$knob" \
	>"$scratch/table"
check "ab: exit 0" [ $? -eq 0 ]
fits "ab, whole runs" "$scratch/table"
tables=$(table_lines "$scratch/table")
check "ab: a summary, a comparison and the blocks" [ "$(grep -c '^metric ' <<<"$tables")" -eq 3 ]
check "ab: some table line is over 100 bytes: characters were counted" \
	[ "$(LC_ALL=C awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' <<<"$tables")" -gt 100 ]
check "ab: the metric's name is in the table, wrapped" grep -q "latence µs" <<<"$tables"
check "ab: the figures have four significant digits" grep -q -- "-1\.[0-9][0-9][0-9]e+09 " <<<"$tables"
check "ab: min, max, cover and U p only on request" \
	not_grep "^metric .*\( min \| max \|cover\|U p\|Welch t\)" "$scratch/table"
"$VMPCTL" ab report --output metric,arm,min,max,cover,welch-t,u-p "$scratch/runs" >"$scratch/all"
check "ab report --output min,max,cover,welch-t,u-p: printed" \
	grep -qE '^metric +arm +min +max +cover$' "$scratch/all"
check "ab report --output welch-t,u-p: printed" grep -qE '^metric +Welch t +U p$' "$scratch/all"

"$VMPCTL" ab -q --knob "$knob" -n 6 -w 0 --metric 'x (-?[0-9.]+)' --metric-name "$name" \
	--save "$scratch/runs2" -- bash -c "$metric_cmd" sh "$knob" >/dev/null
"$VMPCTL" ab report --baseline "$scratch/runs2" "$scratch/runs" >"$scratch/baseline"
check "ab report --baseline: exit 0" [ $? -eq 0 ]
check "ab report --baseline: its table" grep -q '^arm  *baseline mean' "$scratch/baseline"
fits "ab report --baseline" "$scratch/baseline"

printf 'x\n' >"$knob"
"$VMPCTL" ab -q --knob "$knob" --a x --b y --interleave 0.02 -n 20 --long-every 5 \
	--target 0.25% --metric-name "$name" --seed 1 -- "$AA_WORKLOAD" 1 0.002 30 \
	>"$scratch/slices"
check "ab --interleave: exit 0" [ $? -eq 0 ]
fits "ab --interleave" "$scratch/slices"
check "ab --interleave: a summary and a comparison" \
	[ "$(table_lines "$scratch/slices" | grep -c '^metric ')" -eq 2 ]
check "ab --interleave: t p and W p only on request" \
	not_grep "^metric .*\(t p\|W p\)" "$scratch/slices"

"$VMPCTL" ab report --output metric,b-vs-a,p "$scratch/runs" >"$scratch/chosen"
check "ab report --output: exit 0" [ $? -eq 0 ]
check "ab report --output: the columns asked for, in that order" \
	grep -qE '^metric +B vs A +p$' "$scratch/chosen"
check "ab report --output: no other column" \
	not_grep "^metric .*\(Welch t\|95% CI\|stddev\|arm\)" "$scratch/chosen"

"$VMPCTL" ab report --raw --noheadings --output arm,n "$scratch/runs" >"$scratch/raw"
check "ab report --raw --noheadings: cells one space apart, no header" \
	grep -qx 'A 6' "$scratch/raw"
check "ab report --raw --noheadings: the other arm" grep -qx 'B 6' "$scratch/raw"
check "ab report --noheadings: no header line" not_grep '^arm n$' "$scratch/raw"

"$VMPCTL" ab report --output metric,no-such-column "$scratch/runs" >"$scratch/out" 2>"$scratch/err"
check "ab report --output no-such-column: exit 2" [ $? -eq 2 ]
check "ab report --output no-such-column: says which" \
	grep -qx "vmpctl: ab report: --output: no table has a column 'no-such-column' (see COLUMNS in vmpctl(1))" \
	"$scratch/err"
check "ab report --output no-such-column: no report" [ ! -s "$scratch/out" ]
"$VMPCTL" ab --output bogus -- true 2>"$scratch/err"
check "ab --output bogus: exit 2 before anything runs" [ $? -eq 2 ]

# check, net and pft take the same three options for their tables
"$VMPCTL" pft --size 4M --raw --noheadings --output thr,rep >"$scratch/pft"
check "pft --raw --noheadings --output thr,rep: exit 0" [ $? -eq 0 ]
check "pft --raw --noheadings --output thr,rep: those cells only" grep -qx '1 1' "$scratch/pft"
"$VMPCTL" net --output bogus 2>"$scratch/err"
check "net --output bogus: exit 2 before anything runs" [ $? -eq 2 ]
check "net --output bogus: says which" grep -q "net: --output: no table has a column 'bogus'" \
	"$scratch/err"
"$VMPCTL" check --output sock-throttled,no-such-column 2>/dev/null
check "check --output no-such-column: exit 2 before anything runs" [ $? -eq 2 ]
"$VMPCTL" measure --raw 2>"$scratch/err"
check "measure --raw: exit 2, measure prints no table" [ $? -eq 2 ]
check "measure --raw: says so" grep -q "measure: unknown option --raw" "$scratch/err"

finish
