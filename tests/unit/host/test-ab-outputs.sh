#!/bin/bash
# Every output renders one result (tools/ab/result.h):
# - whole runs: every output's headline is the design's (the ABBA blocks'
#   contrast, or Welch's where a metric has no blocks), so no output's sign
#   or figure can contradict the table's verdict. On the saved whole-run
#   A/Bs, the table's B vs A cell, p and verdict per metric must be --json's
#   top-level marker, diff_pct, p and verdict and --csv's marker; Welch's
#   figures live under "unpaired" (JSON) and unpaired_* (CSV) only;
# - both designs: --json's shared members (set-up, progress, losses, knob
#   changes, sanity) come first and last in one order, and --csv's shared
#   columns (each arm's summary, the headline, its verdict and power) first,
#   whichever design ran.
# Inputs: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)

# csv_column FILE NAME: NAME's column of each row, by the header.
csv_column() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		{ print $1 "\t" $c }' "$1"
}

for saved in "$fixtures"/ab-save/runs-*.jsonl; do
	name=$(basename "$saved" .jsonl)
	# --raw: fields split by one space, a space inside one written \x20
	"$VMPCTL" ab report --raw --noheadings --output metric,b-vs-a,p,verdict "$saved" |
		awk -v OFS='\t' 'NF == 4 && $2 ~ /%/ { print $1, $2, $3, $4 }' |
		sed 's/\\x20/ /g' >"$scratch/table"
	"$VMPCTL" ab report --json "$saved" >"$scratch/json"
	"$VMPCTL" ab report --csv "$saved" >"$scratch/csv"
	check "$name: the table has a headline row per metric" [ "$(wc -l <"$scratch/table")" -eq 4 ]
	check "$name: --json's marker, p and verdict are the table's" equal "json" \
		"$(jq -r '.metrics[] | [.name, .marker, .p, .verdict] | @tsv' "$scratch/json" |
			awk -F '\t' -v OFS='\t' '{ $3 = sprintf("%.3g", $3); print }')" \
		"$(cat "$scratch/table")"
	check "$name: --json's diff_pct is the table's B vs A" equal "diff_pct" \
		"$(jq -r '.metrics[] | [.name, .diff_pct] | @tsv' "$scratch/json" |
			awk -F '\t' '{ printf "%s %.2f%%\n", $1, $2 }')" \
		"$(awk -F '\t' '{ gsub(/[*() +]/, "", $2); print $1, $2 }' "$scratch/table")"
	check "$name: --csv's marker is the table's" equal "csv" \
		"$(csv_column "$scratch/csv" marker)" "$(cut -f 1,2 "$scratch/table")"
	check "$name: --json says which test each headline is" \
		jq -e '[.metrics[].test] | all(. == "abba-blocks-t" or . == "welch")' "$scratch/json" >/dev/null
	check "$name: --json's Welch figures are under unpaired only" \
		jq -e '.metrics | all(has("welch_p") | not) and all(.unpaired | has("welch_p") and has("diff_pct"))' \
		"$scratch/json" >/dev/null
done

# The members both designs share: the set-up and progress first, the losses
# (when counted), knob changes and sanity counts last but the samples.
json_shape() {
	jq -e '["mode","knob","a","b","order","seed","warmup","command","elapsed_s",
		"target_pct","precision_pct","precision_reached","out_of_time"] as $head |
		keys_unsorted | map(select(. != "vmpctl_version" and . != "kernel")) as $k |
		($k[:13] == $head) and ($k[-3:-1] == ["toggles", "sanity"]) and
		($k[-1] == "runs" or $k[-1] == "slices") and
		(($k | index("losses")) == null or ($k | index("losses")) == ($k | index("toggles")) - 1)' \
		"$1" >/dev/null || { echo "  members: $(jq -c keys_unsorted "$1")"; return 1; }
}

# ... and the CSV columns both share, first: each arm's summary, the
# design's headline and its power.
shared_columns=metric,higher_is_better
for arm in a b; do
	for column in n mean stddev cov_pct min max median median_ci_lo median_ci_hi \
		median_ci_coverage; do
		shared_columns+=,${column}_$arm
	done
done
shared_columns+=,test,diff_pct,diff_ci_lo_pct,diff_ci_hi_pct,p,p_holm,significant,marker
shared_columns+=,verdict,noise_pct,mde_pct,needed

for saved in "$fixtures"/ab-save/*.jsonl; do
	name=$(basename "$saved" .jsonl)
	"$VMPCTL" ab report --json "$saved" >"$scratch/json"
	check "$name: --json's shared members first and last, in one order" json_shape "$scratch/json"
	check "$name: --csv's shared columns first" equal "header" \
		"$("$VMPCTL" ab report --csv "$saved" | head -n 1 | cut -d, -f 1-34)" "$shared_columns"
	check "$name: --csv's verdict is --json's" equal "verdict" \
		"$(csv_column <("$VMPCTL" ab report --csv "$saved") verdict | cut -f 2)" \
		"$(jq -r '(.metrics // [.metric])[] | .verdict' "$scratch/json")"
done

finish
