#!/bin/bash
# vmpctl --version: the version the build defines (tests/unit builds it as
# "test") and the running kernel's release, one per line, so a pasted
# report says what it ran on; the version tools/Makefile builds in is the
# packages' (dkms.conf, debian/changelog); every JSON output names both.
# Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

printf 'vmpctl test\nkernel %s\n' "$(uname -r)" >"$scratch/expected"
"$VMPCTL" --version >"$scratch/out"
status=$?
check "--version: exit 0 (status $status)" [ "$status" -eq 0 ]
check "--version: the build's version, then the running kernel's release" \
	same_bytes "$scratch/out" "$scratch/expected"
"$VMPCTL" -V >"$scratch/out"
check "-V: the same" same_bytes "$scratch/out" "$scratch/expected"

# Every JSON output says what made it (issue 25): the version and kernel.
origin="\"vmpctl_version\":\"test\",\"kernel\":\"$(uname -r)\"}"
knob=$scratch/knob
printf '1\n' >"$knob"
"$VMPCTL" ab -q --json --knob "$knob" -n 2 -w 0 -- true >"$scratch/json"
check "ab --json ends with the version and kernel" grep -qF "$origin" "$scratch/json"
"$VMPCTL" ab -q --knob "$knob" -n 2 -w 0 --save "$scratch/saved" -- true >/dev/null
check "ab --save: every line names the version and kernel" \
	[ "$(grep -cF "$origin" "$scratch/saved")" -eq "$(wc -l <"$scratch/saved")" ]
"$VMPCTL" ab report --json "$scratch/saved" >"$scratch/json"
check "ab report --json names the version and kernel" grep -qF "$origin" "$scratch/json"
"$VMPCTL" pft --json --size 1M --reps 1 >"$scratch/json"
check "pft --json names the version and kernel" grep -qF "$origin" "$scratch/json"

top=$TOOLS/..
tool_version=$(sed -n 's/^VERSION ?= //p' "$TOOLS/Makefile")
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
deb_version=$(sed -n '1s/^[^ ]* (\([^-)]*\).*/\1/p' "$top/debian/changelog")
check "tools/Makefile's version ($tool_version) is dkms.conf's ($dkms_version)" \
	[ -n "$tool_version" ] && [ "$tool_version" = "$dkms_version" ]
check "tools/Makefile's version ($tool_version) is debian/changelog's ($deb_version)" \
	[ "$tool_version" = "$deb_version" ]

finish
