// SPDX-License-Identifier: GPL-2.0
/*
 * The function every hook redirects to: it runs with the hooked function's
 * arguments and return address, so returning from it returns straight to
 * the hooked function's caller. The original is never called. With
 * count_skipped=0 the hooks take the empty one instead.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>

#include "vmpressure_ctl.h"

DEFINE_PER_CPU(unsigned long, vmpc_skipped_count);

#ifdef VMPC_DIRECT_JMP
#include <linux/objtool.h>

/* Its address is taken: objtool would want an ENDBR (vmpressure_ctl.h). */
ANNOTATE_NOENDBR_SYM(vmpc_stub);
ANNOTATE_NOENDBR_SYM(vmpc_stub_uncounted);
#endif

/*
 * notrace: reached from inside ftrace's own redirect; tracing it gains
 * nothing. It runs after a hook returned, never inside a kprobe handler,
 * so a kprobe may sit on it (the guest tests unwind the stack from one).
 */
VMPC_STUB_ENTRY notrace void vmpc_stub(void)
{
	vmpc_count_skipped();
}

/* count_skipped=0: the return alone. */
VMPC_STUB_ENTRY notrace void vmpc_stub_uncounted(void)
{
}

unsigned long vmpc_skipped(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vmpc_skipped_count, cpu);
	return sum;
}
