# shellcheck shell=dash
# Guest tests of a vmpctl .deb of the lane's architecture (tests/pkg/vmpctl-deb):
# the package's binary, dynamically linked, at /vmtest/pkg/root/usr/bin/vmpctl,
# the shared libraries it links (from its dependencies) at their paths under
# /, its sha256sum in /vmtest/pkg/vmpctl.sha256 and its version in
# /vmtest/pkg/version. The initramfs's own /bin/vmpctl is the harness's
# static build, which these tests must not run in its place.
# Sourced after lib.sh; each test_* function runs in its own `sh -eu`.

DEB_VMPCTL=/vmtest/pkg/root/usr/bin/vmpctl

test_deb_vmpctl_runs() {
	[ -x "$DEB_VMPCTL" ] || fail "no $DEB_VMPCTL in the initramfs"
	[ "$(sha256sum <"$DEB_VMPCTL")" = "$(cat /vmtest/pkg/vmpctl.sha256)" ] ||
		fail "$DEB_VMPCTL is not the package's binary"
	! cmp -s "$DEB_VMPCTL" /bin/vmpctl || fail "$DEB_VMPCTL is the harness's static build"
	out=$("$DEB_VMPCTL" --version 2>&1) || fail "vmpctl --version exited $?: $out"
	echo "$out"
	case $out in
	*" $(cat /vmtest/pkg/version)"*) ;;
	*) fail "vmpctl --version says '$out', the package is $(cat /vmtest/pkg/version)" ;;
	esac
}

test_deb_vmpctl_status() {
	need_module
	out=$("$DEB_VMPCTL" status 2>&1) || fail "vmpctl status exited $?: $out"
	echo "$out"
	echo "$out" | grep -qx 'module: *loaded' || fail "vmpctl status does not say the module is loaded"
	echo "$out" | grep -q '^enabled: *1 ' || fail "vmpctl status does not read enabled=1"
}

test_deb_vmpctl_check() {
	local status=0
	need_module
	"$DEB_VMPCTL" check || status=$?
	[ "$status" -eq 0 ] || fail "vmpctl check exited $status"
	expect_knob 1 "after vmpctl check"
}
