#!/bin/bash
# Golden outputs: what vmpctl prints on fixed inputs, byte for byte. The
# saved A/Bs in fixtures/ab-save (whole runs in ABBA order, whole runs in
# random order with a failed run, an interleaved A/B of a real kernel)
# re-reported by `vmpctl ab report` as the table, --json, --csv and every
# --export-* (Markdown, benchstat included), and every command's --help.
# A change of any byte fails here: a refactoring must keep them, a change
# on purpose regenerates them and says why in its commit:
#
#   VMPCTL_GOLDEN_UPDATE=1 make -C tests/unit run
#
# Masked, as they vary by build and machine: "vmpctl_version" and "kernel"
# in JSON (ab report stamps the running vmpctl's and kernel's). Nothing
# else is masked. Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
golden=$fixtures/golden

mask() {
	sed -E -e 's/"vmpctl_version":"[^"]*"/"vmpctl_version":"MASKED"/g' \
		-e 's/"kernel":"[^"]*"/"kernel":"MASKED"/g' "$1"
}

# golden NAME FILE: FILE (masked) is fixtures/golden/NAME, or becomes it.
cases=()
golden() {
	cases+=("$1")
	mask "$2" >"$scratch/masked"
	if [ -n "${VMPCTL_GOLDEN_UPDATE:-}" ]; then
		cp "$scratch/masked" "$golden/$1"
		pass "$1: regenerated"
		return
	fi
	if [ ! -f "$golden/$1" ]; then
		fail "$1: no golden file (VMPCTL_GOLDEN_UPDATE=1 records it)"
		return
	fi
	if cmp -s "$scratch/masked" "$golden/$1"; then
		pass "$1: byte-identical"
	else
		fail "$1: differs from the golden output:"
		diff -u "$golden/$1" "$scratch/masked" | head -n 40 | cut -c 1-240
	fi
}

# run_golden NAME COMMAND...: COMMAND exits 0 and prints NAME's bytes.
run_golden() {
	local name=$1 rc
	shift
	"$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	check "$name: exits 0 ($(head -c 200 "$scratch/err"))" [ "$rc" -eq 0 ]
	golden "$name" "$scratch/out"
}

# The saved files are read where they lie; the exports are written here.
for saved in "$fixtures"/ab-save/*.jsonl; do
	name=$(basename "$saved" .jsonl)
	run_golden "report-$name.table" "$VMPCTL" ab report "$saved"
	run_golden "report-$name.json" "$VMPCTL" ab report --json "$saved"
	run_golden "report-$name.csv" "$VMPCTL" ab report --csv "$saved"
	run_golden "report-$name.raw" "$VMPCTL" ab report --raw --noheadings "$saved"
	rm -f "$scratch"/export.*
	"$VMPCTL" ab report --export-json "$scratch/export.json" \
		--export-csv "$scratch/export.csv" \
		--export-markdown "$scratch/export.md" \
		--export-benchstat "$scratch/export.benchstat" "$saved" >/dev/null
	for ext in json csv md benchstat; do
		golden "report-$name.export.$ext" "$scratch/export.$ext"
	done
done

# Every command's --help (and vmpctl's own).
run_golden "help-vmpctl" "$VMPCTL" --help
for command in status enable disable on off measure check watch ab pft net; do
	run_golden "help-$command" "$VMPCTL" "$command" --help
done
run_golden "help-ab-report" "$VMPCTL" ab report --help
run_golden "help-ab-merge" "$VMPCTL" ab merge --help

# Every golden file has its case above (none left over from a removed one).
for file in "$golden"/*; do
	check "$(basename "$file"): a case of this test" \
		grep -qxF "$(basename "$file")" <(printf '%s\n' "${cases[@]}")
done

finish
