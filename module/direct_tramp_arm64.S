/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 target of the direct backend's ftrace direct call (6.4+: direct
 * calls with CALL_OPS). The hooked function's patch site is
 * "mov x9, x30; bl <target>": here x9 holds the function's own return
 * address (into its caller) and x30 the return into the function past the
 * site. The BL comes straight here when this is within its range, else
 * from ftrace_caller by "br x17" (with the same x9 and x30, after any
 * other ftrace user of the site ran): the BTI landing pad ("hint 34",
 * bti c) accepts that indirect branch on BTI hardware and is a NOP
 * elsewhere. x16 and x17 are free: the procedure call standard lets
 * veneers clobber them between a caller's BL and the callee.
 *
 * Short-circuited, a RET to a local label first ends the site's BL, as
 * direct_tramp.S does on x86-64: the return stack then holds the caller's
 * entry on top again, so vmpc_stub's RET (to the caller, x30 = x9) and
 * every return up the caller's chain stay predicted; only that first RET
 * mispredicts. Branching to the stub without it would leave the site's
 * entry on the stack and every one of those returns off by one.
 *
 * With count_skipped=0 the _uncounted entries do the same, but return to
 * the caller by "ret x9" themselves: no stub, nothing counted, and x30,
 * which the caller does not keep across a call, is left as it is.
 *
 * In resident mode, while vmpc_pass_through says stock, the trampoline
 * returns into the function with x30 restored, and the function runs as
 * if called directly. The default mode hooks only while the knob is 0:
 * its entry, vmpc_direct_tramp_skip, reads no flag.
 *
 * No frame record: the function has not pushed its own yet, so the
 * frame pointer still leads through its caller's record; the stub,
 * entered by a branch with the caller's x30, stands in the function's
 * place for the unwinder.
 */
#include <linux/linkage.h>

	.text
SYM_CODE_START(vmpc_direct_tramp_skip)
	hint	34
	adr	x16, vmpc_direct_tramp_to_stub
	ret	x16
SYM_CODE_END(vmpc_direct_tramp_skip)

SYM_CODE_START(vmpc_direct_tramp_skip_uncounted)
	hint	34
	adr	x16, .Lvmpc_uncounted_to_caller
	ret	x16
SYM_CODE_END(vmpc_direct_tramp_skip_uncounted)

SYM_CODE_START(vmpc_direct_tramp)
	hint	34
	adrp	x16, vmpc_pass_through
	ldrb	w16, [x16, :lo12:vmpc_pass_through]
	cbnz	w16, .Lvmpc_hand_back
	adr	x16, vmpc_direct_tramp_to_stub
	ret	x16
/* Named, not .L: a guest test puts a kprobe here and unwinds from it. */
vmpc_direct_tramp_to_stub:
	mov	x30, x9
	b	vmpc_stub
.Lvmpc_hand_back:
	mov	x16, x30
	mov	x30, x9
	ret	x16
SYM_CODE_END(vmpc_direct_tramp)

SYM_CODE_START(vmpc_direct_tramp_uncounted)
	hint	34
	adrp	x16, vmpc_pass_through
	ldrb	w16, [x16, :lo12:vmpc_pass_through]
	cbnz	w16, .Lvmpc_uncounted_hand_back
	adr	x16, .Lvmpc_uncounted_to_caller
	ret	x16
.Lvmpc_uncounted_to_caller:
	ret	x9
.Lvmpc_uncounted_hand_back:
	mov	x16, x30
	mov	x30, x9
	ret	x16
SYM_CODE_END(vmpc_direct_tramp_uncounted)
