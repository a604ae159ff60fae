// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe backend, only when asked for by name (method=kprobe): a kprobe on
 * each target's entry whose pre-handler points the saved instruction
 * pointer at vmpc_stub and returns 1 so kprobes neither single-steps nor
 * restores it. In resident mode it returns 0 without touching anything
 * while vmpc_pass_through says stock.
 *
 * It never shares a target with another kprobe. kprobes aggregate the
 * probes at one address, and a probe with a post handler (ours, to claim
 * IPMODIFY) that joins an aggregate already armed through the plain kprobe
 * ftrace ops marks it "post handler" without re-arming it: the site is not
 * exclusively ours, and the kernel later disarms it through the other ops
 * (a WARN in __disarm_kprobe_ftrace()). So every address is looked up
 * with a plain probe (site.c), and attach() refuses with -EBUSY while
 * another kprobe sits there. kprobe_mutex is the kernel's own: a probe
 * registered in the moment between that check and ours is not seen. A
 * kprobe that comes after ours joins safely: the aggregate keeps the
 * IPMODIFY ops ours armed it with.
 *
 * On the ftrace call site (KPROBES_ON_FTRACE) the kprobe rides on kprobes'
 * own ftrace_ops, which has no FTRACE_OPS_FL_PERMANENT: armed() reads the
 * call sites, as it does for breakpoint kprobes that debugfs'
 * kprobes/enabled can disarm. That switch unregisters kprobes' ftrace_ops
 * but leaves a call site live while another ftrace user (a function
 * tracer filtered on vmpressure) is on it, so there armed() also reads a
 * breakpoint kprobe of ours on vmpc_kprobe_canary(), which the switch
 * disarms with the rest: the kernel's own text, read without kprobe_mutex.
 *
 * unregister_kprobes() returns nothing. When the kernel fails to take a
 * probe out (__unregister_kprobe_top() failing to disarm one on an ftrace
 * site), it clears the probe's address and leaves it linked in its
 * tables, for good: a retry finds nothing at that address. No lookup by
 * address finds the probe again, and it is disabled here so that an
 * aggregate probe it may sit in skips it too: no call reaches it. Its
 * memory stays the kernel's (struct vmpc_kprobes), past the module's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/kmemleak.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "testing.h"
#include "vmpressure_ctl.h"

/*
 * The probes, allocated at the first attach and reused by the next ones
 * until the kernel loses one of them: then they are left to the kernel,
 * never reused nor freed, and the next attach allocates new ones. They
 * are registered by address: nothing in them but the handlers points into
 * the module, and no call reaches a lost probe's handlers.
 */
struct vmpc_kprobes {
	struct kprobe target[VMPC_MAX_TARGETS];
	struct kprobe *ptrs[VMPC_MAX_TARGETS];
	/* Registered while a target's kprobe sits on its ftrace call site. */
	struct kprobe canary;
};

static struct vmpc_kprobes *vmpc_kprobes;
static const char *vmpc_kprobe_symbol[VMPC_MAX_TARGETS];
static unsigned int vmpc_kprobe_nr_resolved;
static bool vmpc_kprobe_refused_shared;
static bool vmpc_kprobe_on_ftrace;

/*
 * Never called: only its first instruction matters, where a breakpoint
 * kprobe shows whether kprobes are armed. notrace, so that the probe is a
 * breakpoint and not one more user of an ftrace call site; the nop gives
 * it a body of its own, one no other function is merged with.
 */
static noinline notrace void vmpc_kprobe_canary(void)
{
	asm volatile("nop");
}

static int vmpc_kprobe_redirect(struct kprobe *p, struct pt_regs *regs)
{
	/* 0: kprobes runs the probed instruction and the function goes on. */
	if (READ_ONCE(vmpc_pass_through))
		return 0;
	if (vmpc_test_count_only()) {
		vmpc_count_skipped();
		return 0;
	}
	instruction_pointer_set(regs, vmpc_stub_addr);
	return 1;
}

NOKPROBE_SYMBOL(vmpc_kprobe_redirect);

/*
 * Runs only when the pre-handler returns 0 (resident mode at stock, the
 * test-only count_only), and does nothing. Its presence makes
 * kprobes-on-ftrace arm the probe through its IPMODIFY ftrace_ops, so a
 * livepatch on a target makes arming fail with -EBUSY (and a later
 * livepatch fails likewise) instead of both fighting over the same
 * instruction pointer.
 */
static void vmpc_kprobe_claim_ipmodify(struct kprobe *p, struct pt_regs *regs,
				       unsigned long flags)
{
}

NOKPROBE_SYMBOL(vmpc_kprobe_claim_ipmodify);

/* A kprobe cannot be registered twice without being reinitialised. */
static void vmpc_kprobe_init(struct kprobe *p, unsigned long addr)
{
	memset(p, 0, sizeof(*p));
	p->addr = (kprobe_opcode_t *)addr;
	p->pre_handler = vmpc_kprobe_redirect;
	p->post_handler = vmpc_kprobe_claim_ipmodify;
}

/* Looked up with a plain probe (site.c): one with a post handler is ours. */
static int vmpc_kprobe_resolve(const char *symbol)
{
	struct vmpc_site site;
	int err;

	if (!IS_ENABLED(CONFIG_KPROBES))
		return -EOPNOTSUPP;
	if (vmpc_kprobe_nr_resolved == VMPC_MAX_TARGETS)
		return -ENOSPC;
	err = vmpc_site_find(symbol, &site);
	if (err)
		return err;
	vmpc_kprobe_symbol[vmpc_kprobe_nr_resolved++] = symbol;
	return 0;
}

/* Fills addr[] per target; -EBUSY when another kprobe sits on one. */
static int vmpc_kprobe_check_alone(unsigned long addr[])
{
	struct vmpc_site site;
	unsigned int i;
	int err;

	for (i = 0; i < vmpc_kprobe_nr_resolved; i++) {
		err = vmpc_site_find(vmpc_kprobe_symbol[i], &site);
		if (err)
			return err;
		addr[i] = site.addr;
		if (site.kprobe_shared) {
			pr_err("kprobe: another kprobe sits on %s: refusing to share it\n",
			       vmpc_kprobe_symbol[i]);
			vmpc_kprobe_refused_shared = true;
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * unregister_kprobes(), or with the test-only lose_kprobe what it leaves
 * when the kernel fails to take out the first probe at the end of its
 * disarming (ftrace_set_filter_ip() out of memory): that one disarmed,
 * still registered, its address cleared.
 */
static void vmpc_kprobe_unregister(struct kprobe **kps, unsigned int nr)
{
	if (vmpc_test_lose_kprobe()) {
		disable_kprobe(kps[0]);
		kps[0]->addr = NULL;
		kps++;
		nr--;
	}
	unregister_kprobes(kps, nr);
}

/* Whether the kernel lost p (see the top of this file); if so, disables it. */
static bool vmpc_kprobe_lost(struct kprobe *p, const char *symbol)
{
	if (p->addr)
		return false;
	WRITE_ONCE(p->flags, p->flags | KPROBE_FLAG_DISABLED);
	pr_err("kprobe: the kernel failed to unregister the kprobe on %s and keeps it, disabled: no call reaches it, and its memory stays with the kernel\n",
	       symbol);
	return true;
}

/*
 * After unregistering: probes the kernel lost (registered by address, so
 * a null one is lost) are left to it, once no CPU can still be in their
 * handlers (kprobes run them with preemption off).
 */
static void vmpc_kprobe_leave_lost(struct vmpc_kprobes *kps, bool canary)
{
	unsigned int i, lost = 0;

	for (i = 0; i < vmpc_kprobe_nr_resolved; i++)
		lost += vmpc_kprobe_lost(&kps->target[i], vmpc_kprobe_symbol[i]);
	if (canary)
		lost += vmpc_kprobe_lost(&kps->canary, "vmpc_kprobe_canary");
	if (!lost)
		return;
	synchronize_rcu();
	kmemleak_not_leak(kps);
	WRITE_ONCE(vmpc_kprobes, NULL);
}

/* Takes every target's probe out, and the canary with them. */
static void vmpc_kprobe_unregister_all(struct vmpc_kprobes *kps, bool canary)
{
	vmpc_kprobe_unregister(kps->ptrs, vmpc_kprobe_nr_resolved);
	if (canary)
		unregister_kprobe(&kps->canary);
	vmpc_kprobe_leave_lost(kps, canary);
}

/*
 * Registered disabled, then armed one by one: enable_kprobe() reports a
 * failure to arm (-EBUSY from an IPMODIFY owner), which registering an
 * enabled kprobe can lose (Debian's 7.3 returns 0 with the probe dropped).
 */
static int vmpc_kprobe_attach(void)
{
	unsigned long addr[VMPC_MAX_TARGETS];
	struct vmpc_kprobes *kps;
	unsigned int i;
	int err;

	vmpc_kprobe_refused_shared = false;
	err = vmpc_kprobe_check_alone(addr);
	if (err)
		return err;
	kps = vmpc_kprobes;
	if (!kps) {
		kps = kzalloc(sizeof(*kps), GFP_KERNEL);
		if (!kps)
			return -ENOMEM;
		WRITE_ONCE(vmpc_kprobes, kps);
	}
	for (i = 0; i < vmpc_kprobe_nr_resolved; i++) {
		vmpc_kprobe_init(&kps->target[i], addr[i]);
		kps->target[i].flags = KPROBE_FLAG_DISABLED;
		kps->ptrs[i] = &kps->target[i];
	}
	/* register_kprobes() unregisters the ones it did on failure. */
	err = register_kprobes(kps->ptrs, vmpc_kprobe_nr_resolved);
	if (err) {
		vmpc_kprobe_leave_lost(kps, false);
		return err;
	}
	for (i = 0; i < vmpc_kprobe_nr_resolved; i++) {
		err = enable_kprobe(kps->ptrs[i]);
		if (err)
			goto err_unregister;
	}
	err = vmpc_test_fail_attach_late("kprobe");
	if (err)
		goto err_unregister;
	vmpc_kprobe_on_ftrace = false;
	for (i = 0; i < vmpc_kprobe_nr_resolved; i++)
		if (kps->target[i].flags & KPROBE_FLAG_FTRACE)
			vmpc_kprobe_on_ftrace = true;
	if (!vmpc_kprobe_on_ftrace)
		return 0;
	memset(&kps->canary, 0, sizeof(kps->canary));
	kps->canary.addr = (kprobe_opcode_t *)vmpc_kprobe_canary;
	err = register_kprobe(&kps->canary);
	if (!err)
		return 0;
	pr_err("kprobe: cannot register the probe that shows whether kprobes are armed: %d\n",
	       err);
err_unregister:
	vmpc_kprobe_unregister_all(kps, false);
	return err;
}

static int vmpc_kprobe_detach(void)
{
	vmpc_kprobe_unregister_all(vmpc_kprobes, vmpc_kprobe_on_ftrace);
	return 0;
}

/* Nothing is registered: the probes go with the module. */
static void vmpc_kprobe_release(void)
{
	kfree(vmpc_kprobes);
	vmpc_kprobes = NULL;
	vmpc_kprobe_nr_resolved = 0;
}

/* A breakpoint kprobe is live while its address no longer holds the original. */
static bool vmpc_kprobe_live(const struct kprobe *p)
{
	kprobe_opcode_t insn;

	if (p->flags & KPROBE_FLAG_DISABLED)
		return false;
	if (p->flags & KPROBE_FLAG_FTRACE)
		return vmpc_ftrace_site_live((unsigned long)p->addr);
	if (copy_from_kernel_nofault(&insn, p->addr, sizeof(insn)))
		return true;
	return insn != p->opcode;
}

/*
 * Without vmpc_lock (state.c): the probes read are either this attach's
 * or ones left to the kernel, never freed memory.
 */
static bool vmpc_kprobe_armed(void)
{
	const struct vmpc_kprobes *kps = READ_ONCE(vmpc_kprobes);
	unsigned int i;

	if (!kps)
		return false;
	for (i = 0; i < vmpc_kprobe_nr_resolved; i++)
		if (!vmpc_kprobe_live(&kps->target[i]))
			return false;
	return !READ_ONCE(vmpc_kprobe_on_ftrace) ||
	       vmpc_kprobe_live(&kps->canary);
}

static const char *vmpc_kprobe_busy_owner(void)
{
	return vmpc_kprobe_refused_shared ? VMPC_OWNER_KPROBE :
					    VMPC_OWNER_FTRACE_SITE;
}

const struct vmpc_backend vmpc_kprobe_backend = {
	.name = "kprobe",
	.resolve = vmpc_kprobe_resolve,
	.attach = vmpc_kprobe_attach,
	.detach = vmpc_kprobe_detach,
	.release = vmpc_kprobe_release,
	.armed = vmpc_kprobe_armed,
	.busy_owner = vmpc_kprobe_busy_owner,
};
