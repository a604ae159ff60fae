# shellcheck shell=bash
# What every part of the VM harness shares: where things are, how it talks,
# and how parallel lanes take turns on the shared caches.
#
# Inputs:  XDG_CACHE_HOME, VMPCTL_VM_OUT (optional); vm_dir, the directory
#          tests/vm, set by the sourcing script before it sources this file.
# Outputs: top (the repository), cache (downloads and unpacked kernels,
#          shared by every work tree), out (the run's output folder:
#          VMPCTL_VM_OUT, default build/vm of this work tree), tools_out
#          (build/vm: the static vmpctl, shared by the runs of this tree);
#          say MESSAGE (to stderr), with_lock FILE CMD... (runs CMD in this
#          shell holding an exclusive lock on FILE).
# shellcheck disable=SC2034,SC2154 # the inputs above and outputs are shared
# with tests/vm/run and the other files it sources

top=$(cd "$vm_dir/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/vmpressure-ctl/vm
out=$(realpath -m "${VMPCTL_VM_OUT:-$top/build/vm}")
tools_out=$top/build/vm

say() { printf 'vm: %s\n' "$*" >&2; }

with_lock() {
	local file=$1 fd status=0
	shift
	exec {fd}>"$file"
	flock "$fd"
	"$@" || status=$?
	exec {fd}>&-
	return "$status"
}
