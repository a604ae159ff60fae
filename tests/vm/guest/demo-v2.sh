# shellcheck shell=dash
# The cgroup-v2 demo (make demo-v2, on the 7.3 lane): what the knob changes
# where there is no memory.pressure_level. vmpctl check runs loopback TCP
# next to its reclaim and shows sock_throttled per phase; then the A/B of
# vmpctl net says what vmpressure's socket throttling costs that TCP.
set -eu
# shellcheck source=tests/vm/guest/lib.sh
. /vmtest/lib.sh

echo "== vmpressure_ctl on Debian $(uname -r), cgroup v2"
[ -e "$MODULE" ] || { echo "vmpressure_ctl.ko was not built for this kernel"; exit 1; }
command -v vmpctl >/dev/null || { echo "vmpctl is not in the initramfs"; exit 1; }
# shellcheck disable=SC2086 # one word per parameter
insmod "$MODULE" $MODULE_PARAMS
vmpctl status
vmpctl check

echo
echo "== vmpctl ab: loopback TCP in a 64M memcg held at its limit, stock (A) vs short-circuited (B)"
vmpctl ab --runs 6 --higher-is-better \
	--metric '"MB/s":([0-9.]+)' --metric-name MB/s -q \
	-- vmpctl net --json --seconds 4
