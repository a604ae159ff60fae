/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target of the direct backend's ftrace direct call. It is entered from
 * the fentry site of a hooked function, by a direct CALL or by ftrace's
 * RET-based hand-off (which rebalances its own PUSH;RET with a CALL), so
 * the stack holds the return address into the hooked function above the
 * one into its caller. Each of the two is taken by a RET: the first, its
 * address changed to a local label, ends the fentry call without entering
 * the hooked function; from there vmpc_stub runs with the caller's
 * arguments still in place and its RET ends the caller's call.
 *
 * Two CALLs, two RETs: the hardware return stack buffer stays balanced.
 * The first RET is predicted into the hooked function and mispredicts
 * once; the stub's RET and every return up the caller's chain are then
 * predicted from their own CALLs. Dropping the fentry frame without a RET
 * would leave one stale entry, mispredicting each of those returns instead.
 *
 * Call-depth tracking (6.2+): ftrace does not count the fentry CALL into
 * a direct trampoline, which counts it itself (CALL_DEPTH_ACCOUNT, as the
 * kernel's samples/ftrace do), while the return thunk behind each RET
 * counts that return. IBT polices no RET, and there is no indirect CALL
 * or JMP here. ORC: the label is annotated as a function entry, which it
 * is: only the caller's return address is left on the stack.
 *
 * With count_skipped=0, vmpc_direct_tramp_uncounted does the same, but
 * its second RET ends the caller's call itself: nothing is counted.
 *
 * In resident mode, while vmpc_pass_through says stock, a plain RET goes
 * back into the hooked function instead, which then runs as if called
 * directly: one CALL, one RET, counted as any other.
 *
 * Where the kernel has jump mode (direct_mode.h) the fentry site JMPs to
 * direct_jmp_stub.c's stub instead and this is not built.
 */
#include "direct_mode.h"

#ifndef VMPC_DIRECT_JMP
#include <linux/linkage.h>
#include <asm/unwind_hints.h>
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
#include <asm/ibt.h>
#endif
#ifdef VMPC_HAVE_CALL_DEPTH_ACCOUNT
#include <asm/nospec-branch.h>
#endif

/* Its address is taken: objtool wants it to be a valid IBT target. */
.macro VMPC_DIRECT_TRAMP_ENTRY
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
	ENDBR
#endif
#ifdef VMPC_HAVE_CALL_DEPTH_ACCOUNT
	CALL_DEPTH_ACCOUNT
#endif
.endm

	.text
SYM_FUNC_START(vmpc_direct_tramp)
	VMPC_DIRECT_TRAMP_ENTRY
	cmpb	$0, vmpc_pass_through(%rip)
	jne	.Lvmpc_hand_back
	leaq	vmpc_direct_tramp_to_stub(%rip), %rax
	movq	%rax, (%rsp)
	RET
/* Named, not .L: a guest test puts a kprobe here and unwinds from it. */
vmpc_direct_tramp_to_stub:
	UNWIND_HINT_FUNC
	jmp	vmpc_stub
.Lvmpc_hand_back:
	RET
SYM_FUNC_END(vmpc_direct_tramp)

/* count_skipped=0: the second RET is the caller's, with no stub before it. */
SYM_FUNC_START(vmpc_direct_tramp_uncounted)
	VMPC_DIRECT_TRAMP_ENTRY
	cmpb	$0, vmpc_pass_through(%rip)
	jne	.Lvmpc_uncounted_hand_back
	leaq	.Lvmpc_uncounted_to_caller(%rip), %rax
	movq	%rax, (%rsp)
	RET
.Lvmpc_uncounted_to_caller:
	UNWIND_HINT_FUNC
	RET
.Lvmpc_uncounted_hand_back:
	RET
SYM_FUNC_END(vmpc_direct_tramp_uncounted)
#endif
