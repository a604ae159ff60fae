# make bench, inside the guest (busybox sh, run by the harness as its demo
# script): numbers only, never a verdict. bench/run starts it.
set -eu
. /vmtest/lib.sh

# pft in a memcg at a quarter of its size: every run reclaims ~48 MiB into
# zram, so vmpressure() runs thousands of times per run.
PFT="vmpctl pft --json --size 64M --memcg-limit 16M"
FAULTS='"fault/wsec":([0-9.]+)'
RUNS=10
STOCK_RUNS=20

# Loaded with enabled=1 against not loaded: the arms of the stock check.
MODULE_STATE='module_state() { if [ "$1" = absent ]; then ! [ -d '"$KNOB_DIR"' ] || rmmod vmpressure_ctl; else [ -d '"$KNOB_DIR"' ] || insmod '"$MODULE"'; fi; }; module_state'

field() {
	echo "$1" | cut -d, -f"$2"
}

# "<n> <median ms> <max ms>" of one toggle direction in ab's JSON.
toggles() {
	echo "$1" | sed -n "s/.*\"$2\":{\"n\":\([0-9]*\),\"median_s\":\([^,]*\),\"max_s\":\([^}]*\)}.*/\1 \2 \3/p" |
		awk '{ printf "%d %.2f %.2f", $1, $2 * 1000, $3 * 1000 }'
}

# One summary row from ab's CSV file (the metric line) and toggle medians.
row() {
	line=$(grep '^metric,[01],' "$2")
	printf '%-17s %8s %8s  %9.1f %9.1f  %6.4f  %-10s [%+.2f%%, %+.2f%%]  %6.3g  %6.2f%%\n' \
		"$1" "$3" "$4" "$(field "$line" 4)" "$(field "$line" 14)" \
		"$(awk -v a="$(field "$line" 4)" -v b="$(field "$line" 14)" 'BEGIN { print b / a }')" \
		"$(field "$line" 33)" "$(field "$line" 24)" "$(field "$line" 25)" \
		"$(field "$line" 28)" "$(field "$line" 35)" >>/tmp/rows
}

echo "== vmpressure_ctl bench: Debian $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
echo "pft: $PFT"
echo "A/B: $RUNS runs per arm (stock check: $STOCK_RUNS), ABBA, 1 warmup; toggles: 200 runs of true"
echo
echo "== 1. cost per vmpressure() call"
echo "SKIP: needs the test-only module that calls vmpressure() through its address"
echo
: >/tmp/rows

echo "== stock check: vmpctl ab --switch (module absent / loaded, enabled=1) -- $PFT"
vmpctl ab -n "$STOCK_RUNS" -w 1 -q --switch "$MODULE_STATE" --a absent --b stock \
	--metric "$FAULTS" --higher-is-better --csv -- $PFT >/tmp/ab.csv
cat /tmp/ab.csv
row "absent -> stock" /tmp/ab.csv - -
echo

for method in direct ftrace kprobe; do
	rmmod vmpressure_ctl 2>/dev/null || true
	if ! insmod "$MODULE" method="$method" 2>/dev/null; then
		printf '%-17s not available on this kernel\n' "$method" >>/tmp/rows
		continue
	fi
	echo "== $method: vmpctl ab -n 200 -w 0 -- true (toggle latency)"
	json=$(vmpctl ab -n 200 -w 0 -q --json -- true 2>/dev/null)
	off=$(toggles "$json" a_to_b)
	on=$(toggles "$json" b_to_a)
	echo "1->0: n, median ms, max ms: $off"
	echo "0->1: n, median ms, max ms: $on"
	echo "== $method: vmpctl ab -- $PFT"
	vmpctl ab -n "$RUNS" -w 1 -q --metric "$FAULTS" --higher-is-better \
		--target 1% --csv -- $PFT >/tmp/ab.csv
	cat /tmp/ab.csv
	row "stock -> $method" /tmp/ab.csv "$(echo "$off" | cut -d' ' -f2)" \
		"$(echo "$on" | cut -d' ' -f2)"
	echo
done

echo "== toggle latency (median) and pft fault/wsec A/B, higher is better"
echo "(absent -> stock: A without the module, B loaded with enabled=1;"
echo " stock -> backend: A enabled=1, B enabled=0 short-circuited by that backend)"
printf '%-17s %8s %8s  %9s %9s  %6s  %-10s %-18s  %6s  %7s\n' "A -> B" "1->0 ms" "0->1 ms" \
	"A f/wsec" "B f/wsec" "B/A" "B vs A" "95% CI" "p" "MDE"
cat /tmp/rows
