// SPDX-License-Identifier: GPL-2.0
/*
 * vmpressure_bench: test-only module for `make bench` that measures the
 * cost of one vmpressure() call, stock or short-circuited by vmpressure_ctl,
 * against an empty noinline function called the same way.
 *
 * vmpressure() is not exported, so it is called by the address a kprobe
 * resolves. On x86-64 vmpb_call (call_by_ret.S) enters it by a RET, which
 * IBT allows; elsewhere an indirect call does, which is only safe where
 * indirect calls to arbitrary kernel text are not policed: there the
 * module refuses BTI and CFI kernels. Both functions are called with six
 * zero arguments, whatever vmpressure()'s signature (7.2 added an order).
 *
 * Reading /sys/kernel/debug/vmpressure_bench/cost runs the measurement and
 * prints a "# calls N repeats R, ..." line, then "NAME MEDIAN MIN MAX" lines
 * in ns per call for "floor" and "vmpressure": the median, minimum and
 * maximum over R timed runs of N calls each, the two functions alternating
 * run by run after one untimed run of each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "call_by_ret.h"

#define VMPB_MAX_REPEATS 101
/* Keeps each interrupts-off run well below the lockup detectors' limits. */
#define VMPB_MAX_CALLS 1000000
/* ns are reported with this many fractional digits */
#define VMPB_SCALE 1000

/* Six argument registers: as many as any vmpressure() takes, all zero. */
typedef void (*vmpb_fn)(unsigned long a1, unsigned long a2, unsigned long a3,
			unsigned long a4, unsigned long a5, unsigned long a6);

void *vmpb_callee;

#ifndef CONFIG_X86_64
/* No RET-based call here: an indirect one, refused under BTI or CFI. */
void vmpb_call(unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long a5, unsigned long a6)
{
	((vmpb_fn)READ_ONCE(vmpb_callee))(a1, a2, a3, a4, a5, a6);
}
#endif

static unsigned int calls = 10000;
module_param(calls, uint, 0644);
MODULE_PARM_DESC(calls, "Calls per timed run, 1..1000000 (default 10000)");

static unsigned int repeats = 21;
module_param(repeats, uint, 0644);
MODULE_PARM_DESC(repeats, "Timed runs per function and read, 1..101 (default 21)");

static void *vmpb_vmpressure;
static void *vmpb_floor;
static struct dentry *vmpb_dir;

/* Serialises readers: the sample arrays are shared. */
static DEFINE_MUTEX(vmpb_lock);
static u64 vmpb_floor_ns[VMPB_MAX_REPEATS];
static u64 vmpb_target_ns[VMPB_MAX_REPEATS];

/* The floor: what a call costs when the callee does nothing at all. */
static noinline void vmpb_empty(unsigned long a1, unsigned long a2,
				unsigned long a3, unsigned long a4,
				unsigned long a5, unsigned long a6)
{
}

/*
 * Times n calls of fn with interrupts off, so that neither preemption nor
 * interrupt handlers land inside a run. Zero arguments make the stock
 * vmpressure() return early without touching anything: tree = false
 * returns at once on cgroup v1, gfp = 0 right after on the default
 * hierarchy, where a NULL memcg stands for the root.
 */
static u64 vmpb_time(void *fn, unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	u64 start, end;

	WRITE_ONCE(vmpb_callee, fn);
	local_irq_save(flags);
	start = ktime_get_ns();
	for (i = 0; i < n; i++)
		vmpb_call(0, 0, 0, 0, 0, 0);
	end = ktime_get_ns();
	local_irq_restore(flags);
	return end - start;
}

static int vmpb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* One "NAME MEDIAN MIN MAX" line in ns per call; sorts samples. */
static void vmpb_report(struct seq_file *m, const char *name, u64 *samples,
			unsigned int n, unsigned int per_sample)
{
	u64 v[3];
	unsigned int i;

	sort(samples, n, sizeof(*samples), vmpb_cmp_u64, NULL);
	v[0] = samples[n / 2];
	v[1] = samples[0];
	v[2] = samples[n - 1];
	seq_printf(m, "%s", name);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		u64 scaled = div_u64(v[i] * VMPB_SCALE, per_sample);

		seq_printf(m, " %llu.%03llu", div_u64(scaled, VMPB_SCALE),
			   scaled % VMPB_SCALE);
	}
	seq_putc(m, '\n');
}

static int vmpb_cost_show(struct seq_file *m, void *unused)
{
	unsigned int n = READ_ONCE(repeats), per_run = READ_ONCE(calls);
	void *floor = vmpb_floor;
	void *target = vmpb_vmpressure;
	unsigned int i;

	if (!n || n > VMPB_MAX_REPEATS || !per_run || per_run > VMPB_MAX_CALLS)
		return -EINVAL;

	mutex_lock(&vmpb_lock);
	/* Untimed: fault in both paths' code and data first. */
	vmpb_time(floor, per_run);
	vmpb_time(target, per_run);
	for (i = 0; i < n; i++) {
		vmpb_floor_ns[i] = vmpb_time(floor, per_run);
		vmpb_target_ns[i] = vmpb_time(target, per_run);
		cond_resched();
	}
	seq_printf(m, "# calls %u repeats %u, ns per call: median min max\n",
		   per_run, n);
	vmpb_report(m, "floor", vmpb_floor_ns, n, per_run);
	vmpb_report(m, "vmpressure", vmpb_target_ns, n, per_run);
	mutex_unlock(&vmpb_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vmpb_cost);

/*
 * The address a kprobe on the symbol resolves to, without arming it.
 * Accepted only at the symbol's first byte, or 4 bytes in on IBT kernels,
 * where kprobes skip the function's ENDBR (unless it was sealed): anything
 * else (a wrong symbol) is not something to call.
 */
static void * __init vmpb_resolve(const char *symbol)
{
	static char where[KSYM_SYMBOL_LEN];
	struct kprobe kp = {
		.symbol_name = symbol,
		.flags = KPROBE_FLAG_DISABLED,
	};
	size_t len = strlen(symbol);
	void *addr;
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_err("cannot resolve %s through a kprobe: %d\n", symbol, err);
		return NULL;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);

	sprint_symbol(where, (unsigned long)addr);
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && !strncmp(where, symbol, len) &&
	    !strncmp(where + len, "+0x4/", 5)) {
		addr -= 4;	/* the length of ENDBR64 */
		sprint_symbol(where, (unsigned long)addr);
	}
	if (strncmp(where, symbol, len) || strncmp(where + len, "+0x0/", 5)) {
		pr_err("%s resolved to %s, not to its start\n", symbol, where);
		return NULL;
	}
	return addr;
}

static int __init vmpb_init(void)
{
	if (!IS_ENABLED(CONFIG_X86_64) &&
	    (IS_ENABLED(CONFIG_CFI_CLANG) || IS_ENABLED(CONFIG_ARM64_BTI_KERNEL))) {
		pr_err("refusing: this kernel polices indirect calls (CFI/BTI)\n");
		return -EOPNOTSUPP;
	}
	if (!IS_ENABLED(CONFIG_KPROBES)) {
		pr_err("refusing: no kprobes to resolve vmpressure with\n");
		return -EOPNOTSUPP;
	}
	vmpb_vmpressure = vmpb_resolve("vmpressure");
	if (!vmpb_vmpressure)
		return -ENOENT;
	vmpb_floor = vmpb_empty;

	vmpb_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("cost", 0400, vmpb_dir, NULL, &vmpb_cost_fops);
	pr_info("timing vmpressure at %pS\n", vmpb_vmpressure);
	return 0;
}

static void __exit vmpb_exit(void)
{
	debugfs_remove_recursive(vmpb_dir);
}

module_init(vmpb_init);
module_exit(vmpb_exit);
MODULE_DESCRIPTION("Test-only: time vmpressure() calls against an empty function");
MODULE_LICENSE("GPL");
