# shellcheck shell=bash
# kbuild for a lane: how modules are built against the lane's headers
# (natively, with the host's gcc, cross, or in a chroot of the lane's suite),
# the builds themselves, and the static vmpctl of the lane's architecture.
# Every module build uses -Werror and fails on any finding
# (scripts/kbuild-findings); with lint=yes it also runs W=1 and sparse.
#
# Inputs:  vm_dir, top, out, say, with_lock (common.sh); lane, lane_suite,
#          lane_lint, qual, cross, arch_karch (lane.sh); candidate,
#          depends_of, fetch_debs, unpacked_debs (apt.sh); kroot, headers,
#          rel, kernel_debs (kernel.sh); lane_out (the lane's build
#          directory); extra_module_dirs (VMPCTL_VM_EXTRA_MODULE_DIRS);
#          module_ko (VMPCTL_VM_MODULE_KO); run_id; selected_tests and
#          mode (tests/vm/run), lane_profile, profile_groups and
#          test_build_groups (profile.sh).
# Outputs: build_modules builds into lane_out/module (module/),
#          lane_out/module-testing (module/ with VMPC_TESTING=1, when
#          test_builds is set) and lane_out/extra-NAME (kmod_dirs), each
#          with NAME.log next to it;
#          kbuild_how says how. build_tool builds tools_out/tools-ARCH/vmpctl.
#          Both set lane_fail or lane_skip and return 1 on failure.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

# Major version of the compiler that built the kernel.
kernel_gcc_major() {
	sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)$/\1/p' "$headers/.config" | awk '{ print int($1 / 10000) }'
}

# Whether kbuild's prebuilt host tools load with the machine's libraries.
kbuild_tools_run_here() {
	local tool
	for tool in "$headers"/scripts/basic/fixdep "$headers"/scripts/mod/modpost "$headers"/tools/objtool/objtool; do
		[ ! -e "$tool" ] || ! ldd "$tool" 2>&1 | grep -q 'not found' || return 1
	done
}

# Decides how modules for this lane are built: cross with Debian's cross
# compiler for a foreign architecture; natively with the kernel's own
# compiler; natively with the host's gcc when the kernel's is an older one
# the machine lacks and kbuild's tools run here (bullseye's gcc-10); else in
# a chroot of the lane's suite (trixie's gcc-14 and its glibc).
choose_kbuild() {
	local major pkg cross_cc spec specs
	major=$(kernel_gcc_major)
	kbuild_how=native kbuild_args=() kbuild_chroot=()
	if [ -n "$cross" ]; then
		cross_cc=${cross}gcc${major:+-$major}
		command -v "$cross_cc" >/dev/null || {
			lane_fail="$cross_cc is not installed (scripts/deps cross)"
			return 1
		}
		kbuild_how="cross with $cross_cc"
		kbuild_args=("ARCH=$arch_karch" "CROSS_COMPILE=$cross" "CC=$cross_cc")
	elif [ -z "$major" ] || command -v "gcc-$major" >/dev/null || command -v "x86_64-linux-gnu-gcc-$major" >/dev/null; then
		:
	elif kbuild_tools_run_here && [ "$(gcc -dumpversion | cut -d. -f1)" -ge "$major" ]; then
		kbuild_how="native with the host's gcc $(gcc -dumpversion) (kernel built with gcc-$major)"
		kbuild_args=(CC=gcc)
	elif [ "$(id -u)" -ne 0 ] || ! command -v debootstrap >/dev/null; then
		lane_skip="building for gcc-$major needs a $lane_suite chroot: run as root with debootstrap installed"
		return 1
	else
		kbuild_how="chroot of $lane_suite"
		kbuild_chroot=("$vm_dir/chroot" --bind "$kroot" --bind "$lane_out")
		specs=("${kernel_debs[@]}")
		# A kernel_build= kernel (the package lanes' signed one): the
		# suite's headers package of its release and that one's kbuild;
		# its /usr may link to another tree, which the chroot must see.
		if [ "${#specs[@]}" -eq 0 ]; then
			mapfile -t specs < <(echo "linux-headers-$rel$qual"
				depends_of "linux-headers-$rel$qual" | grep '^linux-kbuild-')
			kbuild_chroot+=(--bind "$(realpath "$kroot/usr")")
		fi
		# What the headers and kbuild need to run, except kernel packages.
		for pkg in $(for spec in "${specs[@]}"; do
			case $spec in linux-headers-* | linux-kbuild-*) depends_of "$spec" ;; esac
		done | grep -v '^linux-' | sort -u); do
			kbuild_chroot+=(--install "$pkg")
		done
		kbuild_chroot+=("$lane_suite" --)
	fi
	[ -z "$lane_lint" ] || choose_sparse
}

# The sparse of lint=yes builds: the build environment's own, or with
# sparse_suite=SUITE that suite's package, unpacked and bound into the
# build environment (where it must run), for kernels whose headers the
# environment's sparse cannot parse (trixie's 0.6.4 and 7.3's
# __typeof_unqual__).
choose_sparse() {
	local lane_suite=$lane_suite spec dir=''
	if [ -z "$lane_sparse_suite" ]; then
		if [ "${#kbuild_chroot[@]}" -gt 0 ]; then
			kbuild_chroot=("${kbuild_chroot[0]}" --install sparse "${kbuild_chroot[@]:1}")
		else
			command -v sparse >/dev/null || { lane_fail="lint=yes needs sparse (scripts/deps lint)"; return 1; }
		fi
		return 0
	fi
	lane_suite=$lane_sparse_suite
	if ! spec=$(candidate sparse) || ! fetch_debs "$spec" || ! dir=$(unpacked_debs "$spec"); then
		lane_fail=${lane_fail:-"cannot get sparse from $lane_sparse_suite"}
		return 1
	fi
	kbuild_how+=", sparse ${spec#*=} of $lane_sparse_suite"
	kbuild_args+=("CHECK=$dir/usr/bin/sparse")
	[ "${#kbuild_chroot[@]}" -eq 0 ] || kbuild_chroot=("${kbuild_chroot[0]}" --bind "$dir" "${kbuild_chroot[@]:1}")
}

# Newer kernels' Makefile (7.3's, not 6.12's) asks scripts/checker-valid.sh
# whether sparse works and, when it says no, turns C=2 off with one line of
# make output; Debian's headers packages do not ship that script. Where it is missing, one that
# says yes takes its place: build_kmod checks that sparse did run.
provide_checker_valid() {
	local dir script
	for dir in "$headers" $(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$headers/Makefile"); do
		script=$dir/scripts/checker-valid.sh
		[ ! -e "$script" ] || continue
		grep -q 'scripts/checker-valid\.sh' "$dir/Makefile" 2>/dev/null || continue
		if ! printf '#!/bin/sh\n# Written by the vmpressure-ctl VM harness in place of the script the\n# headers package lacks; the harness checks that sparse ran.\necho 1\n' \
			>"$script.$$" || ! chmod +x "$script.$$" || ! mv "$script.$$" "$script"; then
			lane_fail="cannot write $script"
			return 1
		fi
	done
}

# Builds a private copy of module source directory SRC in DEST against the
# lane's headers, with any further make arguments; the log goes to DEST.log.
# Fails on a failed build or any finding in the log.
build_kmod() {
	local src=$1 dest=$2 checks=()
	shift 2
	[ -z "$lane_lint" ] || checks=(W=1 C=2)
	rm -rf "$dest"
	cp -a "$src" "$dest"
	if ! {
		echo "build: $kbuild_how${checks[*]:+, with ${checks[*]}}"
		"${kbuild_chroot[@]}" make -C "$headers" M="$dest" "${kbuild_args[@]}" "$@" clean &&
			"${kbuild_chroot[@]}" make -C "$headers" M="$dest" "${kbuild_args[@]}" \
				KCFLAGS=-Werror "${checks[@]}" "$@" -j2 modules
	} >"$dest.log" 2>&1; then
		tail -n 20 "$dest.log" >&2
		lane_fail="build of ${src#"$top"/}${*:+ ($*)} failed (${dest#"$top"/}.log)"
		return 1
	fi
	if ! "$top/scripts/kbuild-findings" "$dest.log" >&2; then
		lane_fail="build of ${src#"$top"/}${*:+ ($*)} has findings (${dest#"$top"/}.log)"
		return 1
	fi
	if [ -n "$lane_lint" ] && ! grep -qE '^ +CHECK +' "$dest.log"; then
		lane_fail="sparse did not run on ${src#"$top"/}${*:+ ($*)} (${dest#"$top"/}.log)"
		return 1
	fi
}

# Sets test_builds to yes when the lane needs the test-only builds: it runs
# a test of one of test_build_groups (profile.sh), those of its profile or
# the ones the run names (VMPCTL_VM_TESTS, found in the guest's test files
# and the overlay's), or is a demo of the tree's own module (a demo with
# VMPCTL_VM_MODULE_KO, the package lanes' enrolment boot, loads none). The
# smoke and rt lanes and the package lanes do without them, about 40 s of
# kbuild each under load.
decide_test_builds() {
	local group groups files=()
	test_builds=yes
	if [ "$mode" = demo ]; then
		[ -z "$module_ko" ] || test_builds=''
		return 0
	fi
	if [ -n "$selected_tests" ]; then
		mapfile -t files < <(guest_test_files "$vm_dir/guest" | sed "s|^|$vm_dir/guest/|")
		[ -z "$overlay_dir" ] || mapfile -t -O "${#files[@]}" files < <(find "$overlay_dir/vmtest" \
			-maxdepth 1 -name 'tests-*.sh' 2>/dev/null)
		# one line: the groups of several tests, each between spaces
		groups=" $(test_catalog "${files[@]}" | awk -v names=" $selected_tests " 'index(names, " " $1 " ") { print $2 }' | paste -sd' ') "
	else
		groups=" $(profile_groups "${lane_profile:-full}") "
	fi
	for group in $test_build_groups; do
		[[ $groups != *" $group "* ]] || return 0
	done
	test_builds=''
}

# Module source directories built and staged next to vmpressure_ctl.ko: the
# test-only modules of tests/vm/kmods/ (when test_builds is set) and
# VMPCTL_VM_EXTRA_MODULE_DIRS.
kmod_dirs() {
	[ -z "$test_builds" ] || find "$vm_dir/kmods" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort
	# shellcheck disable=SC2086 # one word per directory
	printf '%s\n' $extra_module_dirs
}

# Builds private copies of module/ (as shipped, and the test-only build with
# VMPC_TESTING=1 that the guest finds in extra/testing/) and of kmod_dirs, so
# kernels never share object files. With VMPCTL_VM_MODULE_KO, that file is
# the lane's vmpressure_ctl.ko and module/ is not built.
build_modules() {
	local dir vermagic
	# No BTF in the test-only builds: nothing in the guest reads it, and
	# pahole costs about 2 s of CPU per module. The shipped build keeps it,
	# as DKMS builds it.
	local test_only=(CONFIG_DEBUG_INFO_BTF_MODULES=)
	choose_kbuild || return 1
	decide_test_builds
	[ -z "$lane_lint" ] || provide_checker_valid || return 1
	say "$lane: building modules ($kbuild_how${lane_lint:+, W=1 and sparse})"
	if [ -n "$module_ko" ]; then
		vermagic=$(modinfo -F vermagic "$module_ko") || { lane_fail="cannot read $module_ko"; return 1; }
		[ "${vermagic%% *}" = "$rel" ] || {
			lane_fail="$module_ko is built for ${vermagic%% *}, not $rel"
			return 1
		}
	else
		[ -e "$top/module/Kbuild" ] || [ -e "$top/module/Makefile" ] || {
			lane_fail="module/ has no Kbuild or Makefile"
			return 1
		}
		build_kmod "$top/module" "$lane_out/module" || return 1
		[ -z "$test_builds" ] ||
			build_kmod "$top/module" "$lane_out/module-testing" VMPC_TESTING=1 "${test_only[@]}" || return 1
	fi
	for dir in $(kmod_dirs); do
		build_kmod "$dir" "$lane_out/extra-$(basename "$dir")" "${test_only[@]}" || return 1
	done
}

# The static vmpctl depends only on the architecture: the first lane of an
# architecture in this run builds it, the others (in parallel or not) wait
# for that and take its result.
build_tool() {
	local dir=$tools_out/tools-$lane_arch
	mkdir -p "$dir"
	with_lock "$dir/.lock" build_tool_once "$dir" ||
		lane_fail=${lane_fail:-"static vmpctl build failed (${dir#"$top"/}/build.log)"}
}

# shellcheck disable=SC2317 # reached through with_lock
build_tool_once() {
	local dir=$1 stamp=$1/.status-$run_id status=0
	[ ! -e "$stamp" ] || return "$(cat "$stamp")"
	rm -f "$dir"/.status-*
	make_tool "$dir" || status=$?
	echo "$status" >"$stamp"
	return "$status"
}

# A foreign architecture's vmpctl links static copies of the libraries the
# tools Makefile names (print-build-debs), from the lane's suite, unpacked
# as one sysroot.
# shellcheck disable=SC2317 # reached through with_lock
make_tool() {
	local dir=$1 sysroot pkg spec specs=() make_env=() make_args=()
	[ -e "$top/tools/Makefile" ] || { say "tools/Makefile missing"; return 1; }
	if [ -n "$cross" ]; then
		for pkg in $(make -s --no-print-directory -C "$top/tools" print-build-debs STATIC=1); do
			spec=$(candidate "$pkg$qual") || { say "apt has no $pkg$qual in $lane_suite"; return 1; }
			specs+=("$spec")
		done
		fetch_debs "${specs[@]}" && sysroot=$(unpacked_debs "${specs[@]}") || return 1
		make_env=(
			"PKG_CONFIG_SYSROOT_DIR=$sysroot"
			"PKG_CONFIG_LIBDIR=$sysroot/usr/lib/${cross%-}/pkgconfig"
			# Keep -I/usr/include: with the sysroot it is not the system's.
			PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
		)
		make_args=("CC=${cross}gcc")
	fi
	if ! env "${make_env[@]}" make -C "$top/tools" OUT="$dir" STATIC=1 "${make_args[@]}" >"$dir/build.log" 2>&1; then
		tail -n 20 "$dir/build.log" >&2
		say "static vmpctl build failed (${dir#"$top"/}/build.log)"
		return 1
	fi
}
