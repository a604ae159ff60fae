#!/bin/bash
# fleet-score.sh KNOB EFFECT STATE: a fake benchmark for the fleet tests
# (test-ab-merge.sh, test-ansible-fleet.sh). Prints "score N": 100000
# when KNOB holds 0 (arm A), EFFECT per mille more when it holds 1 (arm B),
# plus uniform noise of +-1%. STATE counts the runs and seeds the noise, so
# a host whose STATE starts elsewhere has other noise, and a rerun the same.
knob=$1 effect=$2 state=$3
run=$(($(cat "$state" 2>/dev/null || echo 0) + 1))
echo "$run" >"$state"
RANDOM=$run
score=100000
[ "$(cat "$knob")" = 1 ] && score=$((score * (1000 + effect) / 1000))
echo "score $((score + RANDOM % 2001 - 1000))"
