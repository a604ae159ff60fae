# shellcheck shell=bash
# The benchmark programs of the guest's workloads tests (tests-workloads.sh)
# in the initramfs: each Debian package's program, found with dpkg -L, and
# every library it loads, found with ldd, copied from this machine's
# installed packages (scripts/deps workloads). For pgbench, PostgreSQL's
# server as well: the postgresql-N package the postgresql package depends
# on gives postgres, initdb and pgbench, the two modules initdb loads
# (plpgsql, dict_snowball) and its share directory, at the same paths
# (the programs find the rest relative to their own). Only the programs of
# the tests the lane runs, whose guest has this machine's architecture: all
# of them add some 100 MB to the image.
#
# Inputs:  stage (initramfs.sh), lane_arch (lane.sh); the lane's test list;
#          mode and demo_script (tests/vm/run): a demo whose script has the
#          line "# requires: workloads" gets the programs too.
# Outputs: stage_workloads copies the programs its tests need into
#          stage/usr/bin and their libraries to the same paths under stage;
#          on failure it sets lane_fail and returns 1.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

# The Debian packages and the program each ships under its own name.
workload_packages="fio sysbench iperf3 stress-ng"

# The server package's files (under its lib and share directories) that
# initdb, postgres and pgbench need.
postgres_files='bin/postgres bin/initdb bin/pgbench lib/plpgsql.so lib/dict_snowball.so'

# stage_file PATH: PATH and every library it loads, at the same paths under
# stage (a copy, not a link: the initramfs holds no link to this machine).
stage_file() {
	local lib
	if ! mkdir -p "$stage$(dirname "$1")" || ! cp -L "$1" "$stage$1"; then
		lane_fail="cannot stage $1"
		return 1
	fi
	# "name => /path (addr)" lines, and the loader's "/path (addr)"
	for lib in $(ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$stage$lib" ] && continue
		if ! mkdir -p "$stage$(dirname "$lib")" || ! cp -L "$lib" "$stage$lib"; then
			lane_fail="cannot stage $lib for $1"
			return 1
		fi
	done
}

# stage_postgres: the PostgreSQL server files, from the packages.
stage_postgres() {
	local server file path share
	server=$(dpkg-query -W -f='${Depends}' postgresql | grep -o 'postgresql-[0-9][0-9]*' | head -n 1)
	[ -n "$server" ] || { lane_fail="the postgresql package depends on no postgresql-N"; return 1; }
	for file in $postgres_files; do
		path=$(dpkg -L "$server" | grep -E "^/usr/lib/postgresql/[0-9]+/$file\$") ||
			{ lane_fail="package $server ships no $file"; return 1; }
		stage_file "$path" || return 1
	done
	share=$(dpkg -L "$server" | grep -xE '/usr/share/postgresql/[0-9]+' | head -n 1)
	[ -f "$share/postgres.bki" ] || { lane_fail="package $server has no share directory with postgres.bki"; return 1; }
	if ! mkdir -p "$stage$share" || ! cp -R "$share/." "$stage$share/"; then
		lane_fail="cannot stage $share"
		return 1
	fi
	# the server's time zone (Debian's PostgreSQL reads the system's tzdata)
	if ! mkdir -p "$stage/usr/share/zoneinfo" ||
		! cp -L /usr/share/zoneinfo/UTC "$stage/usr/share/zoneinfo/UTC"; then
		lane_fail="cannot stage /usr/share/zoneinfo/UTC (tzdata)"
		return 1
	fi
}

# The package each workloads or service test's name starts with
# (workloads_NAME..., service_NAME...).
workload_test_packages="fio:fio sysbench:sysbench iperf3:iperf3 stress_ng:stress-ng pgbench:postgresql"

# stage_workloads TESTS: TESTS is the file of the tests the guest runs. A
# demo that asks for workloads gets every program, a lane those its tests
# run: 6.12's image stays without PostgreSQL's.
stage_workloads() {
	local tests=$1 pkg prog entry wanted="" missing=""
	if [ "$mode" = demo ]; then
		! grep -q '^# requires: workloads' "$demo_script" || wanted="$workload_packages postgresql"
	else
		for entry in $workload_test_packages; do
			! grep -qE "^(workloads|service)_${entry%%:*}" "$tests" || wanted="$wanted ${entry#*:}"
		done
	fi
	[ -n "$wanted" ] || return 0
	[ "$lane_arch" = "$(dpkg --print-architecture)" ] ||
		{ lane_fail="the workloads tests copy this machine's programs: the guest is $lane_arch"; return 1; }
	for pkg in $wanted; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$' ||
			missing="$missing $pkg"
	done
	[ -z "$missing" ] ||
		{ lane_fail="the workloads tests need$missing on this machine: scripts/deps workloads"; return 1; }
	for pkg in $wanted; do
		if [ "$pkg" = postgresql ]; then
			stage_postgres || return 1
			continue
		fi
		prog=$(dpkg -L "$pkg" | grep -x "/usr/bin/$pkg") ||
			{ lane_fail="package $pkg ships no /usr/bin/$pkg"; return 1; }
		stage_file "$prog" || return 1
	done
}
