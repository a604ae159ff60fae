# shellcheck shell=dash
# The demo the README's main-job command shows: load the module and let
# vmpctl prove the on/off difference. Extend it by appending commands.
set -eu
. /vmtest/lib.sh

echo "== vmpressure_ctl on Debian $(uname -r)"
[ -e "$MODULE" ] || { echo "vmpressure_ctl.ko was not built for this kernel"; exit 1; }
command -v vmpctl >/dev/null || { echo "vmpctl is not in the initramfs"; exit 1; }
insmod "$MODULE" $MODULE_PARAMS
vmpctl status
vmpctl check
