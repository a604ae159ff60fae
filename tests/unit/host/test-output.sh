#!/bin/bash
# Issue 6: output is whole or the exit status says it is not. A write
# error on stdout (/dev/full) fails the command after it restored the
# knob, for --help too; JSON is valid whatever bytes the command line
# held. Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

knob=$scratch/knob
printf '1\n' >"$knob"
cp "$knob" "$scratch/found"

"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 -- true >/dev/full 2>"$scratch/err"
status=$?
check "ab > /dev/full: exit 1 (status $status)" [ "$status" -eq 1 ]
check "ab > /dev/full: says so" grep -q 'write error: No space left on device' "$scratch/err"
check "ab > /dev/full: knob restored" same_bytes "$knob" "$scratch/found"

for args in "--help" "--version" "ab --help" "pft --help" "status --help"; do
	# shellcheck disable=SC2086 # one word per argument
	"$VMPCTL" $args >/dev/full 2>/dev/null
	status=$?
	check "vmpctl $args > /dev/full: exit 1 (status $status)" [ "$status" -eq 1 ]
done
check "vmpctl --help > a file: exit 0" "$VMPCTL" --help >"$scratch/help"

# A command and values that are not UTF-8 still give valid JSON.
"$VMPCTL" ab -q --json --knob "$knob" --a "$(printf 'caf\351')" --b "$(printf '\377')" \
	-n 2 -w 0 --metric-name "$(printf 'm\300')" --metric 'v=([0-9]+)' -- \
	sh -c 'echo v=1' "$(printf '\200\n\t"\134')" >"$scratch/json"
status=$?
check "invalid UTF-8: exit 0 (status $status)" [ "$status" -eq 0 ]
check "invalid UTF-8: JSON is valid" "$JSON_VALID" <"$scratch/json"
check "invalid UTF-8: knob restored" same_bytes "$knob" "$scratch/found"

# Every other --json is one valid line too.
"$VMPCTL" pft --json --size 4M >"$scratch/json"
check "pft --json: valid" "$JSON_VALID" <"$scratch/json"
check "pft --json: the key the README's --metric matches" \
	grep -q '"fault/wsec":[0-9.]*,' "$scratch/json"
"$VMPCTL" status --json >"$scratch/json"
check "status --json: valid" "$JSON_VALID" <"$scratch/json"

finish
