// SPDX-License-Identifier: GPL-2.0
/*
 * Where a hook sits and whether the kernel's text still leads to it. A
 * registered ftrace hook is not necessarily a live one: with
 * kernel.ftrace_enabled=0 ftrace turns every call site back into a NOP
 * while leaving the registrations in place. The call site itself is the
 * kernel's own word on it.
 */
#include <linux/kprobes.h>
#include <linux/rculist.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/insn.h>
#endif

#include "vmpressure_ctl.h"

/*
 * Whether registered probe p shares its address with another kprobe.
 * kprobes link the probes at one address into the list of an aggregate,
 * whose own list_head closes the ring (an optimised breakpoint probe is an
 * aggregate of one); a probe alone has an empty list. Removal keeps a
 * node's next pointer, so the walk under RCU gets back to p.
 */
static bool vmpc_kprobe_shared(struct kprobe *p)
{
	struct list_head *pos;
	unsigned int others = 0;

	rcu_read_lock();
	for (pos = rcu_dereference(list_next_rcu(&p->list)); pos != &p->list;
	     pos = rcu_dereference(list_next_rcu(pos)))
		others++;
	rcu_read_unlock();
	/* One of them is the aggregate's head. */
	return others > 1;
}

/*
 * Looks symbol up the way kprobes do, with a plain disabled kprobe: it
 * patches nothing and, having no post handler, changes nothing in an
 * aggregate it joins. Finds its ftrace call site where it has one, and
 * whether another kprobe sits there. Without kprobes the site stays
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
	site->kprobe_shared = false;
	if (!IS_ENABLED(CONFIG_KPROBES))
		return 0;
	err = register_kprobe(&kp);
	if (err)
		return err;
	site->addr = (unsigned long)kp.addr;
	site->ftrace = kp.flags & KPROBE_FLAG_FTRACE;
	site->kprobe_shared = vmpc_kprobe_shared(&kp);
	unregister_kprobe(&kp);
	return 0;
}

/*
 * An x86 ftrace site is live while it holds a CALL (to a trampoline or a
 * direct-call target), a JMP (to a direct-call target in jump mode) or an
 * INT3 (text_poke_bp() is changing it); off, it is a 5-byte NOP. An arm64
 * site (only the direct backend asks there) is live while it holds a BL,
 * which ftrace writes in one store; off, it is a NOP. Other architectures
 * report live: there only the ftrace backend hooks ftrace sites, and it is
 * FTRACE_OPS_FL_PERMANENT.
 */
bool vmpc_ftrace_site_live(unsigned long addr)
{
#ifdef CONFIG_X86
	u8 opcode;

	if (!addr || copy_from_kernel_nofault(&opcode, (void *)addr, 1))
		return true;
	return opcode == CALL_INSN_OPCODE || opcode == JMP32_INSN_OPCODE ||
	       opcode == INT3_INSN_OPCODE;
#elif defined(CONFIG_ARM64)
	__le32 insn;

	if (!addr || copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)))
		return true;
	return aarch64_insn_is_bl(le32_to_cpu(insn));
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
