#!/bin/bash
# vmpctl ab merge FILE...: --save files of "hosts" with known effects
# (fleet-score.sh) pooled: a fleet that agrees, one whose hosts differ in
# sign, one without an effect, strata that differ; files of another A/B
# refused, each difference named; every output format and the forest plot.
# Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

score=$(cd "$(dirname "$0")" && pwd)/fleet-score.sh

# host NAME EFFECT-PER-MILLE [ab options...]: NAME.jsonl in $scratch; the
# knob has the same path on every host (cd into the host's folder)
host() {
	local name=$1 effect=$2
	shift 2
	mkdir -p "$scratch/$name"
	printf '0\n' >"$scratch/$name/knob"
	# each host's noise its own: the seed counter starts at a hash of its name
	cksum <<<"$name" | cut -c1-6 >"$scratch/$name/state"
	(cd "$scratch/$name" && "$VMPCTL" ab -q --knob knob --a 0 --b 1 -n 10 -w 0 \
		--seed 7 --metric 'score ([0-9]+)' --metric-name score \
		--higher-is-better --save "$scratch/$name.jsonl" "$@" -- \
		"$score" knob "$effect" state >/dev/null)
}

merge() { # OUT FILES...: merge --json to OUT, stderr to OUT.err, status in rc
	local out=$1
	shift
	"$VMPCTL" ab merge --json "$@" >"$out" 2>"$out.err"
	rc=$?
}

# +5% on four hosts: B better on the fleet, the pool near +5%.
for h in a1 a2 a3 a4; do host "$h" 50; done
merge "$scratch/agree" "$scratch"/a?.jsonl
check "agree: exits 0 ($(cat "$scratch/agree.err"))" [ "$rc" -eq 0 ]
check "agree: valid JSON" "$JSON_VALID" <"$scratch/agree"
check "agree: B better on the fleet" grep -q '"verdict":"B better on the fleet"' "$scratch/agree"
check "agree: pooled +4..+6%" \
	grep -Eq '"pooled":\{"hosts":4,"effect_pct":(4|5)\.' "$scratch/agree"
check "agree: no host differs" grep -q '"hosts_differ":\[\]' "$scratch/agree"

# Six hosts, one of them 2% worse while the rest gain 5..9%: the pool is
# clear of 0, a new host may lose: it depends on the host, d4 named.
i=0
for e in 80 60 70 -20 90 50; do i=$((i + 1)); host "d$i" "$e"; done
merge "$scratch/depends" "$scratch"/d?.jsonl
check "depends: it depends on the host" \
	grep -q '"verdict":"it depends on the host"' "$scratch/depends"
check "depends: d4 is among the hosts that differ" \
	grep -q '"hosts_differ":\[[^]]*"d4"' "$scratch/depends"
check "depends: I2 above 90%" grep -Eq '"i2_pct":9[0-9]\.' "$scratch/depends"
"$VMPCTL" ab merge "$scratch"/d?.jsonl >"$scratch/depends.txt"
check "depends table: lists the hosts that differ" \
	grep -Eq '^verdict: it depends on the host \(hosts .*d4' "$scratch/depends.txt"
check "depends table: a row per host" [ "$(grep -c '^d[1-6] ' "$scratch/depends.txt")" -eq 6 ]

# No effect anywhere: no difference.
for h in n1 n2 n3; do host "$h" 0; done
merge "$scratch/none" "$scratch"/n?.jsonl
check "none: no difference" grep -q '"verdict":"no difference"' "$scratch/none"

# Strata: the a hosts say kernel 6.1, the n hosts 6.12; their difference
# is found, each pooled alone.
for h in a1 a2 a3 a4 n1 n2 n3; do
	k=6.12
	case $h in a*) k=6.1 ;; esac
	sed -i "1s/\"kernel\":\"[^\"]*\"/\"kernel\":\"$k\"/" "$scratch/$h.jsonl"
done
merge "$scratch/by" --by kernel "$scratch"/a?.jsonl "$scratch"/n?.jsonl
check "--by kernel: valid JSON ($(cat "$scratch/by.err"))" "$JSON_VALID" <"$scratch/by"
check "--by kernel: 6.1 better, 6.12 no difference" \
	grep -q '"stratum":"6.1",.*"verdict":"B better on the fleet".*"stratum":"6.12",.*"verdict":"no difference"' "$scratch/by"
check "--by kernel: the strata differ (p < 0.001)" \
	grep -Eq '"strata_q_p":([0-9.]+e-[0-9]+|0\.000)' "$scratch/by"
"$VMPCTL" ab merge --by no_such_field "$scratch"/a?.jsonl >/dev/null 2>"$scratch/err"
check "--by an absent field: exit 2" [ $? -eq 2 ]
check "--by an absent field: says so" grep -q 'no such field' "$scratch/err"

# Another A/B: refused, each difference named; --force pools it.
host other 50
sed -i '1s/"b":"1"/"b":"2"/; 1s/"higher_is_better":true/"higher_is_better":false/' \
	"$scratch/other.jsonl"
"$VMPCTL" ab merge "$scratch"/a1.jsonl "$scratch/other.jsonl" >/dev/null 2>"$scratch/err"
check "disagree: exit 2" [ $? -eq 2 ]
check "disagree: arm B's value named" grep -q "arm B's value 2, not 1" "$scratch/err"
check "disagree: the metric's direction named" \
	grep -q "direction of the metric false, not true" "$scratch/err"
check "disagree: --force is offered" grep -q -- '--force' "$scratch/err"
"$VMPCTL" ab merge --force "$scratch"/a1.jsonl "$scratch/other.jsonl" >/dev/null 2>"$scratch/err"
check "disagree --force: exit 0" [ $? -eq 0 ]
check "disagree --force: differences still named" grep -q "arm B" "$scratch/err"
"$VMPCTL" ab merge "$scratch/a1.jsonl" >/dev/null 2>&1
check "one file: exit 2" [ $? -eq 2 ]

# The other formats and the forest plot.
"$VMPCTL" ab merge --csv "$scratch"/d?.jsonl >"$scratch/csv"
check "--csv: header, 6 hosts and the pool" [ "$(wc -l <"$scratch/csv")" -eq 8 ]
check "--csv: the pool's row" grep -q '^pooled,all,6,.*,it depends on the host$' "$scratch/csv"
"$VMPCTL" ab merge --markdown "$scratch"/d?.jsonl >"$scratch/md"
check "--markdown: the pooled row" grep -q '^| \*\*pooled\*\* | 6 hosts |' "$scratch/md"
"$VMPCTL" ab merge --plot "$scratch/fleet.svg" "$scratch"/d?.jsonl >/dev/null
check "--plot: an SVG" grep -q '<svg' "$scratch/fleet.svg"
"$VMPCTL" ab merge --plot "$scratch/fleet.gif" "$scratch"/d?.jsonl >/dev/null 2>&1
check "--plot .gif: exit 2" [ $? -eq 2 ]

finish
