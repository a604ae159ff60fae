#!/bin/bash
# ab --interleave --sequential through the real command, on fake workloads
# that read the knob: each of the three ends (an effect, no difference
# larger than --target, the time limit) is reached and named in the
# report's "sequential:" line with its always-valid interval, and the
# options it needs are asked for. The calibration itself is
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

# rate lines every 0.02 s: 1000 per second (B: times $1%), +-5% noise
workload='while :; do
	r=$((1000 * 100 + RANDOM % 10000 - 5000))
	read -r arm <"$2"
	[ "$arm" = 0 ] && r=$((r * $1 / 100))
	echo "rate=$((r / 100))"; sleep 0.02
done'

# seq_run B-PERCENT TARGET MAX-TIME: the report in $scratch/out
seq_run() {
	local started=$SECONDS
	"$VMPCTL" ab -q --knob "$knob" --interleave 0.5 --max-flip 5 -w 1 --seed 5 \
		--sequential --target "$2" -T "$3" --rate-regex 'rate=([0-9]+)' -- \
		bash -c "$workload" sh "$1" "$knob" >"$scratch/out" 2>"$scratch/err"
	status=$?
	took=$((SECONDS - started))
	line=$(grep '^sequential:' "$scratch/out")
}

seq_run 110 2% 60
check "B 10% faster: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
check "B 10% faster: ended by an effect ($line)" \
	starts "$line" "sequential: ended by an effect after "
check "B 10% faster: well before -T 60 (${took} s)" [ "$took" -lt 30 ]
check "B 10% faster: the always-valid CI excludes 0 ($line)" \
	grep -Eq '^sequential: .* CI \[\+[0-9.]+%, \+[0-9.]+%\]' "$scratch/out"

seq_run 100 5% 60
check "A/A: ended by no difference larger than 5% ($line)" \
	starts "$line" "sequential: ended by no difference larger than 5% after "
check "A/A: well before -T 60 (${took} s)" [ "$took" -lt 30 ]
check "A/A: the CI lies inside +-5% ($line)" \
	grep -Eq '^sequential: .* CI \[-[0-4]\.[0-9]+%, \+[0-4]\.[0-9]+%\]' "$scratch/out"

seq_run 100 0.1% 3
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

finish
