// SPDX-License-Identifier: GPL-2.0
/*
 * Target of the direct backend's ftrace direct call in jump mode
 * (DYNAMIC_FTRACE_WITH_JMP, 7.x x86-64) in resident mode: the hooked
 * function's fentry site JMPs here, or ftrace_caller, when other ftrace
 * users share the site, RETs here in place of the fentry return. Either
 * way only the caller's return address is on the stack, as at the hooked
 * function's entry: the stub stands where the function would have been.
 * The default mode, hooked only while the knob is 0, points the site at
 * vmpc_stub itself (hook_direct.c).
 *
 * Short-circuited, it jumps to vmpc_stub (with count_skipped=0, its
 * twin jumps to vmpc_stub_uncounted), whose RET ends the caller's CALL:
 * one CALL, one RET, nothing to rebalance. Call-depth tracking
 * counted that CALL in the hooked function's call thunk and counts the
 * RET in the return thunk, so the stub counts nothing itself.
 *
 * While vmpc_pass_through says stock, it jumps into the
 * hooked function's body past the fentry site, which then runs as if
 * called directly. That jump goes through a static call: a direct JMP
 * patched once, at resolve, so there is no indirect branch for retpolines
 * and IBT to police (the body has no ENDBR to land on); objtool records
 * the JMP as a site of the static call, which the kernel then patches to
 * lead straight into the body. The asm sits next to the key because
 * objtool looks the key up in the object it checks.
 */
#include <linux/ftrace.h>
#include <linux/static_call.h>

#include "compat.h"
#include "vmpressure_ctl.h"

#if defined(VMPC_HAVE_DIRECT) && defined(VMPC_DIRECT_JMP)

#include <linux/objtool.h>

DEFINE_STATIC_CALL_NULL(vmpc_direct_resume, vmpc_stub);

/*
 * One stub per short-circuit target, vmpc_stub or vmpc_stub_uncounted,
 * made by an assembler macro. Entered as those are (vmpressure_ctl.h):
 * no ENDBR to pay. Aligned as a function: bit 0 of a direct address is
 * ftrace's JMP tag, so an odd one would be taken for the byte before it.
 */
asm(".pushsection .text, \"ax\"\n"
	".macro VMPC_DIRECT_JMP_STUB name, stub\n"
	".balign 16\n"
	".globl \\name\n"
	".type \\name, @function\n"
	"\\name:\n\t"
	ANNOTATE_NOENDBR "\n\t"
	"cmpb $0, vmpc_pass_through(%rip)\n\t"
	"jne 1f\n\t"
	"jmp \\stub\n"
	"1:\tjmp " STATIC_CALL_TRAMP_STR(vmpc_direct_resume) "\n"
	".size \\name, . - \\name\n"
	".endm\n"
	"VMPC_DIRECT_JMP_STUB vmpc_direct_jmp_stub, vmpc_stub\n"
	"VMPC_DIRECT_JMP_STUB vmpc_direct_jmp_stub_uncounted, vmpc_stub_uncounted\n"
	".purgem VMPC_DIRECT_JMP_STUB\n"
	".popsection\n");

/*
 * Where the stub hands a call back to: past the fentry site at site_addr,
 * the hooked function's first instruction of its own.
 */
void vmpc_direct_jmp_resume_at(unsigned long site_addr)
{
	static_call_update(vmpc_direct_resume,
			   (typeof(vmpc_stub) *)(site_addr + MCOUNT_INSN_SIZE));
}

#endif
