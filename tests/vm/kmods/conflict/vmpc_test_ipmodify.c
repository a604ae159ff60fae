// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: holds vmpressure() with an IPMODIFY ftrace_ops, as a livepatch
 * or a kprobe with a post handler does, while loaded. Its callback only
 * counts the calls (parameter calls) and changes nothing, so vmpressure()
 * keeps running while this module alone holds it.
 */
#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static atomic_long_t vmpc_test_calls;

#ifdef VMPC_TEST_FTRACE_REGS
static void notrace vmpc_test_count(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
#else
static void notrace vmpc_test_count(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops, struct pt_regs *regs)
#endif
{
	atomic_long_inc(&vmpc_test_calls);
}

static struct ftrace_ops vmpc_test_ops = {
	.func = vmpc_test_count,
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS,
#else
	.flags = FTRACE_OPS_FL_IPMODIFY,
#endif
};

static int vmpc_test_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&vmpc_test_calls));
}

static const struct kernel_param_ops vmpc_test_calls_ops = {
	.get = vmpc_test_calls_get,
};

module_param_cb(calls, &vmpc_test_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "Calls of vmpressure() seen since load");

static int __init vmpc_test_init(void)
{
	unsigned char name[] = "vmpressure";
	int err;

	err = ftrace_set_filter(&vmpc_test_ops, name, sizeof(name) - 1, 1);
	if (err)
		return err;
	err = register_ftrace_function(&vmpc_test_ops);
	if (err) {
		pr_err("vmpc_test_ipmodify: cannot hold vmpressure: %d\n", err);
		ftrace_set_filter(&vmpc_test_ops, NULL, 0, 1);
	}
	return err;
}

static void __exit vmpc_test_exit(void)
{
	unregister_ftrace_function(&vmpc_test_ops);
	ftrace_set_filter(&vmpc_test_ops, NULL, 0, 1);
}

module_init(vmpc_test_init);
module_exit(vmpc_test_exit);

MODULE_DESCRIPTION("Test-only IPMODIFY ftrace_ops holder of vmpressure()");
MODULE_LICENSE("GPL");
