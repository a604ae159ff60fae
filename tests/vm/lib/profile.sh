# shellcheck shell=bash
# Which guest tests a lane runs. Each test_NAME() of the guest's test files
# may have, in the comment block right above it, "# group: GROUP" (without
# one its group is its file's name, tests-GROUP.sh) and "# requires: WORD..."
# lines (every WORD must hold on the lane's kernel). The lane's profile=
# (tests/vm/profiles) names the groups it runs. A test left out by the
# profile is "not run for CI's time"; one whose requirement the kernel
# lacks is "skipped: the kernel has no X": the two are counted apart.
#
# Requirement words, read from the lane's arch= and its kernel's .config:
#   amd64 arm64    the guest's architecture
#   cgroup-v1      the memory controller of cgroup v1 (the guest mounts it
#                  where the kernel has it: MEMCG and, from 6.11, MEMCG_V1)
#   cgroup-v2      the guest runs on cgroup v2 (no cgroup-v1 memory controller)
#   livepatch thp rt kmemleak tracer preemption
#                  CONFIG_LIVEPATCH, _TRANSPARENT_HUGEPAGE, _PREEMPT_RT,
#                  _DEBUG_KMEMLEAK, _FUNCTION_TRACER, _PREEMPTION
#
# Inputs:  vm_dir (common.sh); lane_arch, lane_profile (lane.sh);
#          selected_tests (VMPCTL_VM_TESTS: exactly these tests, whatever
#          the profile, still only where the kernel has what they require).
# Outputs: test_build_groups (below); profile_groups PROFILE prints its
#          groups (fails for an unknown one); guest_test_files DIR prints
#          the test files' names in the guest runner's order;
#          test_catalog FILE... prints "NAME GROUP [WORD...]" per test;
#          requirement_missing WORD KCONFIG prints why the kernel does not
#          have WORD (nothing when it has; status 2 for an unknown WORD);
#          select_tests DIR KCONFIG NOT_RUN prints the names of the tests of
#          DIR/tests*.sh the lane runs, in the guest runner's order, and
#          writes "NAME profile|kernel REASON" lines for the others to
#          NOT_RUN; on an error it sets lane_fail and returns 1.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

profiles_file=$vm_dir/profiles

# The groups whose tests load a test-only build: module/ with VMPC_TESTING=1
# (extra/testing/) or a module of tests/vm/kmods (the holders, the unwind
# module). A lane whose profile runs none of them does not build those
# (kbuild.sh); tests/vm/check-harness fails when a test of another group
# reaches one.
test_build_groups="hooks module conflict livepatch resident"

profile_groups() {
	local name groups
	while read -r name groups; do
		[ "$name" = "$1" ] && [ -n "$groups" ] && { echo "$groups"; return 0; }
	done < <(grep -vE '^[[:space:]]*(#|$)' "$profiles_file")
	return 1
}

profile_names() {
	grep -vE '^[[:space:]]*(#|$)' "$profiles_file" | cut -d' ' -f1
}

test_catalog() {
	local file
	for file in "$@"; do
		awk -v default_group="$(basename "$file" .sh)" '
			BEGIN { sub(/^tests-/, "", default_group) }
			/^#/ {
				if (!in_block) { group = ""; requires = "" }
				in_block = 1
				if (sub(/^# group: */, "")) group = $0
				else if (sub(/^# requires: */, "")) requires = requires " " $0
				next
			}
			/^test_[a-z0-9_]*\(\) \{$/ {
				name = $0
				sub(/^test_/, "", name)
				sub(/\(\) \{$/, "", name)
				print name " " (group == "" ? default_group : group) requires
			}
			{ in_block = 0; group = ""; requires = "" }
		' "$file"
	done
}

# The guest's test files in DIR in the order the guest runner sources them.
guest_test_files() {
	echo tests.sh
	(cd "$1" && find . -maxdepth 1 -name 'tests-*.sh' -printf '%f\n' | LC_ALL=C sort)
}

# The guest mounts cgroup v1's memory controller where the kernel has it:
# MEMCG, and MEMCG_V1 on the kernels that have that option (6.11 on).
kconfig_memcg_v1() {
	grep -q '^CONFIG_MEMCG=y' "$1" || return 1
	grep -q '^CONFIG_MEMCG_V1=y' "$1" || ! grep -q 'CONFIG_MEMCG_V1[ =]' "$1"
}

requirement_missing() {
	local word=$1 kconfig=$2 option
	case $word in
	amd64 | arm64) [ "$lane_arch" = "$word" ] || echo "not $word (the guest is $lane_arch)"; return 0 ;;
	cgroup-v1) kconfig_memcg_v1 "$kconfig" || echo "no cgroup-v1 memory controller"; return 0 ;;
	cgroup-v2) ! kconfig_memcg_v1 "$kconfig" || echo "the guest runs cgroup v1's memory controller"; return 0 ;;
	livepatch) option=LIVEPATCH ;;
	thp) option=TRANSPARENT_HUGEPAGE ;;
	rt) option=PREEMPT_RT ;;
	kmemleak) option=DEBUG_KMEMLEAK ;;
	tracer) option=FUNCTION_TRACER ;;
	preemption) option=PREEMPTION ;;
	*) return 2 ;;
	esac
	grep -q "^CONFIG_$option=y" "$kconfig" || echo "no CONFIG_$option"
}

select_tests() {
	local dir=$1 kconfig=$2 not_run=$3 name group words word why groups catalog files
	groups=$(profile_groups "${lane_profile:-full}") ||
		{ lane_fail="profile=${lane_profile:-full} is not in tests/vm/profiles"; return 1; }
	mapfile -t files < <(guest_test_files "$dir")
	catalog=$(cd "$dir" && test_catalog "${files[@]}")
	: >"$not_run"
	for name in $selected_tests; do
		grep -q "^$name " <<<"$catalog" ||
			{ lane_fail="VMPCTL_VM_TESTS names $name, which no tests*.sh defines"; return 1; }
	done
	while read -r name group words; do
		if [ -n "$selected_tests" ]; then
			[[ " $selected_tests " == *" $name "* ]] || continue
		elif [[ " $groups " != *" $group "* ]]; then
			echo "$name profile not in profile ${lane_profile:-full} (group $group)" >>"$not_run"
			continue
		fi
		why=''
		for word in $words; do
			why=$(requirement_missing "$word" "$kconfig") ||
				{ lane_fail="test $name requires '$word', which tests/vm/lib/profile.sh does not know"; return 1; }
			[ -z "$why" ] || break
		done
		if [ -n "$why" ]; then
			echo "$name kernel $why" >>"$not_run"
		else
			echo "$name"
		fi
	done <<<"$catalog"
}
