# shellcheck shell=dash
# Guest tests of the boot-time default, for a lane booted with
# vmpressure_ctl.enabled=0 on the kernel command line, the package's
# modprobe.d example (debian/etc/modprobe.d/vmpressure-ctl.conf) staged at
# /vmtest/pkg/modprobe.conf and modules.dep made for the staged modules.
# Sourced after lib.sh; each test_* function runs in its own `sh -eu`.
#
# The rule being checked: the kernel ignores MODULE.PARAM=... on its own
# command line for a module that is not built in (init/main.c,
# unknown_bootoption(): "modprobe will find them in /proc/cmdline");
# modprobe passes modprobe.d's options, then /proc/cmdline's, then its own
# arguments; and the kernel's parse_args() (kernel/params.c) applies them
# left to right, so the last one wins: the command line beats modprobe.d.

CMDLINE_DEFAULT=0
MODPROBE_D=/etc/modprobe.d/vmpressure-ctl.conf

# Loads the module through modprobe with modprobe.d holding LINE (none when
# empty) and checks the knob it starts with.
modprobe_expect() {
	line=$1 want=$2 why=$3
	module_loaded && unload_module
	mkdir -p /etc/modprobe.d
	rm -f "$MODPROBE_D"
	[ -z "$line" ] || echo "$line" >"$MODPROBE_D"
	modprobe vmpressure_ctl || fail "modprobe vmpressure_ctl failed (modprobe.d: '$line')"
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

test_cmdline_beats_modprobe_d() {
	need_module
	modprobe_expect "options vmpressure_ctl enabled=1" "$CMDLINE_DEFAULT" \
		"the command line's value comes after modprobe.d's and wins"
}

test_package_modprobe_d_example() {
	need_module
	line=$(sed -n 's/^#\(options vmpressure_ctl enabled=0\)$/\1/p' /vmtest/pkg/modprobe.conf)
	[ -n "$line" ] || fail "the package's modprobe.d example lacks '#options vmpressure_ctl enabled=0'"
	# without the command line's parameter, modprobe.d's line decides
	sed 's/vmpressure_ctl\.enabled=[^ ]*//' /proc/cmdline >/tmp/cmdline
	mount --bind /tmp/cmdline /proc/cmdline
	status=0
	(modprobe_expect "$line" 0 "the uncommented example loads it short-circuited") || status=$?
	umount /proc/cmdline
	return "$status"
}
