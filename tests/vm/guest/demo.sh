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

# The A/B the 2021 reviewer asked for, in this boot: one long page-fault
# run in a memcg a quarter of its size (reclaim into zram all along), the
# knob flipped between 1 (stock) and 0 every second, adjacent slices
# compared in pairs. Whole runs gave an MDE of 25-30% here; pairs of
# slices share the guest's noise and reach a few percent in two minutes.
# A knob flip under emulation on a busy host can take a second: --max-flip
# 5 keeps those pairs rather than leaving the kept ones unbalanced.
echo
echo "== vmpctl ab --interleave: page faults per second, stock (A) vs short-circuited (B)"
vmpctl ab --interleave 1 --max-flip 5 -n 60 -w 2 -T 120 -H -q --save /tmp/demo-ab.jsonl \
	-- vmpctl pft -s 64M --memcg-limit 16M --duration 600 --report-interval 0.1
demo_print_save /tmp/demo-ab.jsonl
