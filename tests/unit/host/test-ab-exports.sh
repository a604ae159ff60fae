#!/bin/bash
# vmpctl ab --export-json/--export-csv/--export-markdown FILE: the report
# also in files, beside the terminal's: the JSON and CSV exactly what
# --json and --csv print, the Markdown a table with a row per metric; for
# whole runs and interleaved alike. Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"
# metric 10 in arm A (knob 1), 0 in arm B (knob 0): B better (lower)
metric_cmd='echo "x $(( $(cat "$1") * 10 ))"'

"$VMPCTL" ab -q --json --knob "$knob" -n 3 -w 0 --metric 'x ([0-9]+)' \
	--export-json "$scratch/e.json" --export-markdown "$scratch/e.md" \
	-- sh -c "$metric_cmd" sh "$knob" >"$scratch/stdout.json"
check "whole runs: exit 0" [ $? -eq 0 ]
check "--export-json: what --json printed" same_bytes "$scratch/e.json" "$scratch/stdout.json"
check "--export-json: valid JSON" "$JSON_VALID" <"$scratch/e.json"
check "--export-markdown: the table's header" \
	grep -qxF '| metric | A mean | B mean | B vs A | 95% CI | p | verdict |' "$scratch/e.md"
check "--export-markdown: the metric's row, B better" \
	grep -Eq '^\| metric \| 10 \| 0 \| -100\.00% \| .* \| B better \|$' "$scratch/e.md"
check "--export-markdown: the header and a row for each of the 4 metrics" \
	[ "$(grep -c '^| ' "$scratch/e.md")" -eq 5 ]

"$VMPCTL" ab -q --csv --knob "$knob" -n 2 -w 0 --seed 3 --order random \
	--export-csv "$scratch/e.csv" -- true >"$scratch/stdout.csv"
check "--export-csv: the CSV --csv printed" \
	[ "$(head -n 1 "$scratch/e.csv")" = "$(head -n 1 "$scratch/stdout.csv")" ] &&
	[ "$(wc -l <"$scratch/e.csv")" -eq "$(wc -l <"$scratch/stdout.csv")" ]

"$VMPCTL" ab -q --knob "$knob" --interleave 0.05 --max-flip 5 -n 6 \
	--export-json "$scratch/il.json" --export-markdown "$scratch/il.md" -- \
	"$VMPCTL" pft --size 4M --duration 30 --report-interval 0.005 >/dev/null
check "interleaved: exit 0" [ $? -eq 0 ]
check "interleaved --export-json: valid, the interleaved report" \
	grep -q '"mode":"interleave"' "$scratch/il.json"
check "interleaved --export-markdown: the rate's row" \
	grep -Eq '^\| rate \| [0-9.e+]+ \| [0-9.e+]+ \| [-+][0-9.]+% \|' "$scratch/il.md"

"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 --export-csv "$scratch/no/such/dir" \
	-- true >/dev/null 2>"$scratch/err"
check "unwritable export: exit 1" [ $? -eq 1 ]
check "unwritable export: says which" grep -q -- "--export-csv: .*cannot be written" "$scratch/err"
check "unwritable export: the knob as found" [ "$(cat "$knob")" = 1 ]

finish
