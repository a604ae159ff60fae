# shellcheck shell=dash
# Guest script of the enrolment boot before the Secure Boot lane
# (tests/pkg/vm-lanes): writes /vmtest/pkg/mok.esl (an EFI signature list
# holding the certificate dkms signs with, made by sbsiglist) into the
# MokListRT variable of shim's vendor GUID through efivarfs; the firmware
# keeps it in its variable store, where the kernel's load_uefi.c reads it
# on the next boot. On a real machine shim copies it there at every boot
# from MokList, which `mokutil --import` and the reboot's MokManager fill.
# Prints "enrol-mok: VARIABLE holds N bytes".
set -eu
mok_var=MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
modprobe efivarfs
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
# efivarfs takes a variable in one write: 4 bytes of attributes
# (non-volatile, boot and runtime access), then the data.
{ printf '\007\000\000\000'; cat /vmtest/pkg/mok.esl; } >/tmp/mok.var
dd if=/tmp/mok.var of="/sys/firmware/efi/efivars/$mok_var" bs=4096 2>/dev/null
echo "enrol-mok: $mok_var holds $(($(wc -c <"/sys/firmware/efi/efivars/$mok_var") - 4)) bytes"
