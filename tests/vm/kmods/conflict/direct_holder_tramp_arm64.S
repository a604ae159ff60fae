/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test-only arm64 direct-call target of direct_holder.c: return at
 * once into the hooked function (or wherever ftrace's caller set the
 * return address), with x30 given back the function's own return address,
 * which the patch site moved to x9. The landing pad ("hint 34", bti c)
 * takes ftrace_caller's "br x17" when the site is shared.
 */
#include <linux/linkage.h>

	.text
SYM_CODE_START(vmpc_test_direct_tramp)
	hint	34
	mov	x16, x30
	mov	x30, x9
	ret	x16
SYM_CODE_END(vmpc_test_direct_tramp)
