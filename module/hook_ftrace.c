// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace backend: an IPMODIFY ftrace_ops on the targets' fentry sites whose
 * callback points the saved instruction pointer at vmpc_stub, so ftrace's
 * trampoline returns into the stub instead of the traced function. Being an
 * IPMODIFY user, registration fails with -EBUSY where another one (a
 * livepatch) already owns a target, rather than silently overriding it.
 */
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "compat.h"
#include "vmpressure_ctl.h"

#ifdef VMPC_HAVE_FTRACE_REGS
static notrace void vmpc_ftrace_redirect(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct ftrace_regs *fregs)
{
	vmpc_ftrace_regs_set_ip(fregs, (unsigned long)vmpc_stub);
}
#else
static notrace void vmpc_ftrace_redirect(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *ops,
					 struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)vmpc_stub);
}
#endif

static struct ftrace_ops vmpc_ftrace_ops = {
	.func = vmpc_ftrace_redirect,
	.flags = VMPC_FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 VMPC_FTRACE_OPS_FL_RECURSION,
};

static unsigned int vmpc_ftrace_nr_resolved;

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
	int err;

	err = vmpc_ftrace_filter_add(&vmpc_ftrace_ops, symbol,
				     vmpc_ftrace_nr_resolved == 0);
	if (!err)
		vmpc_ftrace_nr_resolved++;
	return err;
}

static int vmpc_ftrace_attach(void)
{
	return register_ftrace_function(&vmpc_ftrace_ops);
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

const struct vmpc_backend vmpc_ftrace_backend = {
	.name = "ftrace",
	.resolve = vmpc_ftrace_resolve,
	.attach = vmpc_ftrace_attach,
	.detach = vmpc_ftrace_detach,
	.release = vmpc_ftrace_release,
};
