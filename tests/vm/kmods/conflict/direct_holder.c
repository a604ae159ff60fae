// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: holds vmpressure() with an ftrace direct call, as a BPF
 * trampoline does, while loaded. Like BPF's, its ops agree to share the
 * function with an IPMODIFY ftrace_ops (ftrace then enters the trampoline
 * with the return address the IPMODIFY user chose); the trampoline only
 * returns, so vmpressure() keeps running while this module alone holds it.
 */
#include <linux/ftrace.h>
#include <linux/module.h>

void vmpc_test_direct_tramp(void);

#if defined(VMPC_TEST_OPS_FUNC_IP)
static int vmpc_test_share(struct ftrace_ops *ops, unsigned long ip,
			   enum ftrace_ops_cmd cmd)
{
	return 0;
}
#elif defined(VMPC_TEST_OPS_FUNC)
static int vmpc_test_share(struct ftrace_ops *ops, enum ftrace_ops_cmd cmd)
{
	return 0;
}
#endif

static struct ftrace_ops vmpc_test_ops = {
#ifdef VMPC_TEST_OPS_FUNC
	.ops_func = vmpc_test_share,
#endif
};

/* 6.5 renamed register_ftrace_direct_multi() to register_ftrace_direct(). */
static int vmpc_test_register(void)
{
	unsigned long addr = (unsigned long)vmpc_test_direct_tramp;

#ifdef VMPC_TEST_DIRECT_RENAMED
	return register_ftrace_direct(&vmpc_test_ops, addr);
#else
	return register_ftrace_direct_multi(&vmpc_test_ops, addr);
#endif
}

static void vmpc_test_unregister(void)
{
	unsigned long addr = (unsigned long)vmpc_test_direct_tramp;

#ifdef VMPC_TEST_DIRECT_RENAMED
	unregister_ftrace_direct(&vmpc_test_ops, addr, false);
#else
	unregister_ftrace_direct_multi(&vmpc_test_ops, addr);
#endif
}

static int __init vmpc_test_init(void)
{
	unsigned char name[] = "vmpressure";
	int err;

	err = ftrace_set_filter(&vmpc_test_ops, name, sizeof(name) - 1, 1);
	if (err)
		return err;
	err = vmpc_test_register();
	if (err) {
		pr_err("vmpc_test_direct: cannot hold vmpressure: %d\n", err);
		ftrace_free_filter(&vmpc_test_ops);
	}
	return err;
}

static void __exit vmpc_test_exit(void)
{
	vmpc_test_unregister();
	ftrace_free_filter(&vmpc_test_ops);
}

module_init(vmpc_test_init);
module_exit(vmpc_test_exit);

MODULE_DESCRIPTION("Test-only ftrace direct-call holder of vmpressure()");
MODULE_LICENSE("GPL");
