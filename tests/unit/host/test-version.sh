#!/bin/bash
# vmpctl --version: the version the build defines (tests/unit builds it as
# "test") and the running kernel's release, one per line, so a pasted
# report says what it ran on; the version tools/Makefile builds in is the
# packages' (dkms.conf, debian/changelog). Inputs and output: see lib.sh.
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

top=$TOOLS/..
tool_version=$(sed -n 's/^VERSION ?= //p' "$TOOLS/Makefile")
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
deb_version=$(sed -n '1s/^[^ ]* (\([^-)]*\).*/\1/p' "$top/debian/changelog")
check "tools/Makefile's version ($tool_version) is dkms.conf's ($dkms_version)" \
	[ -n "$tool_version" ] && [ "$tool_version" = "$dkms_version" ]
check "tools/Makefile's version ($tool_version) is debian/changelog's ($deb_version)" \
	[ "$tool_version" = "$deb_version" ]

finish
