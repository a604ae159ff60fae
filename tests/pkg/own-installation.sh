# shellcheck shell=bash disable=SC2154 # name and version: the sourcing test sets them
# Sourced by the package tests that install and remove the module for real
# (tests/pkg/lifecycle, tests/pkg/make-install): a machine where someone
# installed vmpressure-ctl (the README's Install step, or make install)
# keeps it. Those tests then skip, saying why, instead of failing or purging
# it; in CI (CI set, as .ci/run does) a machine with it is broken and they fail.
# Needs $name and $version (dkms.conf's PACKAGE_NAME and PACKAGE_VERSION).

# PACKAGE is installed, or removed with its configuration kept.
known_to_dpkg() {
	dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -qv '^un'
}

# What of vmpressure-ctl is installed on this machine, or nothing.
own_installation() {
	local pkg
	for pkg in "$name-dkms" vmpctl; do
		if known_to_dpkg "$pkg"; then
			echo "the $pkg package is installed (apt purge $name-dkms vmpctl to run this)"
			return
		fi
	done
	if [ -n "$(dkms status -m "$name" 2>/dev/null)" ] || [ -e "/usr/src/$name-$version" ]; then
		echo "$name is registered with dkms or in /usr/src/$name-$version (make uninstall to run this)"
	fi
}

# shellcheck source=tests/vm/lib/verdict.sh
. tests/vm/lib/verdict.sh # in_ci: what the VM lanes take for a CI run

# Ends the test: a SKIP with REASON, or a failure in CI.
skip_for_own_installation() {
	if in_ci; then
		echo "not ok - CI's machine has vmpressure-ctl installed: $1"
		exit 1
	fi
	echo "ok - # SKIP $1"
	exit 0
}
