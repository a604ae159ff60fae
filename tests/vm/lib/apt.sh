# shellcheck shell=bash
# apt and mirror access for a lane: package fields, candidate versions,
# downloads into the shared cache, and unpacked copies of .debs. Packages
# are named PACKAGE[:ARCH]=VERSION throughout, so a lane downloads exactly
# the versions it resolved.
#
# Inputs:  vm_dir, cache, say, with_lock (common.sh); lane, lane_suite,
#          lane_arch (lane.sh).
# Outputs: lane_apt CMD ARGS (apt-get or apt-cache with the lane's suite and
#          architecture, tests/vm/suites); apt_show PKG[=VER] (its record,
#          asked of apt once under with_apt_memo CMD...); apt_field PKG[=VER] FIELD;
#          depends_of PKG[=VER] (package names, one a line); candidate PKG
#          (prints PKG=VERSION); cached_deb PKG=VER (prints the .deb's path);
#          fetch_debs PKG=VER... (downloads what the cache lacks; on failure
#          sets download_missing="PKG VER" when the mirror answered 404 for
#          that exact package and nothing else failed, else lane_fail);
#          download_only_missing PKG LOG (that 404 test on apt's output);
#          unpacked_debs PKG=VER... (prints a cache directory holding them
#          unpacked together).
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

lane_apt() {
	"$vm_dir/suites" --arch "$lane_arch" "$lane_suite" "$@"
}

# PKG[=VER]'s record; under with_apt_memo each one is asked of apt once.
apt_show() {
	local file status=0
	if [ -z "${apt_memo:-}" ]; then
		lane_apt apt-cache show --no-all-versions "$1" 2>/dev/null
		return
	fi
	file=$apt_memo/$1
	if [ ! -e "$file.status" ]; then
		lane_apt apt-cache show --no-all-versions "$1" >"$file" 2>/dev/null || status=$?
		echo "$status" >"$file.status"
	fi
	cat "$file"
	return "$(cat "$file.status")"
}

# Runs CMD... keeping the records apt_show reads: resolving a kernel asks
# for the same few records a dozen times, each apt-cache run about a second
# of CPU, over a minute under load.
with_apt_memo() {
	local status=0
	apt_memo=$(mktemp -d) || { lane_fail="cannot make a temporary directory"; return 1; }
	"$@" || status=$?
	rm -rf "$apt_memo"
	apt_memo=''
	return "$status"
}

apt_field() {
	apt_show "$1" | awk -v field="$2:" '$1 == field { sub(/^[^:]*: */, ""); print; exit }'
}

# Alternatives included, version constraints dropped.
depends_of() {
	apt_field "$1" Depends | tr ',|' '\n' | sed 's/(.*//; s/[[:space:]]//g; /^$/d'
}

candidate() {
	local ver
	ver=$(apt_field "$1" Version)
	[ -n "$ver" ] || return 1
	echo "$1=$ver"
}

cached_deb() {
	local name=${1%%=*} ver=${1#*=} pkg arch
	pkg=${name%:*} arch=${name#*:}
	[ "$arch" != "$name" ] || arch='*'
	compgen -G "$cache/debs/${pkg}_${ver//:/%3a}_$arch.deb" | head -n1 | grep .
}

fetch_debs() {
	download_missing=''
	# All there already: no wait behind another lane's downloads.
	all_cached "$@" && return 0
	mkdir -p "$cache/debs"
	with_lock "$cache/debs/.lock" download_debs "$@"
}

all_cached() {
	local spec
	for spec in "$@"; do
		cached_deb "$spec" >/dev/null || return 1
	done
}

# Each download goes to a directory of its own and moves into the cache
# only when complete, so an interrupted one leaves no truncated .deb.
# shellcheck disable=SC2317 # reached through with_lock
download_debs() {
	local spec name ver tmp apt_opts=()
	[ "$(id -u)" -ne 0 ] || apt_opts=(-o APT::Sandbox::User=root)
	for spec in "$@"; do
		cached_deb "$spec" >/dev/null && continue
		name=${spec%%=*} ver=${spec#*=}
		say "$lane: downloading $name $ver"
		tmp=$(mktemp -d "$cache/debs/.download.XXXXXX")
		chmod 755 "$tmp" # apt downloads as _apt unless it runs as root
		if (cd "$tmp" && lane_apt apt-get download -q "${apt_opts[@]}" "$spec" >download.log 2>&1); then
			mv "$tmp"/*.deb "$cache/debs/"
			rm -rf "$tmp"
			continue
		fi
		if download_only_missing "${name%:*}" "$tmp/download.log"; then
			download_missing="${name%:*} $ver"
		else
			lane_fail="downloading ${name%:*} $ver failed: $(grep -m1 '^E: ' "$tmp/download.log" || tail -n1 "$tmp/download.log")"
		fi
		grep '^E: ' "$tmp/download.log" >&2 || true
		rm -rf "$tmp"
		return 1
	done
}

# Whether apt-get download's output LOG says the mirror answered "404 Not
# Found" for PACKAGE's .deb and reports no other error: a DNS failure, a
# timeout, a full disk or a 404 for some other file is not "the mirror does
# not serve this package".
download_only_missing() {
	local pkg=$1 log=$2 line errors=0
	while IFS= read -r line; do
		errors=$((errors + 1))
		[[ $line == "E: Failed to fetch "*"/${pkg}_"*".deb "*" 404 "*"Not Found"* ]] || return 1
	done < <(grep '^E: ' "$log")
	[ "$errors" -gt 0 ]
}

unpacked_debs() {
	local spec deb debs=() dir
	for spec in "$@"; do
		deb=$(cached_deb "$spec") || return 1
		debs+=("$deb")
	done
	dir=$cache/unpacked/debs-$(printf '%s\n' "${debs[@]##*/}" | md5sum | cut -c1-16)
	mkdir -p "$cache/unpacked"
	with_lock "$dir.lock" unpack_debs_once "$dir" "${debs[@]}" || return 1
	echo "$dir"
}

# shellcheck disable=SC2317 # reached through with_lock
unpack_debs_once() {
	local dir=$1 deb
	shift
	[ ! -e "$dir/.complete" ] || return 0
	rm -rf "$dir"
	mkdir -p "$dir"
	for deb in "$@"; do
		dpkg-deb -x "$deb" "$dir" || return 1
	done
	touch "$dir/.complete"
}
