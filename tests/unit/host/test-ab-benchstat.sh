#!/bin/bash
# vmpctl ab --export-benchstat FILE: Go's benchmark data format (the
# format benchstat reads), one line per whole run or per kept slice of an
# interleaved A/B, the arm as the sub-benchmark key /arm=. Every line is
# parsed by the format's rules. Debian packages no benchstat, so it is not
# run here. Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"

# go_format FILE: every line a configuration line ("key: value", the key
# lower-case first and without spaces or upper case) or a benchmark line
# ("BenchmarkNAME", NAME not starting lower-case, then iterations, then
# value-unit pairs); prints the lines that are neither.
go_format() {
	grep -Ev -e '^[a-z][^[:space:][:upper:]:]*: ' \
		-e $'^Benchmark[^a-z[:space:]][^[:space:]]*\t[0-9]+(\t-?[0-9.]+(e[-+][0-9]+)? [^[:space:]]+)+$' "$1"
}

# Interleaved: one line per slice of a kept pair, as many of A as of B.
"$VMPCTL" ab -q -j --knob "$knob" --interleave 0.1 --max-flip 5 -n 6 --export-benchstat "$scratch/il" -- \
	"$VMPCTL" pft --size 4M --duration 30 --report-interval 0.01 >"$scratch/il.json"
check "interleaved: ab exits 0" [ $? -eq 0 ]
kept=$(sed -n 's/.*"pairs":{"kept":\([0-9]*\).*/\1/p' "$scratch/il.json")
check "interleaved: every line in Go's benchmark format" [ -z "$(go_format "$scratch/il")" ]
check "interleaved: the knob as a configuration line" grep -qx "knob: $knob" "$scratch/il"
check "interleaved: one line of arm A per kept pair ($kept)" \
	[ "$(grep -c '^BenchmarkAB/arm=A	1	[0-9.e+]* rate$' "$scratch/il")" = "$kept" ]
check "interleaved: one line of arm B per kept pair ($kept)" \
	[ "$(grep -c '^BenchmarkAB/arm=B	1	[0-9.e+]* rate$' "$scratch/il")" = "$kept" ]

# Whole runs: the metric (its name one word as the unit) and the times.
"$VMPCTL" ab -q --knob "$knob" -n 3 -w 0 --metric 'x ([0-9]+)' --metric-name 'my metric' \
	--export-benchstat "$scratch/runs" -- sh -c 'echo x $(( $(cat "$1") ? 5 : 7 ))' sh "$knob" >/dev/null
check "whole runs: ab exits 0" [ $? -eq 0 ]
check "whole runs: every line in Go's benchmark format" [ -z "$(go_format "$scratch/runs")" ]
check "whole runs: 3 runs of A, each its metric 5 and times" \
	[ "$(grep -Ec $'^BenchmarkAB/arm=A\t1\t5 my_metric\t[0-9.e-]+ wall-sec\t[0-9.e-]+ user-sec\t[0-9.e-]+ sys-sec$' "$scratch/runs")" = 3 ]
check "whole runs: 3 runs of B, each its metric 7" \
	[ "$(grep -Ec $'^BenchmarkAB/arm=B\t1\t7 my_metric\t' "$scratch/runs")" = 3 ]

check "an unwritable file is an error" \
	bash -c '! "$1" ab -q --knob "$2" -n 2 -w 0 --export-benchstat /nonexistent/x -- true >/dev/null 2>&1' \
	sh "$VMPCTL" "$knob"

finish
