# shellcheck shell=bash
# The benchmark programs of the guest's workloads tests (tests-workloads.sh)
# in the initramfs: each Debian package's program, found with dpkg -L, and
# every library it loads, found with ldd, copied from this machine's
# installed packages (scripts/deps workloads). Only for a lane that runs
# one of those tests, whose guest has this machine's architecture: the
# libraries add some 100 MB to the image.
#
# Inputs:  stage (initramfs.sh), lane_arch (lane.sh); the lane's test list;
#          mode and demo_script (tests/vm/run): a demo whose script has the
#          line "# requires: workloads" gets the programs too.
# Outputs: stage_workloads copies the programs into stage/usr/bin and their
#          libraries to the same paths under stage; on failure it sets
#          lane_fail and returns 1.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

# The Debian packages and the program each ships under its own name.
workload_packages="fio sysbench iperf3 stress-ng"

# stage_workloads TESTS: TESTS is the file of the tests the guest runs.
stage_workloads() {
	local tests=$1 pkg prog lib missing=""
	grep -q '^workloads_' "$tests" ||
		{ [ "$mode" = demo ] && grep -q '^# requires: workloads' "$demo_script"; } || return 0
	[ "$lane_arch" = "$(dpkg --print-architecture)" ] ||
		{ lane_fail="the workloads tests copy this machine's programs: the guest is $lane_arch"; return 1; }
	for pkg in $workload_packages; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' ||
			missing="$missing $pkg"
	done
	[ -z "$missing" ] ||
		{ lane_fail="the workloads tests need$missing on this machine: scripts/deps workloads"; return 1; }
	for pkg in $workload_packages; do
		prog=$(dpkg -L "$pkg" | grep -x "/usr/bin/$pkg") ||
			{ lane_fail="package $pkg ships no /usr/bin/$pkg"; return 1; }
		cp "$prog" "$stage/usr/bin/" || { lane_fail="cannot stage $prog"; return 1; }
		# "name => /path (addr)" lines, and the loader's "/path (addr)"
		for lib in $(ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
			[ -e "$stage$lib" ] && continue
			if ! mkdir -p "$stage$(dirname "$lib")" || ! cp -L "$lib" "$stage$lib"; then
				lane_fail="cannot stage $lib for $prog"
				return 1
			fi
		done
	done
}
