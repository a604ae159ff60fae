# shellcheck shell=dash
# The demo the README's main-job command shows: load the module and let
# vmpctl prove the on/off difference. Extend it by appending commands.
set -eu
# shellcheck source=tests/vm/guest/lib.sh
. /vmtest/lib.sh

echo "== vmpressure_ctl on Debian $(uname -r)"
[ -e "$MODULE" ] || { echo "vmpressure_ctl.ko was not built for this kernel"; exit 1; }
command -v vmpctl >/dev/null || { echo "vmpctl is not in the initramfs"; exit 1; }
# shellcheck disable=SC2086 # one word per parameter
insmod "$MODULE" $MODULE_PARAMS
vmpctl status
vmpctl check

# The A/B the 2021 reviewer asked for, in this boot: the page-fault test in
# a memcg a quarter of its size (reclaim into zram on every run), knob at 1
# (stock) against 0, with the statistics that say whether B differs from A.
echo
echo "== vmpctl ab: page faults per wall-clock second, stock (A) vs short-circuited (B)"
vmpctl ab --runs 10 --target 1% --higher-is-better \
	--metric '"fault/wsec":([0-9.]+)' --metric-name fault/wsec -q \
	-- vmpctl pft --json --size 64M --memcg-limit 16M
