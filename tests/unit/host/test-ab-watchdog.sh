#!/bin/bash
# Runs always end (issue 31). ab --interleave on a command that stops
# printing: the no-progress watchdog, on by default, ends it, signals the
# command's process group, prints the partial report and the --save
# file's last line, and exits 5. Whole runs: --run-timeout kills a run
# that hangs (its process group) and counts it as a loss of its arm;
# without it, the default limit does (at -T's end), the first run's too.
# Attach mode (--pid without a command) never signals the process it
# watches, whoever ends the A/B: --max-time, the watchdog (a counter that
# stopped with --stall-timeout) or a stop signal. Each vmpctl runs under
# timeout(1), so that a run that would never end fails instead of
# hanging the suite. Inputs and output: see lib.sh, and AA_WORKLOAD.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"
: "${AA_WORKLOAD:?set AA_WORKLOAD to the aa-workload binary}"

knob=$scratch/knob
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"

# ended PID: no such process, or a zombie (its parent, ended too, cannot
# reap it, and a container's init may never)
ended() {
	[ -n "$1" ] && { ! kill -0 "$1" 2>/dev/null ||
		[ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }
}

# all_ended FILE: every pid in FILE ended; wait_ended FILE: up to 2 s for it
all_ended() {
	local pid
	while read -r pid; do ended "$pid" || return 1; done <"$1"
}
wait_ended() {
	for _ in $(seq 40); do all_ended "$1" && return; sleep 0.05; done
}

# --- interleaved: a command that hangs after 4 s, with a child of its own
# in its process group that would outlive it ---
cmd='sleep 1000 & echo $! >"$1"; exec "$2" --hang-after 4 7 0.02 600'
timeout 60 "$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 \
	--save "$scratch/save" -- sh -c "$cmd" sh "$scratch/child" "$AA_WORKLOAD" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "hung command: exit 5, the watchdog's (status $status: $(tail -n 3 "$scratch/err"))" \
	[ "$status" -eq 5 ]
check "hung command: the watchdog said why" \
	grep -q 'made no progress for [5-9][0-9.]* s (20 times its median report interval of 0.02 s, at least two slices and 5 s; --stall-timeout sets it): the watchdog ended the run' "$scratch/err"
check "hung command: the partial report on stdout" grep -Eq '^rate +[*( ]*[+-]?[0-9.]+%' "$scratch/out"
check "hung command: --save ends with the report" \
	grep -q '"mode":"interleave".*"metric":{' <(tail -n 1 "$scratch/save")
check "hung command: the child in its process group was ended too" ended "$(cat "$scratch/child")"
check "hung command: knob restored" same_bytes "$knob" "$scratch/found"

# --stall-timeout sets the limit.
timeout 60 "$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 \
	--stall-timeout 1.5 -- "$AA_WORKLOAD" --hang-after 3 7 0.02 600 \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "--stall-timeout 1.5: exit 5 (status $status)" [ "$status" -eq 5 ]
check "--stall-timeout 1.5: said, after 1.5 s or a little more" \
	grep -Eq 'made no progress for (1\.[5-9]|[2-9])[0-9.]* s \(--stall-timeout\)' "$scratch/err"

# --- whole runs: arm B's first 7 runs hang; --run-timeout kills each (its
# group), and 7 of 17 against 0 of 17 (each dropped AB block runs AB
# again) is B's loss ---
printf '0\n' >"$scratch/hangs"
cmd='if [ "$(cat "$1")" = 0 ] && [ "$(cat "$2")" -lt 7 ]; then
	echo $(($(cat "$2") + 1)) >"$2"; sleep 1000 & echo $! >>"$3"; wait; fi; echo "x 10"'
timeout 120 "$VMPCTL" ab -q --knob "$knob" -n 10 -w 0 --ignore-failure --run-timeout 0.5 \
	--metric 'x ([0-9]+)' --save "$scratch/save" -- \
	sh -c "$cmd" sh "$knob" "$scratch/hangs" "$scratch/sleeps" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "hanging B runs, --run-timeout: exit 1, B fails more (status $status: $(tail -n 2 "$scratch/err"))" \
	[ "$status" -eq 1 ]
check "... each killed run said so" \
	grep -q 'run [0-9]* (arm B): sh ran over 0.5 s (--run-timeout) and was killed with its process group' "$scratch/err"
check "... counted by arm as timed out" \
	grep -Eq '^losses by arm: A 0 of [0-9]+ runs \(failed 0, timed out 0\); B 7 of 17 runs \(failed 0, timed out 7\)' "$scratch/out"
check "... NO VERDICT, B fails more" grep -q '^NO VERDICT: losses depend on the arm: B fails more: 7 of 17' "$scratch/out"
check "... in --save's last line" \
	grep -q '"b":{"runs":17,"failed":0,"timed_out":7,"lost":7}' <(tail -n 1 "$scratch/save")
# their own sleeps (other tests may run sleep 1000 meanwhile)
wait_ended "$scratch/sleeps"
check "... no sleep of theirs left ($(wc -l <"$scratch/sleeps") started)" all_ended "$scratch/sleeps"
"$VMPCTL" ab report "$scratch/save" >"$scratch/again" 2>/dev/null
check "... ab report counts them again" grep -q 'B 7 of 17 runs (failed 0, timed out 7)' "$scratch/again"

# Without --ignore-failure a run over the timeout ends the A/B: exit 5.
printf '0\n' >"$scratch/hangs"
timeout 60 "$VMPCTL" ab -q --knob "$knob" -n 3 -w 0 --run-timeout 0.5 \
	--metric 'x ([0-9]+)' -- sh -c "$cmd" sh "$knob" "$scratch/hangs" "$scratch/sleeps" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "a run over --run-timeout, no --ignore-failure: exit 5 (status $status)" [ "$status" -eq 5 ]
check "... knob restored" same_bytes "$knob" "$scratch/found"

# --- whole runs without --run-timeout: a run that hangs still ends, at
# -T's end (before any run ended, and after 10 times the longest run) ---
printf '0\n' >"$scratch/count"
cmd='n=$(($(cat "$1") + 1)); echo $n >"$1"
	[ "$n" -le "$2" ] || { sleep 1000 & echo $! >"$3"; wait; }; echo "x 10"'
timeout 30 "$VMPCTL" ab -q --knob "$knob" -n 100 -w 0 -T 3 --metric 'x ([0-9]+)' \
	--save "$scratch/save" -- sh -c "$cmd" sh "$scratch/count" 4 "$scratch/child" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "the fifth run hangs, no --run-timeout: exit 5 (status $status: $(tail -n 2 "$scratch/err"))" \
	[ "$status" -eq 5 ]
check "... killed at -T's end, and said so" \
	grep -Eq 'run 5 \(arm A\): sh ran over [23][0-9.]* s \(the run timeout: --run-timeout sets it\)' "$scratch/err"
check "... the report of the four runs before" grep -Eq '^metric +[*( ]*[+-]?[0-9.]+%' "$scratch/out"
check "... --save ends with it" grep -q '"metrics":\[' <(tail -n 1 "$scratch/save")
wait_ended "$scratch/child"
check "... its sleep was ended too (its process group)" ended "$(cat "$scratch/child")"
check "... knob restored" same_bytes "$knob" "$scratch/found"

# The first run hangs (the warmup's): nothing has a length yet, -T ends it.
printf '0\n' >"$scratch/count"
timeout 30 "$VMPCTL" ab -q --knob "$knob" -n 3 -T 2 -- sh -c "$cmd" sh "$scratch/count" 0 \
	"$scratch/child" \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "the first run hangs, no --run-timeout: exit 5 (status $status: $(tail -n 2 "$scratch/err"))" \
	[ "$status" -eq 5 ]
check "... killed at -T's end" grep -Eq 'warmup 1 \(arm A\): sh ran over [12][0-9.]* s' "$scratch/err"
check "... knob restored" same_bytes "$knob" "$scratch/found"

# --- attach mode: the process watched records every signal it gets ---
cat >"$scratch/watched.sh" <<'EOF'
for sig in HUP INT QUIT USR1 USR2 PIPE ALRM TERM CONT TSTP TTIN TTOU; do
	trap "echo $sig >>'$1'" "$sig"
done
while :; do cat "$2" >/dev/null; sleep 0.01; done
EOF
: >"$scratch/signals"
bash "$scratch/watched.sh" "$scratch/signals" "$knob" &
watched=$!

# ended by --max-time
timeout 60 "$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 -T 1.5 \
	--pid "$watched" --counter io:rchar >"$scratch/out" 2>"$scratch/err"
status=$?
check "--pid, --max-time: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]

# ended by the watchdog: the process is stopped (SIGSTOP, which no trap
# sees and which it is not told of), so its counter stops
kill -STOP "$watched"
timeout 60 "$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 -T 30 \
	--stall-timeout 1 --pid "$watched" --counter io:rchar >"$scratch/out" 2>"$scratch/err"
status=$?
check "--pid, the watched process stopped: the watchdog ends the A/B, exit 5 (status $status: $(tail -n 2 "$scratch/err"))" \
	[ "$status" -eq 5 ]
kill -CONT "$watched"

# ended by a stop signal
timeout 60 "$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 -T 60 \
	--pid "$watched" --counter io:rchar >"$scratch/out" 2>&1 &
ab_pid=$!
wait_for_content "$knob" 0 && kill -TERM "$ab_pid"
wait "$ab_pid"
sleep 0.2
check "--pid: the watched process still runs" kill -0 "$watched"
check "--pid: it got no signal from vmpctl but the test's CONT" equal signals "$(tr '\n' ' ' <"$scratch/signals")" "CONT "
check "--pid: knob restored" same_bytes "$knob" "$scratch/found"
kill -KILL "$watched"
wait "$watched" 2>/dev/null

finish
