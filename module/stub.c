// SPDX-License-Identifier: GPL-2.0
/*
 * The function every hook redirects to: it runs with the hooked function's
 * arguments and return address, so returning from it returns straight to
 * the hooked function's caller. The original is never called.
 */
#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>

#include "vmpressure_ctl.h"

static DEFINE_PER_CPU(unsigned long, vmpc_skipped_count);

/*
 * notrace: reached from inside ftrace's own redirect; tracing it gains
 * nothing. Not probed either: the kprobe backend's pre-handler calls it
 * with count_only.
 */
notrace void vmpc_stub(void)
{
	this_cpu_inc(vmpc_skipped_count);
}

NOKPROBE_SYMBOL(vmpc_stub);

unsigned long vmpc_skipped(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vmpc_skipped_count, cpu);
	return sum;
}
