// SPDX-License-Identifier: GPL-2.0
/*
 * vmpressure_bench: test-only module for `make bench` that measures the
 * cost of one vmpressure() call, stock or short-circuited by vmpressure_ctl,
 * against an empty noinline function called the same way.
 *
 * vmpressure() is not exported, so it is called through the address a
 * kprobe resolves. That is only safe where indirect calls to arbitrary
 * kernel text are not policed: the module refuses IBT and CFI kernels.
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

#define VMPB_MAX_REPEATS 101
/* Keeps each interrupts-off run well below the lockup detectors' limits. */
#define VMPB_MAX_CALLS 1000000
/* ns are reported with this many fractional digits */
#define VMPB_SCALE 1000

struct mem_cgroup;

typedef void (*vmpb_fn)(gfp_t gfp, struct mem_cgroup *memcg, bool tree,
			unsigned long scanned, unsigned long reclaimed);

static unsigned int calls = 10000;
module_param(calls, uint, 0644);
MODULE_PARM_DESC(calls, "Calls per timed run, 1..1000000 (default 10000)");

static unsigned int repeats = 21;
module_param(repeats, uint, 0644);
MODULE_PARM_DESC(repeats, "Timed runs per function and read, 1..101 (default 21)");

/* Read with READ_ONCE() so that neither call can be devirtualised. */
static vmpb_fn vmpb_vmpressure;
static vmpb_fn vmpb_floor;
static struct dentry *vmpb_dir;

/* Serialises readers: the sample arrays are shared. */
static DEFINE_MUTEX(vmpb_lock);
static u64 vmpb_floor_ns[VMPB_MAX_REPEATS];
static u64 vmpb_target_ns[VMPB_MAX_REPEATS];

/* The floor: what a call costs when the callee does nothing at all. */
static noinline void vmpb_empty(gfp_t gfp, struct mem_cgroup *memcg, bool tree,
				unsigned long scanned, unsigned long reclaimed)
{
}

/*
 * Times n calls of fn with interrupts off, so that neither preemption nor
 * interrupt handlers land inside a run. The arguments make the stock
 * vmpressure() return early without touching anything: tree = false
 * returns at once on cgroup v1, gfp = 0 right after on the default
 * hierarchy, where a NULL memcg stands for the root.
 */
static u64 vmpb_time(vmpb_fn fn, unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	u64 start, end;

	local_irq_save(flags);
	start = ktime_get_ns();
	for (i = 0; i < n; i++)
		fn(0, NULL, false, 0, 0);
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
	vmpb_fn floor = READ_ONCE(vmpb_floor);
	vmpb_fn target = READ_ONCE(vmpb_vmpressure);
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
 * Accepted only when it is the symbol's first byte: anything else (an
 * ENDBR skipped, a wrong symbol) is not something to call.
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
	if (strncmp(where, symbol, len) || strncmp(where + len, "+0x0/", 5)) {
		pr_err("%s resolved to %s, not to its start\n", symbol, where);
		return NULL;
	}
	return addr;
}

static int __init vmpb_init(void)
{
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) || IS_ENABLED(CONFIG_CFI_CLANG) ||
	    IS_ENABLED(CONFIG_ARM64_BTI_KERNEL)) {
		pr_err("refusing: this kernel polices indirect calls (IBT/CFI/BTI)\n");
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
