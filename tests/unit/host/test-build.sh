#!/bin/bash
# tools/Makefile: CPPFLAGS, CFLAGS and LDFLAGS from the environment or the
# command line (Debian's hardening flags) reach every compile and the link
# next to the flags vmpctl needs; -Werror only with WERROR=1; install and
# uninstall put exactly the binary, the man page and the completion in
# place and take them away again; print-build-debs names the packages that
# ship the pkg-config modules it links, with the static archives the
# guests' static vmpctl needs. Inputs and output: see lib.sh.
# shellcheck source=tests/unit/host/lib.sh
. "$(dirname "$0")/lib.sh"

# make as a shell calls it, not as a sub-make of tests/unit's make
top_make() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make "$@"
}

mk() {
	top_make --no-print-directory -C "$TOOLS" OUT="$scratch/out" "$@"
}

# Dry runs: every compile and link line, as make would run them.
# shellcheck disable=SC2016 # make variables, not shell ones
env_lines=$(CPPFLAGS=-DENV_CPP CFLAGS='-O1 -DENV_C' LDFLAGS=-Wl,-z,now mk -n -B)
cmd_lines=$(mk -n -B CPPFLAGS=-DARG_CPP CFLAGS=-DARG_C LDFLAGS=-Wl,-z,relro)
werror_lines=$(mk -n -B WERROR=1)
compiles() { grep -E ' -c -o .*\.o [a-z_]+\.c$' <<<"$1"; }
links() { grep -E ' -o [^ ]*/vmpctl ' <<<"$1"; }

check "dry run lists compiles" [ "$(compiles "$env_lines" | wc -l)" -gt 10 ]
check "dry run lists one link" [ "$(links "$env_lines" | wc -l)" -eq 1 ]
check "environment CPPFLAGS and CFLAGS reach every compile" \
	[ -z "$(compiles "$env_lines" | grep -v -- '-DENV_CPP .*-O1 -DENV_C')" ]
check "environment CFLAGS and LDFLAGS reach the link" \
	grep -q -- '-O1 -DENV_C.*-Wl,-z,now' <<<"$(links "$env_lines")"
check "command-line CPPFLAGS and CFLAGS reach every compile" \
	[ -z "$(compiles "$cmd_lines" | grep -v -- '-DARG_CPP .*-DARG_C')" ]
check "command-line LDFLAGS reach the link" grep -q -- '-Wl,-z,relro' <<<"$(links "$cmd_lines")"
check "vmpctl's own flags stay with replaced CFLAGS" \
	[ -z "$(compiles "$cmd_lines" | grep -v -- '-D_GNU_SOURCE .*-std=gnu11')" ]
check "no -Werror by default" [ -z "$(grep -- -Werror <<<"$env_lines$cmd_lines")" ]
check "WERROR=1 adds -Werror to every compile" \
	[ -z "$(compiles "$werror_lines" | grep -v -- -Werror)" ]
check "GSL and jansson flags come from pkg-config" \
	grep -qF -- "$(pkg-config --libs gsl jansson)" <<<"$(links "$env_lines")"

# install and uninstall, into a DESTDIR, of the vmpctl under test (copied
# with its objects and their times, so make finds nothing to rebuild)
cp -a "$(dirname "$VMPCTL")" "$scratch/out"
mk -s install PREFIX=/usr DESTDIR="$scratch/root" >/dev/null
(cd "$scratch/root" && find . -type f | sort) >"$scratch/installed"
printf '%s\n' ./usr/bin/vmpctl ./usr/share/bash-completion/completions/vmpctl \
	./usr/share/man/man1/vmpctl.1 >"$scratch/want"
check "install puts the binary, completion and man page" same_bytes "$scratch/installed" "$scratch/want"
check "the installed vmpctl is the one under test" cmp -s "$scratch/root/usr/bin/vmpctl" "$VMPCTL"
check "the installed completion is the one in tools/" \
	cmp -s "$scratch/root/usr/share/bash-completion/completions/vmpctl" "$TOOLS/vmpctl.bash-completion"
touch "$scratch/root/usr/bin/other"
mk -s uninstall PREFIX=/usr DESTDIR="$scratch/root" >/dev/null
(cd "$scratch/root" && find . -type f) >"$scratch/left"
check "uninstall removes exactly what install put" [ "$(cat "$scratch/left")" = ./usr/bin/other ]

# PLOT: cairo draws ab report --plot by default; a static build (Debian
# has no static cairo) has the stub that says so, and links no cairo.
static_lines=$(mk -n -B STATIC=1)
check "the default build compiles the cairo plot" grep -q ' ab/plot_cairo\.c$' <<<"$env_lines"
check "the default build links cairo" grep -qF -- "$(pkg-config --libs cairo)" <<<"$(links "$env_lines")"
check "STATIC=1 leaves cairo out (PLOT=0)" \
	[ -z "$(grep -e plot_cairo -e -lcairo <<<"$static_lines")" ]
check "STATIC=1 compiles the plot stub" grep -q ' ab/plot_none\.c$' <<<"$static_lines"

# SMARTCOLS: libsmartcols prints the tables by default; a static build
# (Debian has no static libsmartcols) prints them without it.
check "the default build compiles the libsmartcols tables" grep -q ' table_scols\.c$' <<<"$env_lines"
check "the default build links libsmartcols" \
	grep -qF -- "$(pkg-config --libs smartcols)" <<<"$(links "$env_lines")"
check "STATIC=1 leaves libsmartcols out (SMARTCOLS=0)" \
	[ -z "$(grep -e table_scols -e -lsmartcols <<<"$static_lines")" ]
check "STATIC=1 compiles the plain tables" grep -q ' table_plain\.c$' <<<"$static_lines"

# print-build-debs: the owners of the .pc files linked, each with its .a
# where the build is static
owners() {
	for module in "$@"; do
		dpkg -S "$(pkg-config --variable=pcfiledir "$module")/$module.pc" | cut -d: -f1
	done | sort -u
}
debs=$(top_make -s -C "$TOOLS" print-build-debs)
check "print-build-debs names the packages of the .pc files ($debs)" \
	[ "$(sort <<<"$debs")" = "$(owners gsl jansson cairo smartcols)" ]
debs=$(top_make -s -C "$TOOLS" print-build-debs STATIC=1)
check "print-build-debs STATIC=1 names those of the static build ($debs)" \
	[ "$(sort <<<"$debs")" = "$(owners gsl jansson)" ]
for lib in gsl gslcblas jansson; do
	check "lib$lib.a for the static guest vmpctl" \
		[ -e "$(pkg-config --variable=libdir gsl)/lib$lib.a" ]
done
check "the linked modules are the ones the Makefile names" \
	grep -qx 'PKG_MODULES := gsl jansson' "$TOOLS/Makefile"

finish
