#!/bin/bash
# ab --interleave --sequential through the real command, on fake workloads
# that read the knob: each of the three ends (an effect, no difference
# larger than --target, the time limit) is reached and named in the
# report's "sequential:" line with its always-valid interval, and in the
# JSON --save keeps; a --covariate is used, and one the knob changes is
# refused; and the options it needs are asked for. The calibration itself is
# test_stats_seq's (cmocka). Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
# shellcheck disable=SC2016 # the command vmpctl runs expands its own $1
. "$(dirname "$0")/lib.sh"

# starts LINE PREFIX
starts() {
	[[ $1 == "$2"* ]]
}

knob=$scratch/knob
printf '1\n' >"$knob"

# Rate lines every 0.02 s: 1000 per second (B: times $1%), +-3% noise
# and a disturbance of +-2% that changes every 12 lines; the counter in
# file $4, the covariate, grows with the disturbance (B: times $2%; 100:
# the knob cannot change it).
workload='d=100 c=0 i=0
while :; do
	[ $((i++ % 12)) = 0 ] && d=$((98 + RANDOM % 5))
	read -r arm <"$3"
	r=$((1000 * d + RANDOM % 6000 - 3000)) g=$((100 * d))
	[ "$arm" = 0 ] && r=$((r * $1 / 100)) g=$((g * $2 / 100))
	c=$((c + g)); echo "$c" >"$4.new"; mv "$4.new" "$4"
	echo "rate=$((r / 100))"; sleep 0.02
done'

# seq_run B-PERCENT B-COVARIATE-PERCENT TARGET MAX-TIME: the report in
# $scratch/out, --save's file $scratch/save
seq_run() {
	local started=$SECONDS cov=$scratch/covariate
	echo 0 >"$cov"
	"$VMPCTL" ab -q --knob "$knob" --interleave 0.5 --max-flip 5 -w 1 --seed 5 \
		--sequential --target "$3" -T "$4" --covariate "$cov" --save "$scratch/save" \
		--rate-regex 'rate=([0-9]+)' -- \
		bash -c "$workload" sh "$1" "$2" "$knob" "$cov" >"$scratch/out" 2>"$scratch/err"
	status=$?
	took=$((SECONDS - started))
	line=$(grep '^sequential:' "$scratch/out")
	cov_line=$(grep '^covariate ' "$scratch/out")
	last=$(tail -n 1 "$scratch/save")
}

seq_run 110 100 2% 60
check "B 10% faster: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
check "B 10% faster: ended by an effect ($line)" \
	starts "$line" "sequential: ended by an effect after "
check "B 10% faster: well before -T 60 (${took} s)" [ "$took" -lt 30 ]
check "B 10% faster: the always-valid CI excludes 0 ($line)" \
	grep -Eq '^sequential: .* CI \[\+[0-9.]+%, \+[0-9.]+%\]' "$scratch/out"
check "B 10% faster: the covariate is balanced and used ($cov_line)" \
	grep -Eq '^covariate .*: B vs A .*; balanced so far, used \(order and drift alone took' "$scratch/out"
check "--save: its last record names the rule that ended the run" \
	grep -q '"sequential":{"ended_by":"effect",' <<<"$last"
check "--save: ... the always-valid interval, above 0" \
	grep -Eq '"always_valid_ci_pct":\[[0-9.]+,[0-9.]+\]' <<<"$last"
check "--save: ... and the covariate, not refused" \
	grep -q '"adjusted_for":"covariate",.*"covariate":{"counter":"[^"]*","refused":false' <<<"$last"

seq_run 100 300 5% 60
check "A/A: ended by no difference larger than 5% ($line)" \
	starts "$line" "sequential: ended by no difference larger than 5% after "
check "A/A: well before -T 60 (${took} s)" [ "$took" -lt 30 ]
check "A/A: the CI lies inside +-5% ($line)" \
	grep -Eq '^sequential: .* CI \[-[0-4]\.[0-9]+%, \+[0-4]\.[0-9]+%\]' "$scratch/out"
check "A/A, a covariate the knob triples: refused ($cov_line)" \
	grep -Eq '^covariate .*: B vs A \+[0-9.]+%, .*; refused: the knob changes it' "$scratch/out"
check "A/A, a covariate the knob triples: the answer is adjusted for order and drift only ($line)" \
	grep -Eq '^sequential: .*; order and drift took -?[0-9]+% of the variance$' "$scratch/out"
check "--save: the covariate refused" \
	grep -q '"adjusted_for":"order",.*"covariate":{"counter":"[^"]*","refused":true' <<<"$last"

seq_run 100 100 0.1% 3
check "A/A, target 0.1%, -T 3: ended by the time limit ($line)" \
	starts "$line" "sequential: ended by the time limit (--max-time) after "
check "the knob is back at A" [ "$(cat "$knob")" = 1 ]

usage() {
	local what=$1 out status
	shift
	out=$("$VMPCTL" ab --knob "$knob" "$@" 2>&1)
	status=$?
	check "usage: $what: status 2 (status $status)" [ "$status" -eq 2 ]
	check "usage: $what: says what it needs ($out)" \
		starts "$out" "vmpctl: ab: --sequential needs --interleave and --target"
}
usage "--sequential needs --target" --interleave 1 --sequential -- true
usage "--sequential needs --interleave" --sequential --target 2% -- true
usage "--sequential replaces --until-precision" --interleave 1 --sequential --target 2% -p 1% -- true
out=$("$VMPCTL" ab --knob "$knob" --interleave 1 --covariate /proc/vmstat:pgfault -- true 2>&1)
status=$?
check "usage: --covariate needs --sequential: status 2 (status $status)" [ "$status" -eq 2 ]
check "usage: --covariate needs --sequential ($out)" \
	starts "$out" "vmpctl: ab: --covariate needs --sequential"

finish
