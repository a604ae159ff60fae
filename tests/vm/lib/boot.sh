# shellcheck shell=bash
# Boots a lane's kernel and initramfs in QEMU. The console carries the
# kernel log; the verdict device carries only what the guest runner writes
# there, so no console line can fake a result. The kernel panics (and QEMU
# exits, -no-reboot) on a warning, an oops, a soft lockup, an RCU stall or a
# hung task.
#
# Inputs:  lane, arch_qemu, arch_cpu, arch_console, arch_cmdline, arch_verdict_tty,
#          arch_verdict_device (lane.sh); vmlinuz (kernel.sh);
#          lane_out/initramfs.cpio (initramfs.sh); timeout_s, guest_mem,
#          append, firmware, icount (VMPCTL_VM_TIMEOUT, VMPCTL_VM_MEM,
#          VMPCTL_VM_APPEND, VMPCTL_VM_FIRMWARE, VMPCTL_VM_ICOUNT).
# Outputs: boot ACCEL MODE writes lane_out/console.log, lane_out/qemu.log and
#          lane_out/ktap.txt (the verdict channel, carriage returns
#          dropped), and sets lane_fail on a timeout or a QEMU failure.
#          probe_accel prints kvm or tcg. firmware_args sets firmware_qemu
#          (array), QEMU's arguments for VMPCTL_VM_FIRMWARE, and with it
#          arch_verdict_device and arch_verdict_tty.
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

# Always on the command line: fail loudly. panic_on_rcu_stall has no boot
# parameter of its own; sysctl.* sets it from 5.8 on, where it exists.
panic_args='panic_on_warn=1 oops=panic panic=-1 softlockup_panic=1 hung_task_panic=1 sysctl.kernel.panic_on_rcu_stall=1'

# KVM hangs on some hosts: trust it only after a kernel got as far as its
# panic (no initramfs) within a short timeout under it.
kvm_works() {
	local log=$lane_out/kvm-probe.log
	[ -w /dev/kvm ] || return 1
	timeout 20 "${arch_qemu[@]}" -accel kvm -cpu host -m 256 -nodefaults -display none \
		-no-reboot -kernel "$vmlinuz" -append "console=$arch_console${arch_cmdline:+ $arch_cmdline} panic=-1" \
		-serial "file:$log" </dev/null >/dev/null 2>&1 &&
		grep -q 'Kernel panic' "$log"
}

probe_accel() {
	if kvm_works; then echo kvm; else echo tcg; fi
}

# VMPCTL_VM_FIRMWARE="CODE VARS": UEFI firmware instead of QEMU's direct
# kernel boot, which still hands the firmware -kernel, -initrd and -append.
# CODE is read-only; VARS is the variable store, written in place, so a
# later boot with the same VARS sees what an earlier one set. OVMF's
# Secure Boot builds need q35 with SMM and the variable store only SMM can
# write; x86-64 guests only. OVMF writes its console to COM1 and COM2 alike,
# so the verdict moves to COM3 (ttyS2), which it does not know and Linux
# probes at its legacy address.
firmware_args() {
	local code vars extra
	firmware_qemu=()
	[ -n "$firmware" ] || return 0
	read -r code vars extra <<<"$firmware"
	if [ -z "$vars" ] || [ -n "$extra" ]; then
		lane_fail="VMPCTL_VM_FIRMWARE takes \"CODE VARS\", not '$firmware'"
		return 1
	fi
	[ "${arch_qemu[0]}" = qemu-system-x86_64 ] ||
		{ lane_fail="VMPCTL_VM_FIRMWARE boots x86-64 guests only, not $lane_arch"; return 1; }
	firmware_qemu=(-machine "q35,smm=on" -global "driver=cfi.pflash01,property=secure,value=on"
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
		-drive "if=pflash,format=raw,unit=1,file=$vars")
	arch_verdict_device=(-device "isa-serial,chardev=verdict,index=2")
	arch_verdict_tty=ttyS2
}

# MODE (test or demo) goes to the guest's /init.
boot() {
	local accel=$1 mode=$2 cpu=$arch_cpu status=0 verdict accel_opt=$1 icount_opt=()
	firmware_args || return 0
	# Multi-threaded TCG crashed guests while they patched kernel text (int3
	# oopses on 6.12, soft lockups on 6.1), even without the module.
	if [ "$accel" = tcg ]; then accel_opt=tcg,thread=single; else cpu=host; fi
	[ -z "$icount" ] || [ "$accel" != tcg ] || icount_opt=(-icount "shift=$icount")
	rm -f "$lane_out/console.log" "$lane_out/ktap.log"
	if [ "$mode" = demo ]; then
		verdict=stdio,id=verdict,signal=on,logfile=$lane_out/ktap.log
	else
		verdict=file,id=verdict,path=$lane_out/ktap.log
	fi
	timeout --foreground "$timeout_s" "${arch_qemu[@]}" -accel "$accel_opt" "${icount_opt[@]}" -cpu "$cpu" \
		-m "$guest_mem" -smp 2 -no-reboot -display none -nodefaults "${firmware_qemu[@]}" \
		-kernel "$vmlinuz" -initrd "$lane_out/initramfs.cpio" \
		-append "console=$arch_console${arch_cmdline:+ $arch_cmdline} $panic_args rdinit=/init vmtest.mode=$mode vmtest.verdict=$arch_verdict_tty${append:+ $append}" \
		-serial "file:$lane_out/console.log" -chardev "$verdict" "${arch_verdict_device[@]}" \
		2>"$lane_out/qemu.log" || status=$?
	if [ "$status" -eq 124 ]; then
		lane_fail="timeout after ${timeout_s}s"
	elif [ "$status" -ne 0 ]; then
		lane_fail="qemu exited with status $status (build/vm/$lane/qemu.log)"
	fi
	[ -e "$lane_out/ktap.log" ] || : >"$lane_out/ktap.log"
	tr -d '\r' <"$lane_out/ktap.log" >"$lane_out/ktap.txt"
}
