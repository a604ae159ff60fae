# shellcheck shell=dash
# Guest tests of the Secure Boot lane (tests/pkg/vm-lanes, lane
# pkg-secureboot): booted by OVMF with Secure Boot on and
# module.sig_enforce=1, the certificate dkms signed with in the MokListRT
# UEFI variable (tests/pkg/vm/enrol-mok.sh wrote it on an earlier boot of
# the same variable store), $MODULE being the module dkms built and signed
# (its sha256 in /vmtest/pkg/dkms.sha256), and in /vmtest/pkg/ that module
# without its signature (unsigned.ko), signed by a key the kernel does not
# know (untrusted.ko), and the certificate's subject CN (mok.cn).
# The runner loaded $MODULE before the first test. Sourced after lib.sh.
#
# The kernel (kernel/module/signing.c): a module whose signature does not
# verify is refused under sig_enforce with EKEYREJECTED ("Key was rejected
# by service") and "Loading of <reason> is rejected" in the log. MokListRT's
# certificates go to the .machine keyring (security/integrity/
# platform_certs/load_uefi.c; Debian's trust_moklist() trusts them without
# shim's MokListTrustedRT), which the secondary trusted keyring that module
# signatures are checked against links.

test_secure_boot_enforces_signatures() {
	log_has 'Secure boot enabled' || fail "the kernel did not boot with Secure Boot"
	log_has 'Kernel is locked down from EFI Secure Boot' ||
		fail "no lockdown from Secure Boot in the kernel log"
	[ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ] || fail "module signatures are not enforced"
}

test_mok_certificate_trusted() {
	cn=$(cat /vmtest/pkg/mok.cn)
	log_has 'Loading X.509 certificate: UEFI:MokListRT' ||
		fail "the kernel did not read MokListRT"
	log_has "Loaded X.509 cert '$cn" ||
		fail "the kernel loaded no certificate '$cn'"
	grep -q "asymmetri $cn:" /proc/keys || fail "no key '$cn' in the kernel's keyrings"
	grep -qE 'keyring +\.machine: [1-9]' /proc/keys || fail "the .machine keyring holds no key"
}

test_dkms_module_loaded_signed() {
	need_module
	[ "$(sha256sum <"$MODULE")" = "$(cat /vmtest/pkg/dkms.sha256)" ] ||
		fail "$MODULE is not the module dkms installed"
	# the runner loaded it under sig_enforce=1: its signature was accepted
	module_loaded || fail "the dkms-built module is not loaded"
	unload_module
	insmod "$MODULE" || fail "insmod of the dkms-built module failed under sig_enforce=1"
	case $(cat /sys/module/vmpressure_ctl/taint) in
	*E*) fail "the module taints the kernel with E (unsigned or unverified)" ;;
	esac
}

# insmod of FILE must fail with EKEYREJECTED and the kernel log must say
# "Loading of REASON is rejected".
expect_refused() {
	file=$1 reason=$2
	need_module
	unload_module
	if err=$(insmod "$file" 2>&1); then
		fail "$file loaded under sig_enforce=1"
	fi
	case $err in
	*"Key was rejected by service"*) ;;
	*) fail "insmod $file failed with '$err', not EKEYREJECTED" ;;
	esac
	log_has "Loading of $reason is rejected" || fail "no 'Loading of $reason is rejected' in the kernel log"
	! module_loaded || fail "$KNOB_DIR exists after the refused insmod"
}

test_unsigned_build_refused() {
	expect_refused /vmtest/pkg/unsigned.ko "unsigned module"
}

# What a user sees when the MOK dkms signed with is not enrolled.
test_untrusted_key_refused() {
	expect_refused /vmtest/pkg/untrusted.ko "module with unavailable key"
}
