# shellcheck shell=dash disable=SC2153,SC2030,SC2031
# (KNOB and the other names come from lib.sh; the hog variables are set in
# subshells on purpose, see as_reclaimer.)
# Torture tests, one test_* function each: concurrent toggles under reclaim in
# several memcgs with every attribute read in a loop, load/unload cycles with a
# writer racing each unload, knob fuzzing against the knob's grammar, and
# eventfd listeners across disable and enable. On a kernel with kmemleak (the
# debug lane) the tests that load and unload the module end with a leak scan
# that fails on any leak of the module since the previous scan: after the
# load/unload cycles (which also covers the toggles before them) and after
# the final rmmod (everything since). A scan takes a minute or more under
# TCG with KASAN, so the other tests leave theirs to the next one.
#
# Input: /etc/vmtest/torture-scale (the lane's torture_scale=): N, the
# percentage of the issue's counts (10,000 writes from two writers, 200
# load/unload cycles, 2,000 fuzzed writes) to run, or "short" for the short
# counts (20, 10 and 50) of the tier-1 lanes; without it the tests skip (the
# other lanes of Debian's kernels: CI's time). /etc/vmtest/kconfig, the
# kernel's .config.

TORTURE_SCALE_FILE=/etc/vmtest/torture-scale
KMEMLEAK=/sys/kernel/debug/kmemleak
# Files the background helpers of one test share with it.
TORTURE_DIR=/tmp/torture

# Every torture test starts here: the module loaded, and a lane that runs
# the torture.
need_torture() {
	need_module
	[ -e "$TORTURE_SCALE_FILE" ] ||
		skip "the torture runs on the tier-1 lanes and 6.1-debug (torture_scale= in the lane file)"
}

# Prints the count for this run: N percent of FULL (the issue's number, at
# least 1) when the lane sets the scale to N, SHORT when it says short.
torture_count() {
	local scale
	scale=$(cat "$TORTURE_SCALE_FILE")
	case $scale in
	short) echo "$2" ;;
	'' | 0* | *[!0-9]*) fail "$TORTURE_SCALE_FILE says '$scale', expected a percentage or short" ;;
	*) echo $((($1 * scale + 99) / 100)) ;;
	esac
}

torture_dir_reset() {
	rm -rf "$TORTURE_DIR"
	mkdir -p "$TORTURE_DIR"
}

# Fails the test with the first line a background helper wrote to the
# shared error file.
expect_no_helper_errors() {
	[ ! -s "$TORTURE_DIR/errors" ] || fail "$1: $(head -n1 "$TORTURE_DIR/errors") ($(wc -l <"$TORTURE_DIR/errors") errors)"
}

helper_error() {
	echo "$*" >>"$TORTURE_DIR/errors"
}

# Runs CMD... with lib.sh's hog helpers pointed at reclaimer NAME's own
# memcg and tmpfs file.
as_reclaimer() {
	(
		HOG_CGROUP=$(memcg_root)/torture-$1
		# shellcheck disable=SC2034 # read by lib.sh's hog helpers
		HOG_FILE=/tmp/torture-$1
		shift
		"$@"
	)
}

# Reads FILE (an attribute) in a loop until the stop file appears; checks
# what each read returns and leaves the number of reads in FILE's count file.
attr_reader() {
	local name value reads=0 last=0
	name=$(basename "$1")
	while [ ! -e "$TORTURE_DIR/stop" ]; do
		if ! read -r value <"$1"; then
			helper_error "reading $name failed"
			return
		fi
		case $name in
		enabled)
			case $value in
			0 | 1) ;;
			*) helper_error "enabled read '$value'" ; return ;;
			esac
			;;
		skipped)
			# The sum of per-CPU counters that only grow.
			[ "$value" -ge "$last" ] || { helper_error "skipped went back from $last to $value"; return; }
			last=$value
			;;
		esac
		reads=$((reads + 1))
	done
	echo "$reads" >"$TORTURE_DIR/reads.$name"
}

# Writes COUNT alternating values starting with FIRST; every write of a valid
# value must succeed, whatever the other writer does.
knob_writer() {
	local i=0 value=$2
	while [ "$i" -lt "$1" ]; do
		if ! { echo "$value" >"$KNOB"; } 2>"$TORTURE_DIR/writer$2.err"; then
			helper_error "writer $2: write $i ($value) failed: $(cat "$TORTURE_DIR/writer$2.err")"
			return
		fi
		value=$((1 - value))
		i=$((i + 1))
	done
}

# tracefs agrees with the knob: the targets hooked at 0, none at 1.
hooked_targets_agree() {
	if [ "$(knob)" = 0 ]; then
		expect_hooked "$1 (knob 0)"
	else
		expect_unhooked "$1 (knob 1)"
	fi
}

# One reclaim pass in HOG_CGROUP that pushes 16 MiB past its limit: some
# windows of scanned pages for vmpressure, at a third of the cost of lib.sh's
# full pass on the debug kernel.
hog_pass_short() {
	(
		# shellcheck disable=SC2034 # read by hog_once
		HOG_FILE_MIB=$((HOG_LIMIT_MIB + 16))
		hog_once
	)
}

# hog_pass_short, then the wait until the work items it queued have run
# (they deliver the pressure events); prints how often they ran.
hog_pass_settled() {
	trace_work_fn hog_pass_short >&2
	echo "$TRACE_CALLS"
}

# The knob, the hooks in tracefs and the kernel's own evidence agree: with
# the knob at 1 reclaim runs vmpressure's work item and skipped stays, at 0
# the work item never runs and skipped grows. On the debug lane skipped and
# tracefs only (evidence_traced): the RT lanes count the work item after
# their torture on the same hook interfaces.
expect_state_agrees() {
	local before runs=-
	hooked_targets_agree "$1"
	before=$(skipped_count)
	if evidence_traced; then
		runs=$(work_fn_runs hog_pass_short)
	else
		hog_pass_short
	fi
	echo "$1: knob $(knob), vmpressure_work_fn ran $runs times in one reclaim pass, skipped $before -> $(skipped_count)"
	if [ "$(knob)" = 1 ]; then
		[ "$runs" = - ] || [ "$runs" -gt 0 ] || fail "$1: knob 1 but vmpressure_work_fn never ran under reclaim"
		[ "$(skipped_count)" -eq "$before" ] || fail "$1: knob 1 but skipped grew"
	else
		[ "$runs" = - ] || [ "$runs" -eq 0 ] || fail "$1: knob 0 but vmpressure_work_fn ran $runs times"
		[ "$(skipped_count)" -gt "$before" ] || fail "$1: knob 0 but skipped did not grow"
	fi
}

have_kmemleak() {
	grep -qx 'CONFIG_DEBUG_KMEMLEAK=y' /etc/vmtest/kconfig
}

# On a kernel with kmemleak: scans and fails on any leak (new since the last
# scan here) whose allocation backtrace runs through the module, by name
# while it is loaded or through code no symbol covers (module text since
# freed: an unloaded module, or its init code). Other leaks are counted, not
# failed: they are the kernel's (the debug kernel reports a few of ACPI's
# boot-time slab caches on every scan).
expect_no_module_leaks() {
	local leaks ours start
	have_kmemleak || return 0
	start=$(uptime_s)
	[ -w "$KMEMLEAK" ] || fail "$1: the kernel has kmemleak but $KMEMLEAK is missing"
	# kmemleak reports objects older than 5 s only; the second scan is
	# what its documentation advises against transient false positives.
	sleep 6
	echo scan >"$KMEMLEAK" || fail "$1: kmemleak scan failed (detector disabled?)"
	echo scan >"$KMEMLEAK" || fail "$1: kmemleak scan failed (detector disabled?)"
	cat "$KMEMLEAK" >"$TORTURE_DIR/kmemleak"
	# Reported objects are listed again by every later read: clear them, so
	# that the next test sees only what is new since.
	echo clear >"$KMEMLEAK" || fail "$1: clearing kmemleak's list failed"
	leaks=$(grep -c '^unreferenced object' "$TORTURE_DIR/kmemleak" || true)
	awk '/^unreferenced object/ { if (ours) printf "%s", rec; rec = ""; ours = 0 }
		{ rec = rec $0 "\n" }
		/\[vmpressure_ctl\]/ || /\] 0x[0-9a-f]+$/ { ours = 1 }
		END { if (ours) printf "%s", rec }' "$TORTURE_DIR/kmemleak" >"$TORTURE_DIR/kmemleak.ours"
	ours=$(grep -c '^unreferenced object' "$TORTURE_DIR/kmemleak.ours" || true)
	echo "$1: kmemleak lists $leaks unreferenced objects, $ours from vmpressure_ctl ($(($(uptime_s) - start)) s)"
	[ "$ours" -eq 0 ] || {
		cat "$TORTURE_DIR/kmemleak.ours"
		# The line tests/vm/debug/console-patterns matches.
		echo "vmtest: kmemleak found $ours leaks from vmpressure_ctl"
		fail "$1: kmemleak found $ours leaks from vmpressure_ctl"
	}
}

# Issue 13: two writers flip the knob against each other while four
# reclaimers run in memcgs of their own and every attribute is read in a
# loop; afterwards the knob, tracefs and vmpressure's work item agree.
# group: torture
test_torture_toggles() {
	local writes reclaimers=4 i attr writer0 start
	need_torture
	writes=$(torture_count 10000 20)
	start=$(uptime_s)
	torture_dir_reset
	for i in $(seq "$reclaimers"); do
		as_reclaimer "hog$i" hog_passes loop &
	done
	for attr in "$KNOB_DIR"/*; do
		attr_reader "$attr" &
	done
	echo "torture: $writes writes from 2 writers, $reclaimers reclaimers, readers of $(cd "$KNOB_DIR" && echo *)"
	knob_writer $((writes / 2)) 0 &
	writer0=$!
	knob_writer $((writes / 2)) 1 &
	wait "$!" "$writer0"
	echo "torture: $writes writes in $(($(uptime_s) - start)) s"
	touch "$TORTURE_DIR/stop"
	for i in $(seq "$reclaimers"); do
		as_reclaimer "hog$i" hog_stop
	done
	wait
	expect_no_helper_errors "during $writes writes"
	for attr in "$KNOB_DIR"/*; do
		[ -s "$TORTURE_DIR/reads.$(basename "$attr")" ] ||
			fail "the reader of $(basename "$attr") left no count"
		echo "torture: $(cat "$TORTURE_DIR/reads.$(basename "$attr")") reads of $(basename "$attr")"
	done
	expect_state_agrees "after $writes writes"
	set_knob $((1 - $(knob)))
	expect_state_agrees "after one more toggle"
}

# Writes the knob from the cycle's state on, flipping it, until the file is
# gone; says when the first write is done and leaves the number of clean
# writes and the error that ended the loop.
racing_writer() {
	local value=$1 writes=0
	while { echo "$value" >"$KNOB"; } 2>"$TORTURE_DIR/race.err"; do
		writes=$((writes + 1))
		[ "$writes" -ne 1 ] || : >"$TORTURE_DIR/race.started"
		value=$((1 - value))
	done
	echo "$writes" >"$TORTURE_DIR/race.writes"
}

# rmmod while racing_writer flips the knob. The module holds itself while
# hooked, so an rmmod that lands just after a write of 0 is refused with
# EAGAIN and leaves the module loaded; one that lands at 1 goes through. Any
# other failure, or no success in 60 s (a write takes up to seconds on the
# debug kernel), fails the test. Adds the refusals to the caller's $refused.
unload_while_racing() {
	local tries=0 out deadline=$(($(uptime_s) + 60))
	until out=$(rmmod vmpressure_ctl 2>&1); do
		case $out in
		*"Resource temporarily unavailable"*) ;;
		*) fail "$1: rmmod failed: $out" ;;
		esac
		module_loaded || fail "$1: $KNOB_DIR is gone after a refused rmmod"
		tries=$((tries + 1))
		[ "$(uptime_s)" -lt "$deadline" ] || fail "$1: rmmod refused $tries times in 60 s while the writer flipped the knob"
	done
	! module_loaded || fail "$1: $KNOB_DIR still present after rmmod"
	refused=$((refused + tries))
}

# Issue 13: load/unload cycles under reclaim, the state at load alternating,
# a writer flipping the knob in a loop while each rmmod runs. Every write it
# makes is clean until the knob goes; then the open fails with ENOENT
# (busybox sh: "nonexistent directory"), or with EACCES when the attributes
# are gone and their directory not yet (unload removes the files first, so
# no reader enters the module's text as it goes: sysfs refuses the shell's
# O_CREAT there), or, when the file went between open and write, the write
# fails with ENODEV. After each rmmod nothing is hooked.
# group: torture
test_torture_load_unload() {
	local cycles i=0 state err tries start refused=0
	need_torture
	cycles=$(torture_count 200 10)
	start=$(uptime_s)
	torture_dir_reset
	unload_module
	hog_start
	while [ "$i" -lt "$cycles" ]; do
		state=$((i % 2))
		load_module enabled=$state
		rm -f "$TORTURE_DIR/race.started" "$TORTURE_DIR/race.writes"
		racing_writer "$state" &
		tries=0
		until [ -e "$TORTURE_DIR/race.started" ]; do
			tries=$((tries + 1))
			[ "$tries" -le 1000 ] || fail "cycle $i: the racing writer made no write in 10 s: $(cat "$TORTURE_DIR/race.err")"
			sleep 0.01
		done
		unload_while_racing "cycle $i"
		wait "$!"
		err=$(cat "$TORTURE_DIR/race.err")
		case $err in
		*"nonexistent directory"* | *"No such file or directory"* | *"Permission denied"* | *"No such device"*) ;;
		*) fail "cycle $i: the racing writer ended with: $err" ;;
		esac
		expect_unhooked "cycle $i after rmmod"
		i=$((i + 1))
		[ $((i % 10)) -ne 0 ] || echo "torture: $i load/unload cycles in $(($(uptime_s) - start)) s, last writer made $(cat "$TORTURE_DIR/race.writes") writes, $refused rmmods refused while hooked"
	done
	hog_stop
	expect_no_module_leaks "after $cycles load/unload cycles"
}

# The knob's grammar: exactly one word of "0 1 y n yes no on off true false",
# in any case, with one optional trailing newline; anything else is EINVAL.
# Prints the value a write of FILE sets, or nothing when it must be rejected.
# Decided on the bytes in hex, so that NULs and other bytes take part.
grammar_value() {
	local hex word
	[ "$(wc -c <"$1")" -le 6 ] || return 0
	hex=$(tr '[:upper:]' '[:lower:]' <"$1" | od -An -tx1 -v | tr -d ' \n')
	hex=${hex%0a}
	for word in $WORDS_HEX; do
		[ "$hex" != "${word#*=}" ] || { echo "${word%=*}"; return 0; }
	done
}

# "VALUE=HEX" for every word of the grammar.
words_hex() {
	local word
	for word in 1 y yes on true 0 n no off false; do
		case $word in
		1 | y | yes | on | true) printf '1=' ;;
		*) printf '0=' ;;
		esac
		printf '%s' "$word" | od -An -tx1 | tr -d ' \n'
		echo
	done
}

# An input of class CLASS (see test_knob_fuzz) of about LEN bytes in FILE.
fuzz_input() {
	local words="0 1 y n yes no on off true false" word pick
	case $1 in
	random)
		head -c "$2" /dev/urandom >"$3"
		;;
	word | near)
		pick=$(($2 % 10 + 1))
		word=$(echo "$words" | cut -d' ' -f"$pick")
		# Random case, letter by letter.
		word=$(echo "$word" | awk -v seed="$2" 'BEGIN { srand(seed) }
			{ for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); printf "%s", rand() < 0.5 ? toupper(c) : c } }')
		if [ "$1" = word ]; then
			if [ $(($2 % 2)) -eq 0 ]; then printf '%s\n' "$word"; else printf '%s' "$word"; fi >"$3"
			return
		fi
		# One edit away from a valid write.
		case $(($2 / 10 % 12)) in
		0) printf ' %s' "$word" ;;
		1) printf '%s ' "$word" ;;
		2) printf '%s\n\n' "$word" ;;
		3) printf '%s\r\n' "$word" ;;
		4) printf '%s\000' "$word" ;;
		5) printf '%s\000\n' "$word" ;;
		6) printf '%sx' "$word" ;;
		7) printf '%s%s' "$word" "$word" ;;
		8) printf '%s' "$word" | cut -c2- | tr -d '\n' ;;
		9) printf '%s 0' "$word" ;;
		10) printf '+%s' "$word" ;;
		11) printf '\t%s\n' "$word" ;;
		esac >"$3"
		;;
	esac
}

# Writes FILE to the knob at byte offset OFFSET with one write(2) and checks
# the result against the grammar: accepted and the knob shows the value, or
# EINVAL and the knob unchanged.
fuzz_write() {
	local file=$1 offset=$2 before want status=0 out len
	before=$(knob)
	want=$(grammar_value "$file")
	len=$(wc -c <"$file")
	if [ "$len" -eq 0 ]; then
		# dd has nothing to write; the open and close must change nothing.
		: >"$KNOB" || fail "opening $KNOB for an empty write failed"
		expect_knob "$before" "after an empty write"
		return
	fi
	out=$(dd if="$file" of="$KNOB" bs="$len" count=1 seek="$offset" oflag=seek_bytes conv=notrunc 2>&1) || status=$?
	if [ -n "$want" ]; then
		[ "$status" -eq 0 ] || fail "write of $(od -An -c "$file" | tr -s ' ') ($len bytes at $offset) was rejected: $out"
		expect_knob "$want" "after writing $(od -An -c "$file" | tr -s ' ')"
		fuzz_accepted=$((fuzz_accepted + 1))
	else
		case $status:$out in
		0:*) fail "write of $(od -An -c -N 16 "$file" | tr -s ' ') ($len bytes at $offset) was accepted: knob now $(knob)" ;;
		*"Invalid argument"*) ;;
		*) fail "write of $len bytes at $offset: expected EINVAL, got: $out" ;;
		esac
		expect_knob "$before" "after a rejected write of $(od -An -c -N 16 "$file" | tr -s ' ')"
		fuzz_rejected=$((fuzz_rejected + 1))
	fi
}

# Writes FILE to the knob one byte per write(2) through one open file: each
# byte that is a word by itself (0 1 y n, any case) sets the knob, and the
# first other byte fails with EINVAL and ends the run.
fuzz_bytewise() {
	local file=$1 out status=0 expect_out=0 want i=0 byte
	want=$(knob)
	for byte in $(od -An -tx1 -v "$file"); do
		case $byte in
		30 | 6e | 4e) want=0 ;;
		31 | 79 | 59) want=1 ;;
		*) break ;;
		esac
		i=$((i + 1))
	done
	expect_out=$i
	out=$(dd if="$file" of="$KNOB" bs=1 conv=notrunc 2>&1) || status=$?
	case $out in
	*"$expect_out+0 records out"*) ;;
	*) fail "byte-wise write of $(od -An -c "$file" | tr -s ' '): expected $expect_out bytes taken, dd said: $out" ;;
	esac
	if [ "$expect_out" -eq "$(wc -c <"$file")" ]; then
		[ "$status" -eq 0 ] || fail "byte-wise write of $(od -An -c "$file" | tr -s ' ') failed: $out"
	else
		case $out in
		*"Invalid argument"*) ;;
		*) fail "byte-wise write of $(od -An -c "$file" | tr -s ' '): expected EINVAL, dd said: $out" ;;
		esac
	fi
	expect_knob "$want" "after byte-wise write of $(od -An -c "$file" | tr -s ' ')"
	fuzz_bytes=$((fuzz_bytes + i))
}

# Issue 13: fuzzed writes, each a single write(2) at offset 0 or a random
# one: random bytes (a quarter of the writes 0 to 8192 long, a fifth 0 to 8),
# valid words in random case with or without the newline (15%), words one
# edit away from valid (25%); and runs of one-byte writes (15%). The oracle is
# the grammar above; the knob reads 0 or 1 after every write.
# group: torture
test_knob_fuzz() {
	local writes class len offset file=/tmp/fuzz-input seed start
	need_torture
	writes=$(torture_count 2000 50)
	start=$(uptime_s)
	torture_dir_reset
	WORDS_HEX=$(words_hex)
	fuzz_accepted=0 fuzz_rejected=0 fuzz_bytes=0
	seed=$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')
	echo "fuzz: $writes writes, awk seed $seed"
	# One line per write: class, length (or word pick), offset. The first
	# two are a valid word and random bytes too long to be one, so that
	# even a short plan both sets the knob and gets refused.
	awk -v n="$writes" -v seed="$seed" 'BEGIN {
		srand(seed)
		print "word", int(rand() * 1000), 0
		print "random", 7 + int(rand() * 8186), 0
		for (i = 2; i < n; i++) {
			r = rand()
			if (r < 0.25) { class = "random"; len = int(rand() * 8193) }
			else if (r < 0.45) { class = "random"; len = int(rand() * 9) }
			else if (r < 0.6) { class = "word"; len = int(rand() * 1000) }
			else if (r < 0.85) { class = "near"; len = int(rand() * 1000) }
			else { class = "bytes"; len = 1 + int(rand() * 16) }
			offset = rand() < 0.5 ? 0 : 1 + int(rand() * 8192)
			print class, len, offset
		}
	}' >"$TORTURE_DIR/plan"
	while read -r class len offset; do
		if [ "$class" = bytes ]; then
			# A small alphabet, so that runs of valid bytes happen.
			head -c "$len" /dev/urandom | od -An -tu1 -v |
				awk '{ for (i = 1; i <= NF; i++) printf "%s", substr("01ynYNxo \n", $i % 10 + 1, 1) }' >"$file"
			fuzz_bytewise "$file"
		else
			fuzz_input "$class" "$len" "$file"
			fuzz_write "$file" "$offset"
		fi
		case $(knob) in
		0 | 1) ;;
		*) fail "knob reads '$(knob)'" ;;
		esac
	done <"$TORTURE_DIR/plan"
	echo "fuzz: $writes writes in $(($(uptime_s) - start)) s: $fuzz_accepted accepted, $fuzz_rejected rejected with EINVAL, $fuzz_bytes one-byte writes taken"
	if [ "$fuzz_accepted" -eq 0 ] || [ "$fuzz_rejected" -eq 0 ]; then
		fail "the fuzzer did not both set the knob and get refused ($fuzz_accepted accepted, $fuzz_rejected rejected)"
	fi
	hooked_targets_agree "after fuzzing"
}

# vmpctl watch on CGROUP in the background, its events in NAME.out; returns
# once it has registered.
watch_start() {
	vmpctl watch --cgroup "$1" >"$TORTURE_DIR/$2.out" 2>"$TORTURE_DIR/$2.err" &
	echo $! >"$TORTURE_DIR/$2.pid"
	wait_until 10 grep -q 'listening on' "$TORTURE_DIR/$2.err" ||
		fail "vmpctl watch on $1 did not register in 10 s: $(cat "$TORTURE_DIR/$2.err")"
}

# Whether watcher PID has read every event the kernel signalled (its
# eventfds count 0) and printed it (it sleeps, waiting for more).
watch_caught_up() {
	! grep -qs '^eventfd-count: *0*[1-9a-f]' /proc/"$1"/fdinfo/* &&
		[ "$(cut -d' ' -f3 "/proc/$1/stat")" = S ]
}

# Waits until watchers NAME... caught up; one without an eventfd to read
# would pass the wait unseen, so that fails.
watch_settle() {
	local name pid
	for name in "$@"; do
		pid=$(cat "$TORTURE_DIR/$name.pid")
		grep -qs '^eventfd-count:' /proc/"$pid"/fdinfo/* || fail "vmpctl watch $name ($pid) has no eventfd open"
		wait_until 10 watch_caught_up "$pid" || fail "vmpctl watch $name did not catch up with its events in 10 s"
	done
}

# The events watcher NAME printed (once watch_settle saw it catch up).
watch_events() {
	wc -l <"$TORTURE_DIR/$1.out"
}

# SIGTERM: a background job of a non-interactive shell starts with SIGINT
# ignored, and vmpctl keeps an ignored signal ignored (as nohup expects).
watch_stop() {
	kill -TERM "$(cat "$TORTURE_DIR/$1.pid")" 2>/dev/null || true
	wait "$(cat "$TORTURE_DIR/$1.pid")" || true
}

# Issue 13: listeners are not lost across the knob. One registered before a
# disable gets nothing while disabled and events again after re-enabling;
# one registered while disabled gets events once enabled.
# group: listeners
# requires: cgroup-v1
test_listeners_survive_disable() {
	local before_a runs
	need_torture
	have_memcg_v1 || skip "no memory.pressure_level on this kernel (cgroup v2 only)"
	have_pressure_level || skip "this kernel refuses cgroup.event_control registrations (PREEMPT_RT)"
	command -v vmpctl >/dev/null || skip "vmpctl is not in the initramfs"
	torture_dir_reset
	hog_cgroup_create
	watch_start "$HOG_CGROUP" early
	runs=$(hog_pass_settled)
	watch_settle early
	[ "$(watch_events early)" -gt 0 ] || fail "a listener got no events with the knob at 1 ($runs work runs)"
	set_knob 0
	before_a=$(watch_events early)
	watch_start "$HOG_CGROUP" late
	runs=$(hog_pass_settled)
	[ "$runs" -eq 0 ] || fail "vmpressure's work ran $runs times with the knob at 0"
	watch_settle early late
	[ "$(watch_events early)" -eq "$before_a" ] || fail "a listener got events with the knob at 0"
	[ "$(watch_events late)" -eq 0 ] || fail "a listener registered at 0 got events with the knob at 0"
	set_knob 1
	runs=$(hog_pass_settled)
	watch_settle early late
	[ "$(watch_events early)" -gt "$before_a" ] || fail "the listener registered before the disable got no events after re-enabling"
	[ "$(watch_events late)" -gt 0 ] || fail "the listener registered while disabled got no events once enabled"
	echo "listeners: early $(watch_events early) events ($before_a before the disable), late $(watch_events late)"
	watch_stop early
	watch_stop late
	hog_stop
}

# Issue 13: a listener's cgroup removed while disabled. vmpctl watch sees the
# removal and exits cleanly, the cgroup goes, and after re-enabling reclaim
# elsewhere still delivers events.
# group: listeners
# requires: cgroup-v1
test_listener_cgroup_removed_while_disabled() {
	local gone status=0
	need_torture
	have_memcg_v1 || skip "no memory.pressure_level on this kernel (cgroup v2 only)"
	have_pressure_level || skip "this kernel refuses cgroup.event_control registrations (PREEMPT_RT)"
	command -v vmpctl >/dev/null || skip "vmpctl is not in the initramfs"
	torture_dir_reset
	gone=$(memcg_root)/torture-gone
	as_reclaimer gone hog_cgroup_create
	watch_start "$gone" gone
	as_reclaimer gone hog_pass_settled
	set_knob 0
	as_reclaimer gone hog_pass_settled
	as_reclaimer gone hog_stop
	[ ! -d "$gone" ] || fail "$gone still exists after rmdir"
	wait_until 10 process_gone "$(cat "$TORTURE_DIR/gone.pid")" ||
		fail "vmpctl watch still runs 10 s after its cgroup was removed"
	wait "$(cat "$TORTURE_DIR/gone.pid")" || status=$?
	[ "$status" -eq 0 ] || fail "vmpctl watch exited $status after its cgroup was removed: $(cat "$TORTURE_DIR/gone.err")"
	grep -q 'was removed' "$TORTURE_DIR/gone.err" || fail "vmpctl watch did not see the removal: $(cat "$TORTURE_DIR/gone.err")"
	set_knob 1
	hog_cgroup_create
	watch_start "$HOG_CGROUP" after
	hog_pass_settled
	watch_settle after
	[ "$(watch_events after)" -gt 0 ] || fail "no events in another cgroup after the removal and re-enabling"
	watch_stop after
	hog_stop
}

# Issue 13: the last word on leaks. Everything the lane did before has run;
# some leaks (an object only the module's own data still points to) show up
# only once the module is gone.
# group: leaks
test_no_module_leaks_after_final_rmmod() {
	need_torture
	torture_dir_reset
	set_knob 0
	unload_module
	expect_unhooked "after the final rmmod"
	expect_no_module_leaks "after the final rmmod"
}
