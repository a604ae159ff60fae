// SPDX-License-Identifier: GPL-2.0
/*
 * Where a hook sits and whether the kernel's text still leads to it. A
 * registered ftrace hook is not necessarily a live one: with
 * kernel.ftrace_enabled=0 ftrace turns every call site back into a NOP
 * while leaving the registrations in place. The call site itself is the
 * kernel's own word on it.
 */
#include <linux/kprobes.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif

#include "vmpressure_ctl.h"

/*
 * Looks symbol up the way kprobes do (a disabled kprobe patches nothing):
 * its ftrace call site where it has one. Without kprobes the site stays
 * unknown (addr 0) and counts as live.
 */
int vmpc_site_find(const char *symbol, struct vmpc_site *site)
{
	struct kprobe kp = {
		.symbol_name = symbol,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int err;

	site->addr = 0;
	site->ftrace = false;
	if (!IS_ENABLED(CONFIG_KPROBES))
		return 0;
	err = register_kprobe(&kp);
	if (err)
		return err;
	site->addr = (unsigned long)kp.addr;
	site->ftrace = kp.flags & KPROBE_FLAG_FTRACE;
	unregister_kprobe(&kp);
	return 0;
}

/*
 * An x86 ftrace site is live while it holds a CALL (to a trampoline or a
 * direct-call target) or an INT3 (text_poke_bp() is changing it); off, it
 * is a 5-byte NOP. Other architectures report live: there only the ftrace
 * backend hooks ftrace sites, and it is FTRACE_OPS_FL_PERMANENT.
 */
bool vmpc_ftrace_site_live(unsigned long addr)
{
#ifdef CONFIG_X86
	u8 opcode;

	if (!addr || copy_from_kernel_nofault(&opcode, (void *)addr, 1))
		return true;
	return opcode == CALL_INSN_OPCODE || opcode == INT3_INSN_OPCODE;
#else
	return true;
#endif
}

bool vmpc_sites_live(const struct vmpc_site *sites, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (sites[i].ftrace && !vmpc_ftrace_site_live(sites[i].addr))
			return false;
	return true;
}
