// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: while loaded, a kprobe on the symbol given as symbol= prints
 * the kernel's stack trace (stack_trace_save(), the unwinder's reliable
 * frames only) the first time it is hit, so a test can see how far the
 * unwinder gets from inside a hook: through reclaim to the task's entry, or
 * not. Tracefs kprobe events refuse the notrace stub and assembly labels;
 * a kprobe of our own does not. No "Call Trace" header: the harness fails
 * a lane whose console shows one.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/stacktrace.h>

#define VMPC_TEST_MAX_FRAMES 64

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "Where to put the kprobe");

static atomic_t vmpc_test_hits;
/* Only the first hit prints (hits == 1), so one buffer will do. */
static unsigned long vmpc_test_frames[VMPC_TEST_MAX_FRAMES];

static int vmpc_test_dump(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned int nr;

	if (atomic_inc_return(&vmpc_test_hits) != 1)
		return 0;
	nr = stack_trace_save(vmpc_test_frames, VMPC_TEST_MAX_FRAMES, 0);
	pr_info("vmpc_test_unwind: stack at %pS\n", kp->addr);
	stack_trace_print(vmpc_test_frames, nr, 1);
	pr_info("vmpc_test_unwind: end of stack\n");
	return 0;
}

/* A post handler keeps the probe a breakpoint: no jump optimisation. */
static void vmpc_test_post(struct kprobe *kp, struct pt_regs *regs,
			   unsigned long flags)
{
}

static struct kprobe vmpc_test_kprobe = {
	.pre_handler = vmpc_test_dump,
	.post_handler = vmpc_test_post,
};

static int __init vmpc_test_unwind_init(void)
{
	if (!symbol)
		return -EINVAL;
	vmpc_test_kprobe.symbol_name = symbol;
	return register_kprobe(&vmpc_test_kprobe);
}

static void __exit vmpc_test_unwind_exit(void)
{
	unregister_kprobe(&vmpc_test_kprobe);
}

module_init(vmpc_test_unwind_init);
module_exit(vmpc_test_unwind_exit);
MODULE_DESCRIPTION("Test-only: stack traces from a kprobe on vmpressure_ctl's hook path");
MODULE_LICENSE("GPL");
