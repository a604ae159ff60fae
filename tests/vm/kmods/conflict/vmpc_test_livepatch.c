// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only livepatch: replaces vmpressure() with a function that only
 * counts its calls (parameter calls), so whether the livepatch or
 * vmpressure_ctl owns vmpressure() shows in which of the two counts.
 * Loading it taints the kernel with K (TAINT_LIVEPATCH).
 */
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static atomic_long_t vmpc_test_calls;

/* vmpressure()'s arguments up to 7.1; later kernels add one, unused here. */
static void vmpc_test_vmpressure(gfp_t gfp, struct mem_cgroup *memcg,
				 bool tree, unsigned long scanned,
				 unsigned long reclaimed)
{
	atomic_long_inc(&vmpc_test_calls);
}

static int vmpc_test_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&vmpc_test_calls));
}

static const struct kernel_param_ops vmpc_test_calls_ops = {
	.get = vmpc_test_calls_get,
};

module_param_cb(calls, &vmpc_test_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "Calls of the replacement vmpressure() since load");

static struct klp_func vmpc_test_funcs[] = {
	{
		.old_name = "vmpressure",
		.new_func = vmpc_test_vmpressure,
	},
	{}
};

static struct klp_object vmpc_test_objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = vmpc_test_funcs,
	},
	{}
};

static struct klp_patch vmpc_test_patch = {
	.mod = THIS_MODULE,
	.objs = vmpc_test_objs,
};

static int __init vmpc_test_init(void)
{
	return klp_enable_patch(&vmpc_test_patch);
}

static void __exit vmpc_test_exit(void)
{
}

module_init(vmpc_test_init);
module_exit(vmpc_test_exit);

MODULE_DESCRIPTION("Test-only livepatch of vmpressure()");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
