# shellcheck shell=dash disable=SC2153 # KNOB and the other names come from lib.sh
# Guest tests of the arm64 direct backend (module/direct_tramp_arm64.S)
# beyond what the shared tests already run with every backend of the lane
# (attach, detach, the knob with kernel evidence, unwinding, resident mode,
# kernel.ftrace_enabled=0, the IPMODIFY row). Uses lib-module.sh's holders
# and tests-module.sh's conflict rows. Run by run-tests.sh, each function in
# its own `sh -eu`, starting with the shipped module loaded at enabled=1.

# The conflict row of a BPF-style direct-call holder on arm64: its
# trampoline (tests/vm/kmods/conflict/direct_holder_tramp_arm64.S) owns
# vmpressure()'s direct call, so method=direct is refused with the owner
# named while ftrace and kprobe share the function with it, in either
# order of loading. Kernels without arm64 direct calls (before 6.4) cannot
# build the holder: there the row is skipped, saying so.
# group: conflict
# requires: arm64
test_conflict_direct_arm64() {
	need_module
	need_holder direct "no ftrace direct calls on this arm64 kernel (6.4+ with CALL_OPS): vmpc_test_direct.ko not built"
	conflicts_with direct
}
