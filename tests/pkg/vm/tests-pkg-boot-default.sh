# shellcheck shell=dash
# Guest tests of the boot-time default (tests/pkg/vm-lanes, lane
# pkg-boot-default): booted with vmpressure_ctl.enabled=0 on the kernel
# command line, $MODULE being the module dkms built, Debian's modprobe
# (kmod) at /sbin/modprobe, and the package's examples at
# /vmtest/pkg/modprobe.conf (for /etc/modprobe.d/) and
# /vmtest/pkg/modules-load.conf (for /etc/modules-load.d/).
# Sourced after lib.sh; each test_* function runs in its own `sh -eu`.
#
# The rule being checked: the kernel ignores MODULE.PARAM=... on its own
# command line for a module that is not built in (init/main.c,
# unknown_bootoption(): "modprobe will find them in /proc/cmdline");
# modprobe passes modprobe.d's options, then /proc/cmdline's, then its own
# arguments; and the kernel's parse_args() (kernel/params.c) applies them
# left to right, so the last one wins: the command line beats modprobe.d.
# modprobe is what loads the module at boot: initramfs-tools' init runs it
# for each line of /etc/initramfs-tools/modules, systemd-modules-load (the
# same libkmod) for each of /etc/modules-load.d/.

CMDLINE_DEFAULT=0
MODPROBE_D=/etc/modprobe.d/vmpressure-ctl.conf
# By its path: the guest's busybox sh runs its own applet for a bare
# "modprobe" whatever PATH holds.
MODPROBE=/sbin/modprobe

need_kmod() {
	"$MODPROBE" --version 2>/dev/null | grep '^kmod version' >/dev/null ||
		fail "$MODPROBE is not Debian's kmod: $("$MODPROBE" --version 2>&1 | head -n 1)"
}

# The package's example line "#LINE" of FILE, uncommented.
example_line() {
	line=$(sed -n "s/^#\\($2\\)\$/\\1/p" "$1")
	[ -n "$line" ] || fail "$1 has no example line '#$2'"
	echo "$line"
}

# Runs CMD... with /proc/cmdline reading CMDLINE, as kmod sees it after a
# boot with that command line.
with_cmdline() {
	cmdline=$1
	shift
	echo "$cmdline" >/tmp/cmdline
	mount -o bind /tmp/cmdline /proc/cmdline || fail "cannot bind a stand-in over /proc/cmdline"
	status=0
	"$@" || status=$?
	umount /proc/cmdline
	return "$status"
}

# Loads the module through modprobe with modprobe.d holding LINE (none when
# empty) and checks the knob it starts with.
modprobe_expect() {
	line=$1 want=$2 why=$3
	need_kmod
	! module_loaded || unload_module
	mkdir -p /etc/modprobe.d
	rm -f "$MODPROBE_D"
	[ -z "$line" ] || echo "$line" >"$MODPROBE_D"
	"$MODPROBE" vmpressure_ctl || fail "modprobe vmpressure_ctl failed (modprobe.d: '$line')"
	rm -f "$MODPROBE_D"
	[ "$(knob)" = "$want" ] || fail "enabled is $(knob) after modprobe, expected $want: $why"
}

test_cmdline_param_reaches_modprobe_only() {
	need_module
	grep -qw "vmpressure_ctl.enabled=$CMDLINE_DEFAULT" /proc/cmdline ||
		fail "the lane was not booted with vmpressure_ctl.enabled=$CMDLINE_DEFAULT"
	unload_module
	insmod "$MODULE" || fail "insmod failed"
	[ "$(knob)" = 1 ] || fail "insmod gave enabled=$(knob): the kernel applied its command line itself"
	modprobe_expect "" "$CMDLINE_DEFAULT" "modprobe must pass vmpressure_ctl.enabled from /proc/cmdline"
}

# Both ways round, so that neither source can win by being the only one read.
test_cmdline_beats_modprobe_d() {
	need_module
	modprobe_expect "options vmpressure_ctl enabled=1" "$CMDLINE_DEFAULT" \
		"the command line's enabled=$CMDLINE_DEFAULT comes after modprobe.d's enabled=1 and wins"
	with_cmdline "quiet vmpressure_ctl.enabled=1" \
		modprobe_expect "options vmpressure_ctl enabled=0" 1 \
		"the command line's enabled=1 comes after modprobe.d's enabled=0 and wins"
}

test_package_modprobe_d_example() {
	need_module
	line=$(example_line /vmtest/pkg/modprobe.conf "options vmpressure_ctl enabled=0")
	# without the command line's parameter, modprobe.d's line decides
	with_cmdline "$(sed 's/vmpressure_ctl\.enabled=[^ ]*//' /proc/cmdline)" \
		modprobe_expect "$line" 0 "the uncommented example loads it short-circuited"
}

# The modules-load.d example, uncommented, names the module; loaded the way
# systemd-modules-load does, it starts with the command line's default.
test_package_modules_load_d_example() {
	need_module
	need_kmod
	name=$(example_line /vmtest/pkg/modules-load.conf vmpressure_ctl)
	unload_module
	"$MODPROBE" "$name" || fail "modprobe $name (the modules-load.d example) failed"
	expect_knob "$CMDLINE_DEFAULT" "loaded from the modules-load.d example with vmpressure_ctl.enabled=$CMDLINE_DEFAULT on the command line"
}
