/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only arm64 direct-call target for count_only=1 (testing.c): count
 * the call in vmpc_stub, then return into the hooked function, which runs
 * as if nothing had happened. Same entry convention as
 * direct_tramp_arm64.S (x9 = the function's return address, x30 = the
 * return into it); the argument registers x0-x8 and x9 are kept around
 * the C call, in a frame whose record makes the unwinder see the function.
 */
#include <linux/linkage.h>

	.text
SYM_CODE_START(vmpc_test_direct_count_tramp)
	hint	34
	stp	x29, x30, [sp, #-96]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x9, [sp, #80]
	bl	vmpc_stub
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x9, [sp, #80]
	ldp	x29, x30, [sp], #96
	mov	x16, x30
	mov	x30, x9
	ret	x16
SYM_CODE_END(vmpc_test_direct_count_tramp)
