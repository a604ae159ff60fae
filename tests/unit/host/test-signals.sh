#!/bin/bash
# Issue 3: every signal that would end vmpctl ab while the knob is at B
# leaves the knob exactly as found, ends the command it ran, and ends
# vmpctl with that signal; a SIGPIPE from a closed pipe likewise; a stop
# is forwarded to the running command at once, even when it arrives while
# vmpctl is not waiting for that command; SIGINT ignored at start stays
# ignored. The same for ab --interleave, whose one long command runs
# while the knob flips. Every exit path keeps the report (issue 31): a
# stop with stdout a file prints all of it, and --save ends with it also
# when stdout is a closed pipe. Inputs and output: see lib.sh.
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1

# A shell cannot undo a signal ignored at its start (SIGHUP under nohup,
# SIGINT and SIGQUIT in a background job): start again with every signal
# at its default, before lib.sh makes a scratch directory.
if [ -z "${SIGNALS_DEFAULTED:-}" ]; then
	SIGNALS_DEFAULTED=1 exec env --default-signal bash "$0" "$@"
fi

# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

# Background jobs of a script without job control ignore SIGINT and
# SIGQUIT; with it, vmpctl starts with default dispositions.
set -m
knob=$scratch/knob
marker=$scratch/cmd-running

# start_ab: vmpctl ab in the background on the file knob, A=1 B=0; each
# run records its pid in $marker, and arm B's sleeps a minute. Sets ab_pid.
start_ab() {
	printf '1\n' >"$knob"
	cp "$knob" "$scratch/found"
	rm -f "$marker"
	"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 -- \
		sh -c 'echo $$ >"$1"; [ "$(cat "$2")" = 1 ] || exec sleep 60' sh "$marker" "$knob" \
		>"$scratch/out" 2>"$scratch/err" &
	ab_pid=$!
}

# gone PID: no such process (it was reaped)
gone() {
	[ -n "$1" ] && [ ! -d "/proc/$1" ]
}

# expect_stopped SIG: vmpctl died of SIG within 20 s (a loaded machine's
# time, not the command's minute), knob as found, and the command it was
# running is gone.
expect_stopped() {
	local sig=$1 status cmd_pid
	for _ in $(seq 400); do
		kill -0 "$ab_pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$ab_pid" 2>/dev/null && {
		fail "SIG$sig: vmpctl still running 20 s later"
		kill -KILL "$ab_pid"
	}
	wait "$ab_pid"
	status=$?
	check "SIG$sig: vmpctl ended by SIG$sig (status $status)" \
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
	check "SIG$sig: knob restored" same_bytes "$knob" "$scratch/found"
	cmd_pid=$(cat "$marker" 2>/dev/null)
	check "SIG$sig: the command was ended too" gone "$cmd_pid"
}

for sig in INT TERM HUP QUIT ALRM USR1 USR2 PIPE XCPU XFSZ VTALRM PROF IO PWR STKFLT RTMIN RTMAX-1; do
	start_ab
	# arm B: the second run of ABBA
	wait_for_content "$knob" 0 || fail "SIG$sig: the knob never reached B"
	sleep 0.1
	kill -s "$sig" "$ab_pid"
	expect_stopped "$sig"
done

# A closed pipe: progress goes to a reader that left after one byte.
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"
"$VMPCTL" ab --knob "$knob" -n 2 -w 0 -- sleep 0.3 2>&1 | head -c 1 >/dev/null
status=${PIPESTATUS[0]}
check "closed pipe: vmpctl ended by SIGPIPE (status $status)" [ "$status" -eq 141 ]
check "closed pipe: knob restored" same_bytes "$knob" "$scratch/found"

# stdout a pipe already closed when the report comes: --save still ends
# with the report (it is written first), and SIGPIPE ends vmpctl.
"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 --save "$scratch/pipe.save" -- sleep 0.1 \
	2>"$scratch/err" | true
status=${PIPESTATUS[0]}
check "stdout a closed pipe: vmpctl ended by SIGPIPE (status $status)" [ "$status" -eq 141 ]
check "stdout a closed pipe: --save ends with the report" \
	grep -q '"metrics":\[' <(tail -n 1 "$scratch/pipe.save")
check "stdout a closed pipe: knob restored" same_bytes "$knob" "$scratch/found"

# SIGPIPE ignored by the parent: EPIPE is the stop, exit 1.
(trap '' PIPE; exec "$VMPCTL" ab --knob "$knob" -n 2 -w 0 -- sleep 0.3 2>&1) | head -c 1 >/dev/null
status=${PIPESTATUS[0]}
check "closed pipe, SIGPIPE ignored: exit 1 (status $status)" [ "$status" -eq 1 ]
check "closed pipe, SIGPIPE ignored: knob restored" same_bytes "$knob" "$scratch/found"

# A stop that arrives while vmpctl waits for something else than the
# command (here the --switch, which ignores it) still stops at once: the
# command after it must not run its 60 s.
start=$(date +%s%N)
"$VMPCTL" ab -q --switch 'trap "" TERM; kill -TERM $PPID; sleep 0.2; :' --a x --b y \
	-n 2 -w 0 -- sleep 60 >/dev/null 2>&1 &
ab_pid=$!
wait "$ab_pid"
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
check "stop during --switch: ended by SIGTERM (status $status)" [ "$status" -eq 143 ]
check "stop during --switch: within 20 s (took $elapsed_ms ms)" [ "$elapsed_ms" -lt 20000 ]

# SIGINT ignored at start (nohup, a background job) stays ignored: the
# A/B completes and reports.
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"
(trap '' INT; exec "$VMPCTL" ab -q --csv --knob "$knob" -n 2 -w 0 -- sleep 0.3) >"$scratch/out" 2>&1 &
ab_pid=$!
wait_for_content "$knob" 0 && kill -INT "$ab_pid"
wait "$ab_pid"
status=$?
check "ignored SIGINT: exit 0 (status $status)" [ "$status" -eq 0 ]
check "ignored SIGINT: report printed" grep -q '^wall(s),' "$scratch/out"
check "ignored SIGINT: knob restored" same_bytes "$knob" "$scratch/found"

# vmpctl catches SIGPIPE, but the commands it runs get the default: a
# command that ignored it would never die of a closed pipe.
out=$("$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 -- sh -c 'kill -PIPE $$; echo survived' 2>&1)
check "the command's SIGPIPE is the default one ($out)" grep -q "was killed by signal 13" <<<"$out"

# --interleave: a stop while the knob is at B, in the middle of the one
# long run of pft (its pid in $marker), ends vmpctl by that signal with
# the knob as found and pft gone.
start_interleaved() {
	printf '1\n' >"$knob"
	cp "$knob" "$scratch/found"
	rm -f "$marker"
	"$VMPCTL" ab -q --knob "$knob" --interleave 0.2 -n 100 -- \
		sh -c 'echo $$ >"$1"; exec "$2" pft --size 4M --duration 30 --report-interval 0.02' \
		sh "$marker" "$VMPCTL" >"$scratch/out" 2>"$scratch/err" &
	ab_pid=$!
}
for sig in INT TERM USR1; do
	start_interleaved
	wait_for_content "$knob" 0 || fail "--interleave, SIG$sig: the knob never reached B"
	sleep 0.05
	kill -s "$sig" "$ab_pid"
	expect_stopped "$sig"
done

# --interleave: a stop after pairs were kept prints their report, also
# when stdout is a file (stdio's buffer flushed before the signal ends
# vmpctl); so does --save's last line.
printf '1\n' >"$knob"
"$VMPCTL" ab -q --knob "$knob" --interleave 0.05 --max-flip 5 -n 100000 \
	--save "$scratch/stopped.save" -- \
	"$VMPCTL" pft --size 4M --duration 30 --report-interval 0.005 \
	>"$scratch/out" 2>"$scratch/err" &
ab_pid=$!
for _ in $(seq 200); do
	[ "$(grep -c '"type":"slice"' "$scratch/stopped.save" 2>/dev/null)" -ge 12 ] && break
	sleep 0.05
done
kill -TERM "$ab_pid"
wait "$ab_pid"
status=$?
check "--interleave, SIGTERM, stdout a file: ended by the signal (status $status)" [ "$status" -eq 143 ]
check "--interleave, SIGTERM, stdout a file: the report is in it" grep -q '^pairs: [0-9]* kept' "$scratch/out"
check "--interleave, SIGTERM: --save ends with the report" \
	grep -q '"mode":"interleave"' <(tail -n 1 "$scratch/stopped.save")

# Whole runs: a stop after runs were kept prints the whole report to a
# file, its last line included, and --save ends with it.
printf '1\n' >"$knob"
"$VMPCTL" ab -q --knob "$knob" -n 1000 -w 0 --save "$scratch/runs.save" -- sleep 0.05 \
	>"$scratch/out" 2>"$scratch/err" &
ab_pid=$!
for _ in $(seq 200); do
	[ "$(grep -c '"type":"run"' "$scratch/runs.save" 2>/dev/null)" -ge 6 ] && break
	sleep 0.05
done
kill -TERM "$ab_pid"
wait "$ab_pid"
status=$?
check "whole runs, SIGTERM, stdout a file: ended by the signal (status $status)" [ "$status" -eq 143 ]
check "whole runs, SIGTERM, stdout a file: the headline is in it" \
	grep -Eq '^wall\(s\) +[*( ]*[+-]?[0-9.]+%' "$scratch/out"
check "whole runs, SIGTERM, stdout a file: the report's last line too" \
	grep -q '^sanity: ' <(tail -n 1 "$scratch/out")
check "whole runs, SIGTERM: --save ends with the report" \
	grep -q '"metrics":\[' <(tail -n 1 "$scratch/runs.save")

# --interleave: progress goes to a reader that leaves after the first pair.
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"
"$VMPCTL" ab --knob "$knob" --interleave 0.1 -n 100 -- \
	"$VMPCTL" pft --size 4M --duration 30 --report-interval 0.01 2>&1 | head -c 1 >/dev/null
status=${PIPESTATUS[0]}
check "--interleave, closed pipe: vmpctl ended by SIGPIPE (status $status)" [ "$status" -eq 141 ]
check "--interleave, closed pipe: knob restored" same_bytes "$knob" "$scratch/found"

# A command that ignores the forwarded stop is killed at a second stop.
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"
rm -f "$marker"
"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 -- \
	sh -c 'trap "" INT TERM; echo $$ >"$1"; while :; do sleep 0.1; done' sh "$marker" \
	>/dev/null 2>&1 &
ab_pid=$!
wait_for_file "$marker"
kill -TERM "$ab_pid"
sleep 0.3
check "stubborn command: vmpctl waits for it after one stop" kill -0 "$ab_pid"
kill -TERM "$ab_pid"
expect_stopped TERM

finish
