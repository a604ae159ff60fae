# shellcheck shell=dash
# Guest script of the enrolment boot before the Secure Boot lane: writes
# /vmtest/pkg/mok.esl (an EFI signature list holding the test MOK
# certificate, made by sbsiglist) into the MokListRT variable of shim's
# vendor GUID through efivarfs, where the kernel's load_uefi.c reads it on
# the next boot. Shim does this from its enrolled MokList on real machines.
set -eu
mok_var=MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
insmod "$(find "/lib/modules/$(uname -r)" -name 'efivarfs.ko*' | head -n 1)" 2>/dev/null || true
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
# efivarfs takes a variable in one write: 4 bytes of attributes
# (non-volatile, boot and runtime access), then the data.
{ printf '\007\000\000\000'; cat /vmtest/pkg/mok.esl; } >/tmp/mok.var
cat /tmp/mok.var >"/sys/firmware/efi/efivars/$mok_var"
echo "enrol-mok: $mok_var holds $(($(wc -c <"/sys/firmware/efi/efivars/$mok_var") - 4)) bytes"
