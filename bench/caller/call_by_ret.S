/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpb_call(a1, ..., a6): calls vmpb_callee with these arguments and
 * returns when it returns, without an indirect CALL or JMP: a CALL to a
 * local label leaves the return address for the callee, whose address,
 * pushed above it, is then "returned" to.
 *
 * IBT requires an indirect CALL or JMP to land on ENDBR, which objtool
 * seals off every function whose address the kernel never takes (such as
 * vmpressure()); it does not police RET, and the kernel has no shadow stack
 * that would. As in ftrace's own PUSH;RET hand-off, a pointless CALL keeps
 * the return stack buffer balanced: one mispredicted RET per call, for the
 * floor as for vmpressure(), so the two stay comparable.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/unwind_hints.h>

	.text
SYM_FUNC_START(vmpb_call)
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Lvmpb_enter
	/* The callee returns here, with only our caller's return left. */
	UNWIND_HINT_FUNC
	RET
.Lvmpb_enter:
	pushq	vmpb_callee(%rip)
	/* The callee's address sits where a return address would. */
	UNWIND_HINT_FUNC
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Lvmpb_rebalance
	int3
.Lvmpb_rebalance:
	addq	$8, %rsp
	RET
SYM_FUNC_END(vmpb_call)
