/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test-only direct-call target of direct_holder.c: return at once,
 * into the hooked function (or wherever ftrace's caller set the return
 * address). Only ever entered by a CALL or a RET, never an indirect jump,
 * so it needs no ENDBR.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/unwind_hints.h>

	.text
SYM_CODE_START(vmpc_test_direct_tramp)
	ANNOTATE_NOENDBR
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(vmpc_test_direct_tramp)
