/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether the direct backend runs in jump mode (direct_jmp_stub.c) or
 * through the CALL trampoline (direct_tramp.S): jump mode where the kernel
 * patches a tagged direct address as a JMP and has static calls to jump
 * back into the body with, and only without vmpressure_prio() (MEMCG_V1=n,
 * as in Debian's 7.3): a JMP leaves the stub no return address that tells
 * two hooked functions apart, so it knows one body to hand calls back to.
 * Preprocessor only, on kconfig and probe.sh's answers: the assembly
 * reads it too.
 */
#ifndef VMPC_DIRECT_MODE_H
#define VMPC_DIRECT_MODE_H

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_JMP) &&       \
	defined(VMPC_HAVE_FTRACE_JMP_SET) &&         \
	!defined(VMPC_HAVE_FTRACE_OPS_FL_JMP) &&     \
	defined(CONFIG_HAVE_STATIC_CALL) && !defined(CONFIG_MEMCG_V1)
#define VMPC_DIRECT_JMP 1
#endif

#endif /* VMPC_DIRECT_MODE_H */
