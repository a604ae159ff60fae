#!/bin/bash
# make bench reads its figures out of vmpctl ab's JSON with sed and awk
# (the guest has busybox, no JSON tool) and states the A/A false-positive
# rate with two 95% intervals. This checks those readers against a JSON
# line shaped as ab writes it, whose keys repeat in nested objects, against
# the real vmpctl's output, and the intervals against published values; and
# that bench/run cuts each section out of the guest's output whole.
# Inputs: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)

# The named functions of a shell file, for sourcing on their own.
functions_of() {
	local file=$1 name
	shift
	for name; do
		sed -n "/^$name() {/,/^}/p" "$file"
	done
}

# shellcheck source=/dev/null
. <(functions_of "$top/bench/guest.sh" json_num json_after json_interval json_obj \
	json_flag abba_split aa_interval nominal_level pft_row column_of)
# shellcheck source=/dev/null
. <(functions_of "$top/bench/run" section_text)

# Whole runs: the first metric's design figures (paired by block), its
# unpaired ones and its blocks, then another metric's, under the same keys.
abba=$scratch/abba.json
printf '%s\n' '{"elapsed_s":181.5,"metrics":[{"name":"fault/wsec","a":{"n":40,"cov_pct":21.5},"test":"abba-blocks-t","diff_pct":-1.25,"diff_ci_pct":[-3.5,1],"p":0.25,"noise_pct":4.5,"mde_pct":2.75,"blocks":{"n":20,"paired_t":-1.5},"unpaired":{"diff_pct":-1.5,"diff_ci_pct":[-9.25,6.5],"welch_p":0.71,"noise_pct":30.5,"mde_pct":18.25}},{"name":"sys(s)","a":{"n":40},"diff_ci_pct":[-40,40],"p":0.5,"mde_pct":99.5,"blocks":{"n":20},"unpaired":{"diff_ci_pct":[-50,50],"mde_pct":77.5}}]}' >"$abba"
abba_split "$abba" "$scratch/abba"
check "whole runs: the unpaired MDE is the first metric's own" \
	equal "unpaired MDE" "$(json_num "$scratch/abba-unpaired" mde_pct)" 18.25
check "whole runs: the paired MDE is the first metric's design's" \
	equal "paired MDE" "$(json_num "$scratch/abba-paired" mde_pct)" 2.75
check "whole runs: runs per arm and blocks" \
	equal "n" "$(json_num "$abba" n) $(json_num "$scratch/abba-blocks" n)" "40 20"
check "whole runs: each interval and p is its own analysis'" \
	equal "intervals" "$(json_interval "$scratch/abba-unpaired" diff_ci_pct) $(json_interval "$scratch/abba-paired" diff_ci_pct) $(json_num "$scratch/abba-paired" p) $(json_num "$scratch/abba-unpaired" welch_p)" \
	"[-9.25%, +6.50%] [-3.50%, +1.00%] 0.25 0.71"

# Interleaved: the flat objects, and a flag that ends its object.
il=$scratch/il.json
printf '%s\n' '{"metric":{"a":{"n":9},"diff_pct":0.5,"diff_ci_pct":[-0.25,1.25],"signed_rank_exact":true,"fieller_ci_pct":[-1,2]},"balance":{"pairs_ab":30,"pairs_ba":31,"balanced":false},"carry_over":{"checked":true,"long_p":null,"found":true},"pairs":{"kept":61}}' >"$il"
json_obj "$il" balance >"$scratch/balance"
json_obj "$il" carry_over >"$scratch/carry"
check "interleaved: the sign-flip interval, not Fieller's" \
	equal "interval" "$(json_interval "$il" diff_ci_pct)" "[-0.25%, +1.25%]"
check "interleaved: flags in the middle and at the end of an object" \
	equal "flags" "$(json_flag "$il" signed_rank_exact) $(json_flag "$scratch/balance" balanced) $(json_flag "$scratch/carry" found)" \
	"true false true"
check "interleaved: counts from the flat objects" \
	equal "counts" "$(json_num "$scratch/balance" pairs_ab):$(json_num "$scratch/balance" pairs_ba) $(json_num "$il" kept)" \
	"30:31 61"

# The real vmpctl: a whole-run A/B of a fake workload against a file knob,
# whose paired and unpaired MDEs the readers must find as numbers.
printf '1\n' >"$scratch/knob"
cat >"$scratch/workload" <<'EOF'
#!/bin/sh
echo "{\"fault/wsec\":$(( $$ % 97 + 1000 ))}"
EOF
chmod +x "$scratch/workload"
"$VMPCTL" ab --knob "$scratch/knob" --a 1 --b 0 -n 8 -w 0 -q --json --metric '"fault/wsec":([0-9.]+)' \
	--metric-name fault/wsec --higher-is-better --save "$scratch/real.save" -- "$scratch/workload" \
	>"$scratch/real.json"
abba_split "$scratch/real.json" "$scratch/real"
is_number() { [[ $2 =~ ^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$ ]] || { echo "  $1: [$2] is not a number"; return 1; }; }
check "real ab JSON: the unpaired MDE is a number" \
	is_number "unpaired MDE" "$(json_num "$scratch/real-unpaired" mde_pct)"
check "real ab JSON: the paired MDE is a number" \
	is_number "paired MDE" "$(json_num "$scratch/real-paired" mde_pct)"
check "real ab JSON: 8 runs per arm, 4 ABBA blocks (two A and two B runs each)" \
	equal "n" "$(json_num "$scratch/real.json" n) $(json_num "$scratch/real-blocks" n)" "8 4"
check "real ab JSON: the paired figures are the design's (the table's)" \
	equal "test" "$(json_after "$scratch/real-paired" test '"' '"')" "abba-blocks-t"

# Section 3's row from the real ab's CSV: the design's B vs A, interval, p
# and MDE, whatever the column order (the table's headline row).
"$VMPCTL" ab report --csv "$scratch/real.save" >"$scratch/real.csv"
"$VMPCTL" ab report --raw --noheadings --output metric,b-vs-a,95-ci,p,mde "$scratch/real.save" |
	awk -v OFS='\t' '$1 == "fault/wsec" && NF == 5 { print $2, $3, $4, $5 }' |
	sed 's/\\x20/ /g' >"$scratch/real.row"
IFS=$'\t' read -r marker ci p mde <"$scratch/real.row"
check "pft_row: the design's B vs A, 95% CI, p and MDE (the table's)" equal "row" \
	"$(pft_row "stock -> test" "$scratch/real.csv" | cut -c 48-)" \
	"$(printf '%-10s %s  %6s  %7s' "$marker" "$ci" "$p" "$mde")"

# Wilson's and Clopper-Pearson's 95% intervals (Clopper-Pearson for 0 of n
# is [0, 1 - 0.025^(1/n)]; for 3 of 60 and 1 of 20, R's binom.test).
# The exact sign-flip test's level: the largest even count of 2^N sign
# vectors below 5% of them (5 pairs cannot reach p < 0.05: 2/32 is 6.25%).
check "A/A level: 5 pairs" equal "5" "$(nominal_level 5)" "0/32 = 0.00%"
check "A/A level: 6 pairs" equal "6" "$(nominal_level 6)" "2/64 = 3.12%"
check "A/A level: 8 pairs" equal "8" "$(nominal_level 8)" "12/256 = 4.69%"
check "A/A level: 10 pairs" equal "10" "$(nominal_level 10)" "50/1024 = 4.88%"
check "A/A level: 12 pairs" equal "12" "$(nominal_level 12)" "204/4096 = 4.98%"
check "A/A interval: 0 of 60" equal "0/60" "$(aa_interval 0 60)" \
	"0.0%; 95% interval Wilson [0.0%, 6.0%], Clopper-Pearson [0.0%, 6.0%]"
check "A/A interval: 3 of 60" equal "3/60" "$(aa_interval 3 60)" \
	"5.0%; 95% interval Wilson [1.7%, 13.7%], Clopper-Pearson [1.0%, 13.9%]"
check "A/A interval: 1 of 20" equal "1/20" "$(aa_interval 1 20)" \
	"5.0%; 95% interval Wilson [0.9%, 23.6%], Clopper-Pearson [0.1%, 24.9%]"

# bench/run's cut: a section runs to the next numbered section; the lines
# between ("== direct: ...") belong to the section they are in.
guest=$scratch/ktap.txt
printf '%s\n' '== vmpressure_ctl bench: Debian 6.1.0-57-amd64, 2 CPUs' '== 2. toggle' 'row 2' \
	'== 3. pft' '== direct: ab' 'row 3' '== 4. methods' '== 4a. series' 'row 4a' \
	'== 4. summary' 'row 4' '# demo exit status 0' >"$guest"
check "bench/run: section 3 with its unnumbered parts" \
	equal "section 3" "$(section_text 3 "$guest" | tr '\n' '|')" "== 3. pft|== direct: ab|row 3|"
check "bench/run: section 4 with 4a and its summary, not the harness's line" \
	equal "section 4" "$(section_text 4 "$guest" | tr '\n' '|')" \
	"== 4. methods|== 4a. series|row 4a|== 4. summary|row 4|"

# bench/run end to end, with a stand-in for the VM harness whose guest
# printed sections 2 and 4 but not 3: each printed section gets its file
# with the header, and the missing one fails the run. Section 4's host
# rows (bench/host-ab.sh, minutes of real runs) are a stand-in that logs
# it was run.
mkdir -p "$scratch/tree/bench/results" "$scratch/tree/tests/vm"
cp "$top/bench/run" "$scratch/tree/bench/run"
printf '#!/bin/sh\necho "host rows run" >"%s/host-rows"\n' "$scratch" >"$scratch/tree/bench/host-ab.sh"
chmod +x "$scratch/tree/bench/host-ab.sh"
cat >"$scratch/tree/tests/vm/run" <<'EOF'
#!/bin/sh
mkdir -p "$VMPCTL_VM_OUT/$2" && cat "$FAKE_GUEST_OUTPUT" >"$VMPCTL_VM_OUT/$2/ktap.txt"
EOF
chmod +x "$scratch/tree/tests/vm/run"
grep -v '^== 3\.\|^== direct\|^row 3' "$guest" >"$scratch/guest-without-3"
status=0
FAKE_GUEST_OUTPUT=$scratch/guest-without-3 BENCH_SECTIONS=2,3,4 "$scratch/tree/bench/run" \
	>"$scratch/bench.out" 2>&1 || status=$?
check "bench/run: a section the guest did not print fails the run" equal "exit" "$status" 1
check "bench/run: it names the missing section" grep -q 'printed no section 3' "$scratch/bench.out"
check "bench/run: section 4 runs its host rows" [ -s "$scratch/host-rows" ]
results=$scratch/tree/bench/results
check "bench/run: no file for the missing section" [ ! -e "$results/pft-ab.txt" ]
for file in toggle-latency ab-method; do
	check "bench/run: $file.txt has the date, commit, load and kernel in its header" \
		grep -qz '# date: 2[0-9-]* [0-9:]* UTC.*# commit: .*# host load at start: .*load average.*# 6.1: 6.1.0-57-amd64' \
		"$results/$file.txt"
done
check "bench/run: ab-method.txt holds section 4" equal "section 4 file" \
	"$(grep -c '^row 4' "$results/ab-method.txt")" 2

finish
