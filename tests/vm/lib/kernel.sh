# shellcheck shell=bash
# Kernel selection and unpacking: which Debian kernel a lane boots (or which
# one its kernel_build= script built), downloaded and unpacked once into the
# shared cache.
#
# Policy: the newest version of the lane's meta-package (or exactly its
# version=) whose packages download. A lane runs an older kernel only when
# the mirror answered 404 for one of the newer one's packages (an archive
# can index packages its pool has dropped) and the lane is tier 2 and not
# pinned; any other download failure fails the lane.
#
# Inputs:  top, cache, say, with_lock (common.sh); lane, lane_* and qual
#          (lane.sh); lane_apt, apt_field, depends_of, cached_deb,
#          fetch_debs, with_apt_memo (apt.sh).
# Outputs: select_kernel sets rel (the kernel release), version (its package
#          version or the script's), kernel_debs (PKG=VER: image, headers,
#          -common, kbuild; empty for kernel_build=), kernel_versions (one
#          line naming what was resolved), lane_note when it fell back, and
#          kroot, the unpacked tree: kroot/boot/vmlinuz-REL (or trixie's
#          usr/lib/modules/REL/vmlinuz), kroot/lib/modules/REL with depmod
#          done, kroot/usr/src/linux-headers-REL; then vmlinuz and headers
#          (the KDIR) point into it. On failure it sets lane_skip (the suite
#          has no such kernel, or the mirror serves none of them) or
#          lane_fail, and returns 1.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

select_kernel() {
	if [ -n "$lane_kernel_build" ]; then
		run_kernel_build || return 1
	else
		with_apt_memo select_debian_kernel && unpack_kernel || return 1
	fi
	vmlinuz=$(compgen -G "$kroot/boot/vmlinuz-$rel" ||
		compgen -G "$kroot/usr/lib/modules/$rel/vmlinuz" ||
		compgen -G "$kroot/usr/lib/modules/$rel/vmlinuz.unsigned") ||
		{ lane_fail="no vmlinuz for $rel in $kroot"; return 1; }
	headers=$kroot/usr/src/linux-headers-$rel
	[ -f "$headers/.config" ] || { lane_fail="no $headers/.config"; return 1; }
}

# Versions of the lane's meta-package in its suite or the suite's -security
# and -updates pockets, newest first; status 1 when apt itself failed.
meta_versions() {
	local listing
	listing=$(lane_apt apt-cache madison "$lane_meta$qual") || return 1
	awk -F'|' -v suite="$lane_suite" '{ gsub(/ /, "", $2) } $3 ~ " " suite "(-[a-z]+)?/" && !seen[$2]++ { print $2 }' <<<"$listing"
}

select_debian_kernel() {
	local meta_version versions first_missing='' resolved=()
	versions=$(meta_versions) || {
		lane_fail="apt cannot list $lane_meta for $lane_suite (tests/vm/suites failed)"
		return 1
	}
	[ -n "$versions" ] || {
		lane_skip="the apt sources carry no $lane_meta in $lane_suite"
		return 1
	}
	for meta_version in $versions; do
		resolve_kernel "$meta_version" || return 1
		resolved+=("$version")
		[ -z "$lane_version" ] || [ "$version" = "$lane_version" ] || continue
		say "$lane: $rel ($version)"
		if fetch_debs "${kernel_debs[@]}"; then
			[ -z "$first_missing" ] ||
				lane_note="ran $version: the mirror answered 404 for $first_missing"
			return 0
		fi
		[ -n "$download_missing" ] || return 1
		if [ "$lane_tier" = 1 ] || [ -n "$lane_version" ]; then
			lane_fail="the mirror answered 404 for $download_missing (a ${lane_version:+pinned }${lane_version:-tier-1} lane never falls back)"
			return 1
		fi
		first_missing=${first_missing:-$download_missing}
		say "$lane: the mirror answered 404 for $download_missing; trying an older $lane_meta"
	done
	if [ -n "$lane_version" ]; then
		lane_fail="version=$lane_version is not among $lane_meta's kernels in $lane_suite (${resolved[*]})"
	else
		lane_skip="the mirror serves none of $lane_meta's kernels in $lane_suite (404 for $first_missing)"
	fi
	return 1
}

# Sets rel, version, kernel_debs and kernel_versions from version
# META_VERSION of the lane's meta-package, so a new kernel ABI in the archive
# is picked up without editing anything. Every package is taken at the
# image's exact version: they are built from one source.
resolve_kernel() {
	local image images=() common kbuild spec
	image=$(depends_of "$lane_meta$qual=$1" | grep -m1 -x "linux-image-.*-$lane_flavour") || {
		lane_fail="$lane_meta $1 depends on no linux-image-*-$lane_flavour"
		return 1
	}
	rel=${image#linux-image-}
	version=$(apt_field "$lane_meta$qual=$1" Depends | tr ',' '\n' |
		awk -v image="$image" '$1 == image && $2 == "(=" { sub(/\)$/, "", $3); print $3 }')
	version=${version:-$1}
	# The unsigned image boots without shim; trixie's kernels split it into
	# linux-binary-unsigned (vmlinuz) and linux-modules.
	if [ -n "$(apt_field "linux-image-$rel-unsigned$qual=$version" Version)" ]; then
		images=("linux-image-$rel-unsigned$qual")
	elif [ -n "$(apt_field "linux-binary-unsigned-$rel$qual=$version" Version)" ]; then
		images=("linux-binary-unsigned-$rel$qual" "linux-modules-$rel$qual")
	else
		images=("linux-image-$rel$qual")
	fi
	# -common is Architecture: all and kbuild's host tools Multi-Arch:
	# foreign, so only the image and the flavour's headers take :ARCH.
	common=$(depends_of "linux-headers-$rel$qual=$version" | grep -m1 -xE 'linux-headers-.*-common(-rt)?') || true
	kbuild=$(depends_of "linux-headers-$rel$qual=$version" | grep -m1 '^linux-kbuild-') || true
	kernel_debs=()
	for spec in "${images[@]}" "linux-headers-$rel$qual" "$common" "$kbuild"; do
		if [ -z "${spec%"$qual"}" ] || [ -z "$(apt_field "$spec=$version" Version)" ]; then
			lane_fail="apt has no ${spec:-headers -common or kbuild package} $version for $rel in $lane_suite"
			return 1
		fi
		kernel_debs+=("$spec=$version")
	done
	kernel_versions=$(printf '%s\n' "${kernel_debs[@]}" | sed 's/:[a-z0-9]*=/=/; s/=/ /' | paste -sd, | sed 's/,/, /g')
}

# Unpacks (never installs) the kernel and its headers once per version.
unpack_kernel() {
	kroot=$cache/kernels/${rel}_${version//:/%3a}
	mkdir -p "$cache/kernels"
	with_lock "$kroot.lock" unpack_kernel_once
}

# shellcheck disable=SC2317 # reached through with_lock
unpack_kernel_once() {
	local spec makefile
	[ ! -e "$kroot/.complete" ] || return 0
	say "$lane: unpacking $rel ($version)"
	rm -rf "$kroot"
	mkdir -p "$kroot"
	for spec in "${kernel_debs[@]}"; do
		dpkg-deb -x "$(cached_deb "$spec")" "$kroot" || {
			lane_fail="cannot unpack ${spec%%=*}"
			return 1
		}
	done
	# Modules under /usr/lib only (trixie on): depmod and modprobe -d
	# look in ROOT/lib/modules.
	[ -e "$kroot/lib" ] || ln -s usr/lib "$kroot/lib"
	depmod -b "$kroot" "$rel" || { lane_fail="depmod over the unpacked $rel failed"; return 1; }
	# Debian's flavour Makefile names the -common tree (and from trixie on
	# its own output directory) by absolute path: point them at the
	# unpacked copy, not at whatever the host has installed.
	makefile=$kroot/usr/src/linux-headers-$rel/Makefile
	sed -i "s|^include /usr/src/|include $kroot/usr/src/|; s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$kroot/usr/src/|" \
		"$makefile" || { lane_fail="cannot point $makefile at the unpacked headers"; return 1; }
	# Only a tree whose every step worked is marked complete: a later lane
	# unpacks a half-done one again.
	if grep -qE '^(include|KBUILD_OUTPUT=) */usr/src/' "$makefile"; then
		lane_fail="$makefile still names the host's /usr/src"
		return 1
	fi
	touch "$kroot/.complete"
}

# The kernel_build= hook: SCRIPT runs from the repository top and prints one
# line "KROOT REL VERSION" on stdout, KROOT laid out like an unpacked kernel
# package (see the outputs above); its stderr is the lane's.
run_kernel_build() {
	local output status=0 extra
	say "$lane: kernel from $lane_kernel_build"
	output=$(cd "$top" && "./$lane_kernel_build") || status=$?
	[ "$status" -eq 0 ] || { lane_fail="$lane_kernel_build exited with status $status"; return 1; }
	read -r kroot rel version extra <<<"$output"
	if [ "$(wc -l <<<"$output")" -ne 1 ] || [ -z "$version" ] || [ -n "$extra" ]; then
		lane_fail="$lane_kernel_build printed '${output//$'\n'/\\n}', not one line KROOT REL VERSION"
		return 1
	fi
	[ -e "$kroot/lib/modules/$rel/modules.dep" ] ||
		{ lane_fail="$lane_kernel_build: no $kroot/lib/modules/$rel with depmod done"; return 1; }
	kernel_debs=()
	kernel_versions="$lane_kernel_build: $rel $version"
}
