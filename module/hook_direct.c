// SPDX-License-Identifier: GPL-2.0
/*
 * direct backend: an ftrace direct call from the targets' fentry sites to
 * vmpc_direct_tramp, which drops the return address into the target and
 * jumps to vmpc_stub. No ftrace callback runs and no registers are saved,
 * which makes it the cheapest backend. A direct ops cannot share a target
 * with an IPMODIFY user (a livepatch): either registration gets -EBUSY.
 */
#include <linux/ftrace.h>

#include "compat.h"
#include "vmpressure_ctl.h"

#ifdef VMPC_HAVE_DIRECT

/* register_ftrace_direct*() fills in func, flags and trampoline. */
static struct ftrace_ops vmpc_direct_ops;
static unsigned int vmpc_direct_nr_resolved;

static int vmpc_direct_resolve(const char *symbol)
{
	int err;

	err = vmpc_ftrace_filter_add(&vmpc_direct_ops, symbol,
				     vmpc_direct_nr_resolved == 0);
	if (!err)
		vmpc_direct_nr_resolved++;
	return err;
}

static int vmpc_direct_attach(void)
{
	return vmpc_register_ftrace_direct(&vmpc_direct_ops,
					   (unsigned long)vmpc_direct_tramp);
}

static int vmpc_direct_detach(void)
{
	return vmpc_unregister_ftrace_direct(&vmpc_direct_ops,
					     (unsigned long)vmpc_direct_tramp);
}

static void vmpc_direct_release(void)
{
	if (vmpc_direct_nr_resolved)
		vmpc_ftrace_free_filter(&vmpc_direct_ops);
	vmpc_direct_nr_resolved = 0;
}

const struct vmpc_backend vmpc_direct_backend = {
	.name = "direct",
	.resolve = vmpc_direct_resolve,
	.attach = vmpc_direct_attach,
	.detach = vmpc_direct_detach,
	.release = vmpc_direct_release,
};

#endif /* VMPC_HAVE_DIRECT */
