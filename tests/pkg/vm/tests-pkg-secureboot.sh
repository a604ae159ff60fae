# shellcheck shell=dash
# Guest tests of a lane booted under UEFI Secure Boot (OVMF with enrolled
# keys, the kernel signed for them) with module.sig_enforce=1, the test MOK
# certificate in the MokListRT UEFI variable (enrol-mok.sh wrote it on an
# earlier boot of the same firmware variables), $MODULE being the module
# dkms built and signed on the host, and the harness's own unsigned build
# of module/ staged at /vmtest/pkg/unsigned.ko with the certificate's
# subject CN in /vmtest/pkg/mok.cn. Sourced after lib.sh.

test_secure_boot_enforces_signatures() {
	dmesg | grep -q 'secureboot: Secure boot enabled' || fail "the kernel did not boot with Secure Boot"
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ] || fail "module signatures are not enforced"
}

test_mok_certificate_trusted() {
	cn=$(cat /vmtest/pkg/mok.cn)
	dmesg | grep -q "Loaded X.509 cert '$cn" ||
		fail "the kernel loaded no certificate '$cn' from MokListRT"
	grep -q "asymmetri $cn:" /proc/keys || fail "no key '$cn' in the kernel's keyrings"
}

test_dkms_module_loaded_signed() {
	need_module
	# loaded by the runner under sig_enforce=1: its signature was accepted
	module_loaded || fail "the dkms-built module is not loaded"
	taint=$(cat /sys/module/vmpressure_ctl/taint)
	case $taint in
	*E*) fail "the module taints the kernel with E (unsigned or unverified): '$taint'" ;;
	esac
}

test_unsigned_build_refused() {
	need_module
	unload_module
	if err=$(insmod /vmtest/pkg/unsigned.ko 2>&1); then
		fail "the unsigned build loaded under sig_enforce=1"
	fi
	case $err in
	*"Key was rejected by service"*) ;;
	*) fail "insmod of the unsigned build failed with '$err', not EKEYREJECTED" ;;
	esac
	dmesg | grep -q 'Loading of unsigned module is rejected' || fail "no rejection message in dmesg"
	load_module
}
