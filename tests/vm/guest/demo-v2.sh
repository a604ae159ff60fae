# shellcheck shell=dash
# The cgroup-v2 demo (make demo-v2, on the 7.3 lane): what the knob changes
# where there is no memory.pressure_level. vmpctl check runs loopback TCP
# next to its reclaim and shows sock_throttled per phase; then an
# interleaved A/B of iperf3 in a memcg held at its limit says what
# vmpressure's socket throttling costs that TCP.
# requires: workloads (tests/vm/lib/workloads.sh stages iperf3)
set -eu
# shellcheck source=tests/vm/guest/lib.sh
. /vmtest/lib.sh

echo "== vmpressure_ctl on Debian $(uname -r), cgroup v2"
[ -e "$MODULE" ] || { echo "vmpressure_ctl.ko was not built for this kernel"; exit 1; }
command -v vmpctl >/dev/null || { echo "vmpctl is not in the initramfs"; exit 1; }
command -v iperf3 >/dev/null || { echo "iperf3 is not in the initramfs"; exit 1; }
# shellcheck disable=SC2086 # one word per parameter
insmod "$MODULE" $MODULE_PARAMS
vmpctl status
vmpctl check

# Sockets are charged to the memcg of the task that opens them: this shell
# joins the memcg first, so the hog, the iperf3 server and its client all
# run there, and reclaim (vmpressure's socket pressure) hits their TCP.
cg=/sys/fs/cgroup/demo-v2
mkdir -p "$cg"
echo $((64 * 1024 * 1024)) >"$cg/memory.max"
echo $$ >"$cg/cgroup.procs"
ip link set lo up
vmpctl pft -s 96M --duration 600 >/dev/null &
hog=$!
iperf3 -s -1 -D -p 5201 --pidfile /tmp/demo-iperf3.pid
wait_until 10 test -s /tmp/demo-iperf3.pid

echo
echo "== vmpctl ab --interleave: iperf3 over loopback in a 64M memcg at its limit, stock (A) vs short-circuited (B)"
vmpctl ab --interleave 2.5 --max-flip 5 -n 40 -w 2 -T 150 -q --preset iperf3 --save /tmp/demo-ab.jsonl \
	-- iperf3 -c 127.0.0.1 -p 5201 -t 600 -i 0.5 --forceflush
# the server (-1) ended with its one client; the hog runs until killed
kill "$hog"
demo_print_save /tmp/demo-ab.jsonl
