// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace backend: an IPMODIFY ftrace_ops on the targets' fentry sites whose
 * callback points the saved instruction pointer at vmpc_stub, so ftrace's
 * trampoline returns into the stub instead of the traced function. In
 * resident mode the callback leaves the instruction pointer alone while
 * vmpc_pass_through says stock, and the traced function runs.
 *
 * Being an IPMODIFY user, registration fails with -EBUSY where another one
 * (a livepatch) already owns a target, rather than silently overriding it;
 * it shares a target with a BPF trampoline, which the kernel tells to
 * return through the changed instruction pointer. FTRACE_OPS_FL_PERMANENT,
 * as livepatch sets it, makes kernel.ftrace_enabled=0 fail with -EBUSY
 * while the hook is registered instead of silently turning it into a NOP.
 *
 * What a short-circuited call costs is mostly what ftrace does around the
 * callback, so the ops asks for as little as compat.h finds enough: full
 * pt_regs only where ftrace_regs cannot carry a changed instruction
 * pointer, and no recursion guard for a callback that cannot recurse.
 */
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "compat.h"
#include "testing.h"
#include "vmpressure_ctl.h"

#ifdef VMPC_HAVE_FTRACE_REGS
static notrace void vmpc_ftrace_redirect(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	if (READ_ONCE(vmpc_pass_through))
		return;
	if (vmpc_test_count_only()) {
		vmpc_count_skipped();
		return;
	}
	vmpc_ftrace_regs_set_ip(fregs, vmpc_stub_addr);
}
#else
static notrace void vmpc_ftrace_redirect(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct pt_regs *regs)
{
	if (READ_ONCE(vmpc_pass_through))
		return;
	if (vmpc_test_count_only()) {
		vmpc_count_skipped();
		return;
	}
	instruction_pointer_set(regs, vmpc_stub_addr);
}
#endif

#define VMPC_FTRACE_OPS_FLAGS                                      \
	(VMPC_FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |  \
	 VMPC_FTRACE_OPS_FL_UNGUARDED | FTRACE_OPS_FL_PERMANENT)

static struct ftrace_ops vmpc_ftrace_ops = {
	.func = vmpc_ftrace_redirect,
	.flags = VMPC_FTRACE_OPS_FLAGS,
};

static struct vmpc_site vmpc_ftrace_sites[VMPC_MAX_TARGETS];
static unsigned int vmpc_ftrace_nr_resolved;
static bool vmpc_ftrace_refused_late;

/*
 * Adds symbol to the filter of ops (replacing it when reset). That needs
 * no registration, so targets are known while nothing is registered.
 */
int vmpc_ftrace_filter_add(struct ftrace_ops *ops, const char *symbol,
			   bool reset)
{
	char pattern[KSYM_NAME_LEN];
	int err;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS) &&
	    !IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
		return -EOPNOTSUPP;

	/* ftrace_set_filter() parses the glob in place: hand it a copy. */
	if (strscpy(pattern, symbol, sizeof(pattern)) < 0)
		return -ENAMETOOLONG;
	err = ftrace_set_filter(ops, pattern, strlen(pattern), reset);
	/* -EINVAL here means no traceable function has that name. */
	return err == -EINVAL ? -ENOENT : err;
}

static int vmpc_ftrace_resolve(const char *symbol)
{
	unsigned int n = vmpc_ftrace_nr_resolved;
	int err;

	if (n == VMPC_MAX_TARGETS)
		return -ENOSPC;
	err = vmpc_ftrace_filter_add(&vmpc_ftrace_ops, symbol, n == 0);
	if (err)
		return err;
	vmpc_site_find(symbol, &vmpc_ftrace_sites[n]);
	vmpc_ftrace_nr_resolved++;
	return 0;
}

static int vmpc_ftrace_attach(void)
{
	int err;

	/*
	 * Start from our own flags: the kernel marks the ops DYNAMIC only
	 * once it is past the checks that come before the IPMODIFY one.
	 */
	vmpc_ftrace_ops.flags = VMPC_FTRACE_OPS_FLAGS |
				(vmpc_ftrace_ops.flags & FTRACE_OPS_FL_INITIALIZED);
	err = register_ftrace_function(&vmpc_ftrace_ops);
	vmpc_ftrace_refused_late = err &&
				   (vmpc_ftrace_ops.flags & FTRACE_OPS_FL_DYNAMIC);
	return err;
}

static int vmpc_ftrace_detach(void)
{
	return unregister_ftrace_function(&vmpc_ftrace_ops);
}

static void vmpc_ftrace_release(void)
{
	if (vmpc_ftrace_nr_resolved)
		vmpc_ftrace_free_filter(&vmpc_ftrace_ops);
	vmpc_ftrace_nr_resolved = 0;
}

static bool vmpc_ftrace_armed(void)
{
	return vmpc_sites_live(vmpc_ftrace_sites, vmpc_ftrace_nr_resolved);
}

static const char *vmpc_ftrace_busy_owner(void)
{
	return vmpc_ftrace_refused_late ? VMPC_OWNER_IPMODIFY :
					  VMPC_OWNER_UNSHARED_OR_OFF;
}

const struct vmpc_backend vmpc_ftrace_backend = {
	.name = "ftrace",
	.resolve = vmpc_ftrace_resolve,
	.attach = vmpc_ftrace_attach,
	.detach = vmpc_ftrace_detach,
	.release = vmpc_ftrace_release,
	.armed = vmpc_ftrace_armed,
	.busy_owner = vmpc_ftrace_busy_owner,
};
