#!/bin/bash
# The tables of vmpctl ab and ab report (libsmartcols): the comparisons
# at most 100 characters wide, counted as characters, not bytes, also with
# a metric name in UTF-8 longer than a line (the summary of whole runs
# wraps its text too, but its eight columns of figures, never cut, are
# wider than that by themselves); --raw, --noheadings and --output
# COLUMNS as util-linux prints them; an --output column no table has is a
# usage error (exit 2) named on stderr. Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the command vmpctl runs expands its own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

export LC_ALL=C.UTF-8
knob=$scratch/knob
printf '1\n' >"$knob"
name="latence µs — une étiquette bien plus large que ce qu'une ligne de cent caractères peut montrer"
metric_cmd='k=$(cat "$1"); echo "x $(( (k ? 10 : 12) + RANDOM % 3 ))"'

"$VMPCTL" ab -q --knob "$knob" -n 6 -w 0 --metric 'x ([0-9]+)' --metric-name "$name" \
	--save "$scratch/runs" -- sh -c "$metric_cmd" sh "$knob" >"$scratch/table"
check "ab: exit 0" [ $? -eq 0 ]
# the comparisons: from a "metric ... B vs A" header line to the line
# before the next blank line or prose (a colon and a blank: no cell has one)
tables=$(awk '/^metric +B vs A/ { t = 1 } /^$/ || /: / { t = 0 } t' "$scratch/table")
# wc -L: the widest line's width in characters of the locale (UTF-8)
widest=$(wc -L <<<"$tables")
check "ab: the tables are at most 100 characters wide (widest line: $widest)" \
	[ "$widest" -le 100 ]
check "ab: two comparisons" [ "$(grep -c '^metric ' <<<"$tables")" -eq 2 ]
check "ab: some table line is over 100 bytes: characters were counted" \
	[ "$(LC_ALL=C awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' <<<"$tables")" -gt 100 ]
check "ab: the metric's name is in the table, wrapped" grep -q "latence µs" <<<"$tables"

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

finish
