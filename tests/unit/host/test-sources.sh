#!/bin/bash
# ab --interleave's sources of progress other than rate lines, through the
# whole vmpctl: a --rate-regex over CMD's stdout, a preset that reads
# stderr (pgbench's), a --counter of a cgroup directory that a stand-in
# service updates, and watching a running process with no command: the
# verdict follows a workload whose speed depends on the knob, and a run
# that watched leaves the service running and the knob as found, on time
# and on a stop. Each workload here goes faster in arm B (knob 0).
# shellcheck disable=SC2016 # the commands vmpctl runs expand their own $1
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"

# The report's verdict row: the metric's line under "B vs A".
verdict_of() {
	grep -E '^rate +[*( ]*[+-]?[0-9.]+%' "$1" | head -n 1
}

# A/B with the regex: 100 per second in arm A, 200 in arm B.
"$VMPCTL" ab -q --knob "$knob" --interleave 0.3 --max-flip 5 -n 6 -w 0 \
	--rate-regex 'rate=([0-9.]+)' -- \
	sh -c 'while :; do if [ "$(cat "$1")" = 0 ]; then echo rate=200; else echo rate=100; fi; sleep 0.02; done' \
	sh "$knob" >"$scratch/out" 2>"$scratch/err"
status=$?
check "--rate-regex: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
check "--rate-regex: B better by 100% ($(verdict_of "$scratch/out"))" \
	grep -Eq '^rate +\*(99\.9[0-9]|100\.0[0-9])%\* .* B better ' "$scratch/out"
check "--rate-regex: knob restored" same_bytes "$knob" "$scratch/found"

# iperf3 and fio exit non-zero when ab's SIGTERM ends them: not a failure.
"$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 2 -w 0 \
	--rate-regex 'rate=([0-9.]+)' -- \
	sh -c 'trap "exit 1" TERM; while :; do echo rate=100; sleep 0.02; done' \
	>"$scratch/out" 2>"$scratch/err"
status=$?
check "a command that exits 1 on ab's SIGTERM: exit 0 (status $status: $(cat "$scratch/err"))" \
	[ "$status" -eq 0 ]

# pgbench's -P lines come on stderr: the preset reads them there, the
# latency with the rate.
"$VMPCTL" ab -q --knob "$knob" --interleave 0.3 --max-flip 5 -n 6 -w 0 --preset pgbench -- \
	sh -c 't=0; while :; do t=$((t + 2)); if [ "$(cat "$1")" = 0 ]; then r=200.0 l=1.000; else r=100.0 l=2.000; fi
		printf "progress: %d.%02d s, %s tps, lat %s ms stddev 0.100, 0 failed\n" $((t / 100)) $((t % 100)) "$r" "$l" >&2
		sleep 0.02; done' \
	sh "$knob" >"$scratch/out" 2>"$scratch/err"
status=$?
check "--preset pgbench: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
check "--preset pgbench: B better ($(verdict_of "$scratch/out"))" \
	grep -Eq '^rate +\*[0-9.]+%\* .* B better ' "$scratch/out"
# about -50%: on a loaded host a line printed just after a flip can carry
# the arm before it
check "--preset pgbench: the mean latency, halved in B, is compared per pair ($(grep '^latency mean' "$scratch/out"))" \
	grep -Eq '^latency mean: A (2|1\.9[0-9]*|2\.0[0-9]*) ms, B (1|0\.9[0-9]*|1\.[0-2][0-9]*) ms, B vs A -(4[0-9]|5[0-2])\.[0-9]+% .*; a figure, not a verdict\)$' "$scratch/out"

# --rate-stderr: the regex reads CMD's stderr too.
"$VMPCTL" ab -q --knob "$knob" --interleave 0.3 --max-flip 5 -n 6 -w 0 --start-timeout 3 \
	--rate-regex 'rate=([0-9.]+)' --rate-stderr -- \
	sh -c 'while :; do if [ "$(cat "$1")" = 0 ]; then echo rate=200; else echo rate=100; fi >&2; sleep 0.02; done' \
	sh "$knob" >"$scratch/out" 2>"$scratch/err"
status=$?
check "--rate-stderr: exit 0 (status $status: $(tail -n 2 "$scratch/err"))" [ "$status" -eq 0 ]
check "--rate-stderr: B better ($(verdict_of "$scratch/out"))" \
	grep -Eq '^rate +\*[0-9.]+%\* .* B better ' "$scratch/out"

# A stand-in cgroup: a directory whose cpu.stat a loop rewrites, its
# usage growing at 3 units per microsecond in arm B and 1 in arm A. The
# units follow the clock, not the loop's ticks: a loaded host that
# stalls the loop delays the counter but does not change its rate.
cg=$scratch/cgroup
mkdir "$cg"
printf 'usage_usec 0\n' >"$cg/cpu.stat"
(
	n=0 last=${EPOCHREALTIME/./}
	while :; do
		now=${EPOCHREALTIME/./}
		read -r k <"$knob"
		if [ "$k" = 0 ]; then n=$((n + 3 * (now - last))); else n=$((n + now - last)); fi
		last=$now
		printf 'usage_usec %d\nuser_usec 0\n' "$n" >"$cg/cpu.stat.new"
		mv "$cg/cpu.stat.new" "$cg/cpu.stat"
		sleep 0.005
	done
) &
service=$!
"$VMPCTL" ab -q --knob "$knob" --interleave 1 --max-flip 5 -n 10 -w 0 -T 60 \
	--cgroup "$cg" --counter cpu.stat:usage_usec >"$scratch/out" 2>"$scratch/err"
status=$?
check "--cgroup, no command: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
# The claim is the counter read on ab's clock: B's rate three times A's,
# marked. Not the verdict: a loaded host lags the loop behind the knob,
# which ab may rightly call carry-over.
check "--cgroup, no command: B +200%, marked ($(verdict_of "$scratch/out"))" \
	grep -Eq '^rate +\*\+?(1[89][0-9]|20[0-9]|21[0-9])\.[0-9]+%\* ' "$scratch/out"
check "--cgroup, no command: the report names the cgroup" \
	grep -Fq "command: --cgroup $cg" "$scratch/out"
check "--cgroup, no command: the report names the counter" \
	grep -Fq "metric: rate = count / interval_s of counter cpu.stat:usage_usec," "$scratch/out"
check "--cgroup, no command: the service still runs" kill -0 "$service"
check "--cgroup, no command: knob restored" same_bytes "$knob" "$scratch/found"

# A counter that never moves: no percent exists, so no verdict.
mkdir "$scratch/still"
printf 'usage_usec 7\n' >"$scratch/still/cpu.stat"
"$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 4 -w 0 -T 10 \
	--cgroup "$scratch/still" --counter cpu.stat:usage_usec >"$scratch/out" 2>"$scratch/err"
status=$?
check "a counter that never moves: exit 1 (status $status)" [ "$status" -eq 1 ]
check "a counter that never moves: no verdict, said why" \
	grep -q 'no verdict: arm A.s kept slices made no progress' "$scratch/err"
check "a counter that never moves: knob restored" same_bytes "$knob" "$scratch/found"

# Watching a process: --max-time ends it, the process runs on.
"$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 -T 1.5 \
	--pid "$service" --counter io:rchar >"$scratch/out" 2>"$scratch/err"
status=$?
check "--pid, --max-time: exit 0 (status $status: $(cat "$scratch/err"))" [ "$status" -eq 0 ]
check "--pid, --max-time: out of time said" grep -q 'max-time\|out of time' "$scratch/out"
check "--pid, --max-time: the process still runs" kill -0 "$service"
check "--pid, --max-time: knob restored" same_bytes "$knob" "$scratch/found"

# A stop while watching, the knob at B: vmpctl dies of it, the service not
# (SIGTERM: a background job of a script ignores SIGINT).
"$VMPCTL" ab -q --knob "$knob" --interleave 0.2 --max-flip 5 -n 100000 -w 0 -T 60 \
	--cgroup "$cg" --counter cpu.stat:usage_usec >"$scratch/out" 2>&1 &
ab_pid=$!
wait_for_content "$knob" 0 && kill -TERM "$ab_pid"
wait "$ab_pid"
status=$?
check "--cgroup, SIGTERM: vmpctl ended by SIGTERM (status $status)" [ "$status" -eq 143 ]
check "--cgroup, SIGTERM: the service still runs" kill -0 "$service"
check "--cgroup, SIGTERM: knob restored" same_bytes "$knob" "$scratch/found"
kill "$service"
wait "$service" 2>/dev/null

# Usage: what does not fit together is refused before anything runs.
usage() {
	local what=$1 out status
	shift
	out=$("$VMPCTL" ab --knob "$knob" "$@" 2>&1)
	status=$?
	check "usage: $what (status $status: $out)" [ "$status" -eq 2 ]
}
usage "a relative counter needs a target" --interleave 1 --counter cpu.stat:usage_usec -- true
usage "watching needs --max-time" --interleave 1 --cgroup "$cg" --counter cpu.stat:usage_usec
usage "watching needs a counter" --interleave 1 --cgroup "$cg"
usage "no such process" --interleave 1 --pid 4194304 --counter io:rchar -T 1
usage "--pid 0 is no process" --interleave 1 --pid 0 --counter io:rchar -T 1
usage "--pid beyond PID_MAX_LIMIT" --interleave 1 --pid 4194305 --counter io:rchar -T 1
usage "one target" --interleave 1 --cgroup "$cg" --pid $$ --counter io:rchar -T 1
usage "--rate-stderr is for --interleave" --rate-stderr -- true
usage "stress-ng has no periodic report" --interleave 1 --preset stress-ng -- true
usage "sources are for --interleave" --preset fio -- true
usage "a preset and a regex" --interleave 1 --preset fio --rate-regex x -- true
usage "a counter and lines" --interleave 1 --rate-regex x --counter /proc/vmstat:pgfault -- true
usage "a bad regex" --interleave 1 --rate-regex '(' -- true
# after the counter is configured (the sanitizers' build: nothing leaks)
usage "a bad --covariate" --interleave 1 --sequential --target 5% --covariate memory.stat: \
	--cgroup "$cg" --counter cpu.stat:usage_usec -T 1
check "usage: the knob was never written" same_bytes "$knob" "$scratch/found"

finish
