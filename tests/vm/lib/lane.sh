# shellcheck shell=bash
# Reads a lane file (tests/vm/lanes/NAME, or any file given by path) and the
# data file of the lane's guest architecture (tests/vm/arches/ARCH).
#
# Lane file: KEY=VALUE lines, # comments. Keys (run --help lists them too):
#   suite=                 the Debian suite of the lane's packages
#   flavour= meta=         the kernel meta-package whose newest
#                          linux-image-*-FLAVOUR the lane boots (not needed
#                          with kernel_build=)
#   arch=                  Debian architecture of the guest
#   tier=1|2               tier-1 lanes (make check) never skip or fall back
#   backends=              methods the lane's kernel supports
#   skip=TEST REASON       TEST may, and must, skip on this lane (repeatable)
#   may_skip=REASON        the whole lane may skip (tier 2 only), e.g. when
#                          the mirror serves none of its kernels
#   version=VERSION        boot exactly this kernel package version
#   kernel_build=SCRIPT    get the kernel from SCRIPT instead of apt
#   profile=NAME           the groups of guest tests the lane runs
#                          (tests/vm/profiles, profile.sh)
#   torture_scale=N|short  the torture tests run (N percent of the issue's
#                          counts, or the short counts); written to
#                          /etc/vmtest/torture-scale in the guest
#   boot_timeout=SECONDS   this lane's boot timeout when VMPCTL_VM_TIMEOUT
#                          is not set (a debug kernel runs the suite slower)
#   timeout_scale=N        each guest test's timeout (300 s) times N
#   console_patterns=FILE  more console patterns that fail the lane
#   lint=yes               module builds also run W=1 and sparse (C=2)
#   sparse_suite=SUITE     with lint=yes: sparse from SUITE's package
#   alone=yes              make check runs the lane with no other part that
#                          builds or boots beside it (scripts/check-parts)
# Paths are relative to the repository top.
#
# Inputs:  vm_dir, top (common.sh).
# Outputs: read_lane NAME|PATH sets lane (the name), lane_file and lane_KEY
#          for each key above (lane_skips: TEST -> REASON; profile_groups
#          of profile.sh checks profile=); on a malformed
#          file it says why and returns 1. arch_settings sets arch_qemu
#          (array), arch_cpu, arch_console, arch_cmdline, arch_verdict_tty,
#          arch_verdict_device (array), arch_verdict_modules, arch_karch,
#          arch_triplet, and for a foreign architecture qual (":ARCH", the
#          apt qualifier) and cross (the CROSS_COMPILE prefix).
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

declare -A lane_skips

lane_path() {
	case $1 in
	*/*) echo "$1" ;;
	*) echo "$vm_dir/lanes/$1" ;;
	esac
}

read_lane() {
	local key value
	lane_file=$(lane_path "$1")
	lane=$(basename "$lane_file")
	[ -f "$lane_file" ] || { say "no lane file $lane_file (lanes: tests/vm/lanes/)"; return 1; }
	lane_suite='' lane_arch='' lane_flavour='' lane_meta='' lane_tier='' lane_backends=''
	lane_may_skip='' lane_version='' lane_kernel_build='' lane_torture_scale=''
	lane_console_patterns='' lane_lint='' lane_sparse_suite='' lane_boot_timeout=''
	lane_profile='' lane_timeout_scale='' lane_alone=''
	lane_skips=()
	while IFS='=' read -r key value; do
		case $key in
		'' | '#'*) ;;
		suite | arch | flavour | meta | tier | backends | may_skip | version | kernel_build | \
			torture_scale | console_patterns | lint | sparse_suite | boot_timeout | profile | \
			timeout_scale | alone)
			printf -v "lane_$key" '%s' "$value"
			;;
		skip)
			[[ $value =~ ^([a-z0-9_]+)\ +(.+)$ ]] ||
				{ say "$lane_file: skip= takes TEST REASON, not '$value'"; return 1; }
			lane_skips[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
			;;
		*) say "$lane_file: unknown key '$key'"; return 1 ;;
		esac
	done <"$lane_file"
	check_lane
}

# The rules a lane file must follow beyond its syntax.
check_lane() {
	local key var groups required=(suite arch tier backends profile)
	[ -n "$lane_kernel_build" ] || required+=(flavour meta)
	for key in "${required[@]}"; do
		var=lane_$key
		[ -n "${!var}" ] || { say "$lane_file: missing '$key='"; return 1; }
	done
	case $lane_tier in
	1) [ -z "$lane_may_skip" ] || { say "$lane_file: a tier-1 lane cannot declare may_skip="; return 1; } ;;
	2) ;;
	*) say "$lane_file: tier= is 1 or 2, not '$lane_tier'"; return 1 ;;
	esac
	[ -z "$lane_kernel_build" ] || [ -z "$lane_version" ] ||
		{ say "$lane_file: version= pins an apt kernel; kernel_build= has its own"; return 1; }
	[ -z "$lane_kernel_build" ] || [ -x "$top/$lane_kernel_build" ] ||
		{ say "$lane_file: kernel_build=$lane_kernel_build is not an executable under the repository top"; return 1; }
	[ -z "$lane_torture_scale" ] || [[ $lane_torture_scale =~ ^([1-9][0-9]*|short)$ ]] ||
		{ say "$lane_file: torture_scale= takes a positive number or short, not '$lane_torture_scale'"; return 1; }
	[ -z "$lane_timeout_scale" ] || [[ $lane_timeout_scale =~ ^[1-9][0-9]*$ ]] ||
		{ say "$lane_file: timeout_scale= takes a positive number, not '$lane_timeout_scale'"; return 1; }
	[ -z "$lane_alone" ] || [ "$lane_alone" = yes ] ||
		{ say "$lane_file: alone= takes yes, not '$lane_alone'"; return 1; }
	groups=$(profile_groups "$lane_profile") ||
		{ say "$lane_file: profile=$lane_profile is not in tests/vm/profiles"; return 1; }
	[[ " $groups " != *" torture "* && " $groups " != *" listeners "* && " $groups " != *" leaks "* ]] ||
		[ -n "$lane_torture_scale" ] ||
		{ say "$lane_file: profile=$lane_profile runs the torture, listeners or leaks group: it needs torture_scale="; return 1; }
	[ -z "$lane_boot_timeout" ] || [[ $lane_boot_timeout =~ ^[1-9][0-9]*$ ]] ||
		{ say "$lane_file: boot_timeout= takes a number of seconds, not '$lane_boot_timeout'"; return 1; }
	[ -z "$lane_console_patterns" ] || [ -f "$top/$lane_console_patterns" ] ||
		{ say "$lane_file: console_patterns=$lane_console_patterns is not a file under the repository top"; return 1; }
	case $lane_lint in
	'' | yes) ;;
	*) say "$lane_file: lint= takes yes, not '$lane_lint'"; return 1 ;;
	esac
	[ -z "$lane_sparse_suite" ] || [ -n "$lane_lint" ] ||
		{ say "$lane_file: sparse_suite= goes with lint=yes"; return 1; }
	[ -f "$vm_dir/arches/$lane_arch" ] ||
		{ say "$lane_file: arch $lane_arch has no tests/vm/arches/$lane_arch"; return 1; }
}

# What differs between guest architectures, from tests/vm/arches/ARCH.
arch_settings() {
	local file=$vm_dir/arches/$lane_arch key value
	arch_qemu=() arch_cpu='' arch_console='' arch_verdict_tty='' arch_verdict_device=()
	arch_verdict_modules='' arch_karch='' arch_triplet='' arch_cmdline=''
	while IFS='=' read -r key value; do
		case $key in
		'' | '#'*) ;;
		qemu | verdict_device) read -ra "arch_$key" <<<"$value" ;;
		cpu | console | verdict_tty | verdict_modules | karch | triplet | cmdline) printf -v "arch_$key" '%s' "$value" ;;
		*) lane_fail="$file: unknown key '$key'"; return 1 ;;
		esac
	done <"$file"
	qual='' cross=''
	[ "$lane_arch" = "$(dpkg --print-architecture)" ] || qual=:$lane_arch cross=$arch_triplet-
	command -v "${arch_qemu[0]}" >/dev/null ||
		{ lane_fail="${arch_qemu[0]} is not installed (scripts/deps vm cross)"; return 1; }
}
