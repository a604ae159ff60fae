/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only direct-call target for count_only=1 (testing.c): count the
 * call in vmpc_stub, then return into the hooked function, which runs as
 * if nothing had happened. The hooked function's argument registers are
 * preserved around the C call. Like direct_tramp.S, it counts the fentry
 * CALL that entered it for call-depth tracking, which ftrace does not.
 */
#include <linux/linkage.h>
#include <asm/unwind_hints.h>
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
#include <asm/ibt.h>
#endif
#ifdef VMPC_HAVE_CALL_DEPTH_ACCOUNT
#include <asm/nospec-branch.h>
#endif

	.text
SYM_FUNC_START(vmpc_test_direct_count_tramp)
#ifdef VMPC_SYM_FUNC_START_LACKS_ENDBR
	ENDBR
#endif
#ifdef VMPC_HAVE_CALL_DEPTH_ACCOUNT
	CALL_DEPTH_ACCOUNT
#endif
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	call	vmpc_stub
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	RET
SYM_FUNC_END(vmpc_test_direct_count_tramp)
