/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target of the direct backend's ftrace direct call. It is entered from
 * the fentry site of a hooked function, by a direct CALL or by ftrace's
 * RET-based hand-off, so the stack holds the return address into the
 * hooked function above the one into its caller. Dropping the first and
 * tail-jumping to vmpc_stub makes the stub return straight to the caller,
 * with the caller's arguments still in place.
 *
 * No indirect branch and no RET here, so retpolines, return thunks and
 * IBT have nothing to act on; the stub's own RET pairs with the caller's
 * CALL, keeping return stack and call depth accounting balanced.
 */
#include <linux/linkage.h>
#include <asm/unwind_hints.h>
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
#include <asm/ibt.h>
#endif

	.text
SYM_FUNC_START(vmpc_direct_tramp)
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
	/* Its address is taken: objtool wants it to be a valid IBT target. */
	ENDBR
#endif
	addq	$8, %rsp
	UNWIND_HINT_FUNC
	jmp	vmpc_stub
SYM_FUNC_END(vmpc_direct_tramp)
