// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe backend, for kernels where the ftrace backend is unavailable: a
 * kprobe on each target's entry whose pre-handler points the saved
 * instruction pointer at vmpc_stub and returns 1 so kprobes neither
 * single-steps nor restores it. In resident mode it returns 0 without
 * touching anything while vmpc_pass_through says stock.
 *
 * On the ftrace call site (KPROBES_ON_FTRACE) the kprobe rides on kprobes'
 * own ftrace_ops, which has no FTRACE_OPS_FL_PERMANENT: armed() reads the
 * call sites, as it does for breakpoint kprobes that debugfs'
 * kprobes/enabled can disarm.
 */
#include <linux/compiler.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "testing.h"
#include "vmpressure_ctl.h"

static struct kprobe vmpc_kprobe[VMPC_MAX_TARGETS];
static struct kprobe *vmpc_kprobe_ptrs[VMPC_MAX_TARGETS];
static const char *vmpc_kprobe_symbol[VMPC_MAX_TARGETS];
static unsigned int vmpc_kprobe_nr_resolved;

static int vmpc_kprobe_redirect(struct kprobe *p, struct pt_regs *regs)
{
	/* 0: kprobes runs the probed instruction and the function goes on. */
	if (READ_ONCE(vmpc_pass_through))
		return 0;
	if (vmpc_test_count_only()) {
		vmpc_stub();
		return 0;
	}
	instruction_pointer_set(regs, (unsigned long)vmpc_stub);
	return 1;
}

/*
 * Never runs, because the pre-handler returns 1. Its presence makes
 * kprobes-on-ftrace arm the probe through its IPMODIFY ftrace_ops, so a
 * livepatch on a target makes registration fail with -EBUSY (and a later
 * livepatch fails likewise) instead of both fighting over the same
 * instruction pointer.
 */
static void vmpc_kprobe_claim_ipmodify(struct kprobe *p, struct pt_regs *regs,
				       unsigned long flags)
{
}

/* A kprobe cannot be registered twice without being reinitialised. */
static void vmpc_kprobe_init(struct kprobe *p, const char *symbol)
{
	memset(p, 0, sizeof(*p));
	p->symbol_name = symbol;
	p->pre_handler = vmpc_kprobe_redirect;
	p->post_handler = vmpc_kprobe_claim_ipmodify;
}

/* A disabled kprobe is looked up and checked but patches no code. */
static int vmpc_kprobe_resolve(const char *symbol)
{
	struct kprobe *p = &vmpc_kprobe[vmpc_kprobe_nr_resolved];
	int err;

	if (!IS_ENABLED(CONFIG_KPROBES))
		return -EOPNOTSUPP;
	if (vmpc_kprobe_nr_resolved == VMPC_MAX_TARGETS)
		return -ENOSPC;

	vmpc_kprobe_init(p, symbol);
	p->flags = KPROBE_FLAG_DISABLED;
	err = register_kprobe(p);
	if (err)
		return err;
	unregister_kprobe(p);

	vmpc_kprobe_symbol[vmpc_kprobe_nr_resolved++] = symbol;
	return 0;
}

/*
 * Registered disabled, then armed one by one: enable_kprobe() reports a
 * failure to arm (-EBUSY from an IPMODIFY owner), which registering an
 * enabled kprobe can lose (Debian's 7.3 returns 0 with the probe dropped).
 */
static int vmpc_kprobe_attach(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < vmpc_kprobe_nr_resolved; i++) {
		vmpc_kprobe_init(&vmpc_kprobe[i], vmpc_kprobe_symbol[i]);
		vmpc_kprobe[i].flags = KPROBE_FLAG_DISABLED;
		vmpc_kprobe_ptrs[i] = &vmpc_kprobe[i];
	}
	/* register_kprobes() unregisters the ones it did on failure. */
	err = register_kprobes(vmpc_kprobe_ptrs, vmpc_kprobe_nr_resolved);
	if (err)
		return err;
	for (i = 0; i < vmpc_kprobe_nr_resolved; i++) {
		err = enable_kprobe(vmpc_kprobe_ptrs[i]);
		if (err) {
			unregister_kprobes(vmpc_kprobe_ptrs,
					   vmpc_kprobe_nr_resolved);
			return err;
		}
	}
	return 0;
}

static int vmpc_kprobe_detach(void)
{
	unregister_kprobes(vmpc_kprobe_ptrs, vmpc_kprobe_nr_resolved);
	return 0;
}

static void vmpc_kprobe_release(void)
{
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

static bool vmpc_kprobe_armed(void)
{
	unsigned int i;

	for (i = 0; i < vmpc_kprobe_nr_resolved; i++)
		if (!vmpc_kprobe_live(&vmpc_kprobe[i]))
			return false;
	return true;
}

static const char *vmpc_kprobe_busy_owner(void)
{
	return VMPC_OWNER_FTRACE_SITE;
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
