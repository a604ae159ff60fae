# shellcheck shell=bash
# The guest's initramfs: busybox-static, the guest scripts, zram (and the
# verdict console's drivers) from the lane's kernel, the lane's modules under
# /lib/modules/REL with depmod run (so modprobe works in the guest), vmpctl,
# /etc/vmtest/* for the guest runner, then VMPCTL_VM_OVERLAY, packed as an
# uncompressed newc cpio.
#
# Inputs:  vm_dir, top, out (common.sh); lane, lane_arch, lane_backends,
#          lane_torture_scale, qual, arch_verdict_modules (lane.sh);
#          candidate, fetch_debs, unpacked_debs (apt.sh); kroot, rel, headers
#          (kernel.sh); kmod_dirs, test_builds (kbuild.sh); lane_out; module_ko,
#          module_params, demo_script, overlay_dir, selected_tests (the
#          VMPCTL_VM_* variables).
# Outputs: build_initramfs writes lane_out/initramfs.cpio, lane_out/tests,
#          the names of the tests the guest runs, in order (the verdict
#          expects exactly these), and lane_out/not-run, the others and why
#          (profile.sh); on failure it sets lane_fail, returns 1.
#          In the guest, /etc/vmtest/ holds: modules (insmod before the
#          tests), tests, backends, kconfig, module-params,
#          timeout-scale, and torture-scale when the lane sets torture_scale=.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

# Copies one kernel module into the staging tree, uncompressed so that any
# insmod takes it, and records it in the guest's insmod list.
stage_kmod() {
	local src=$1 list=$2 dest
	dest=$stage/lib/modules/$rel/${src#*/modules/"$rel"/}
	dest=${dest%.xz}
	dest=${dest%.zst}
	! grep -qxF "${dest#"$stage"}" "$list" || return 0
	mkdir -p "$(dirname "$dest")"
	case $src in
	*.xz) xz -dc "$src" >"$dest" ;;
	*.zst) zstd -qdc "$src" >"$dest" ;;
	*) cp "$src" "$dest" ;;
	esac
	echo "${dest#"$stage"}" >>"$list"
}

# insmod lines for zram, its compressor where that is a module (6.1
# cloud), and the verdict console's drivers where it is a virtio one.
boot_module_chain() {
	local kmod comp
	for kmod in $arch_verdict_modules zram; do
		modprobe -d "$kroot" -S "$rel" --show-depends "$kmod"
	done
	# zram asks the crypto API for its default compressor only when a disk
	# size is set.
	comp=$(sed -n 's/^CONFIG_ZRAM_DEF_COMP="\(.*\)"$/\1/p' "$headers/.config")
	[ -z "$comp" ] || modprobe -d "$kroot" -S "$rel" --show-depends "crypto-$comp" 2>/dev/null || true
}

# The lane's own modules, under extra/: vmpressure_ctl.ko (built or
# VMPCTL_VM_MODULE_KO), the VMPC_TESTING build in extra/testing/ (with
# test_builds) and the kmod_dirs' modules.
stage_lane_modules() {
	local extra=$stage/lib/modules/$rel/extra dir
	mkdir -p "$extra"
	if [ -n "$module_ko" ]; then
		cp "$module_ko" "$extra/vmpressure_ctl.ko" || return 1
	else
		cp "$lane_out/module/vmpressure_ctl.ko" "$extra/" || return 1
		[ -z "$test_builds" ] || {
			mkdir -p "$extra/testing" &&
				cp "$lane_out/module-testing/vmpressure_ctl.ko" "$extra/testing/"
		} || return 1
	fi
	for dir in $(kmod_dirs); do
		compgen -G "$lane_out/extra-$(basename "$dir")/*.ko" >/dev/null &&
			cp "$lane_out/extra-$(basename "$dir")"/*.ko "$extra/" || return 1
	done
}

# depmod over what is staged, so modprobe works in the guest. extra/testing
# holds a second vmpressure_ctl.ko: modprobe takes the one in extra/.
depmod_stage() {
	local file
	# trixie's linux-modules ships none of these; depmod wants them.
	for file in modules.builtin modules.builtin.modinfo modules.order; do
		if [ -e "$kroot/lib/modules/$rel/$file" ]; then
			cp "$kroot/lib/modules/$rel/$file" "$stage/lib/modules/$rel/"
		else
			: >"$stage/lib/modules/$rel/$file"
		fi
	done
	mkdir -p "$stage/etc/depmod.d"
	[ -e "$stage/etc/depmod.d/vmtest.conf" ] ||
		echo 'override vmpressure_ctl * extra' >"$stage/etc/depmod.d/vmtest.conf"
	depmod -b "$stage" -C "$stage/etc/depmod.d" "$rel" ||
		{ lane_fail="depmod over the initramfs failed"; return 1; }
}

# Test names of the guest's test files in the order the guest runner takes
# them: those of tests.sh and the other tests-*.sh by name that the lane's
# profile and kernel select (select_tests, profile.sh; the others go to
# lane_out/not-run), then the runner's own checks (runner-checks.sh),
# which always run.
list_tests() {
	local dir=$stage/vmtest
	select_tests "$dir" "$headers/.config" "$lane_out/not-run" || return 1
	test_catalog "$dir/runner-checks.sh" | cut -d' ' -f1
}

# Sets busybox: the machine's, or the lane's architecture's busybox-static.
busybox_for_lane() {
	local spec
	busybox=/bin/busybox
	[ -n "$qual" ] || return 0
	spec=$(candidate "busybox-static$qual") || { lane_fail="apt has no busybox-static$qual"; return 1; }
	fetch_debs "$spec" || { lane_fail=${lane_fail:-"the mirror does not serve ${spec/=/ }"}; return 1; }
	busybox=$(unpacked_debs "$spec")/bin/busybox
}

# Set -e does not hold inside a lane's preparation (it runs as a condition),
# so every step that can fail says so.
build_initramfs() {
	local dir cmd path _ busybox chain
	stage=$lane_out/initramfs
	rm -rf "$stage"
	for dir in bin sbin usr/bin usr/sbin etc/vmtest vmtest proc sys dev tmp run root; do
		mkdir -p "$stage/$dir"
	done
	busybox_for_lane || return 1
	{
		cp "$busybox" "$stage/bin/busybox" &&
			ln -s busybox "$stage/bin/sh" &&
			install -m 0755 "$vm_dir/guest/init" "$stage/init" &&
			cp "$vm_dir"/guest/*.sh "$stage/vmtest/" &&
			cp "$demo_script" "$stage/vmtest/demo.sh" &&
			cp "$headers/.config" "$stage/etc/vmtest/kconfig" &&
			cp "$tools_out/tools-$lane_arch/vmpctl" "$stage/bin/vmpctl" &&
			stage_lane_modules
	} || { lane_fail="cannot stage the initramfs of $lane"; return 1; }
	printf 'root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n' >"$stage/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
	echo "$module_params" >"$stage/etc/vmtest/module-params"
	echo "$lane_backends" >"$stage/etc/vmtest/backends"
	[ -z "$lane_torture_scale" ] || echo "$lane_torture_scale" >"$stage/etc/vmtest/torture-scale"
	echo "${lane_timeout_scale:-1}" >"$stage/etc/vmtest/timeout-scale"
	: >"$stage/etc/vmtest/modules"
	chain=$(boot_module_chain) || { lane_fail="$rel has no zram or verdict console driver"; return 1; }
	while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		stage_kmod "$path" "$stage/etc/vmtest/modules" || { lane_fail="cannot stage $path"; return 1; }
	done <<<"$chain"
	[ -z "$overlay_dir" ] || cp -a "$overlay_dir/." "$stage/" ||
		{ lane_fail="cannot copy VMPCTL_VM_OVERLAY $overlay_dir"; return 1; }
	depmod_stage || return 1
	list_tests >"$lane_out/tests" || return 1
	cp "$lane_out/tests" "$stage/etc/vmtest/tests"
	stage_workloads "$lane_out/tests" || return 1
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$lane_out/initramfs.cpio" ||
		{ lane_fail="cannot pack the initramfs"; return 1; }
}
