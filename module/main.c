// SPDX-License-Identifier: GPL-2.0
/*
 * vmpressure_ctl: switch mm/vmpressure.c's vmpressure() (and
 * vmpressure_prio()) off and on at runtime on a stock kernel.
 *
 * /sys/kernel/vmpressure_ctl/enabled is 1 for stock behaviour, with nothing
 * registered, and 0 for short-circuited, with every target hooked so that
 * calls go to vmpc_stub instead. With resident=1 every target stays hooked
 * from load to unload and the hooks read the knob on each call. This file
 * holds the module parameters and the sysfs attributes; state.c does the
 * transitions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "vmpressure_ctl.h"

/* Not shown under /sys/module: it would go stale at the first write. */
static bool enabled = true;
module_param(enabled, bool, 0);
MODULE_PARM_DESC(enabled, "Initial state: 1 = stock vmpressure (default), 0 = short-circuited");

static char *method = "auto";
module_param(method, charp, 0444);
MODULE_PARM_DESC(method, "Hook backend: auto (default), direct, ftrace or kprobe");

static bool resident;
module_param(resident, bool, 0444);
MODULE_PARM_DESC(resident, "1 = hook at load until unload, the knob a flag the hooks read (microsecond writes); 0 = hook only while enabled is 0 (default)");

/* Read by the hooks, so set at load only (0444). */
bool vmpc_counts_skipped __read_mostly = true;
module_param_named(count_skipped, vmpc_counts_skipped, bool, 0444);
MODULE_PARM_DESC(count_skipped, "1 = count short-circuited calls in skipped (default); 0 = count nothing, for the cost of a bare return, and no skipped attribute");

unsigned long vmpc_stub_addr __read_mostly;

static struct kobject *vmpc_kobj;

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", vmpc_is_enabled());
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool want;
	int err;

	err = vmpc_parse_knob(buf, count, &want);
	if (!err)
		err = vmpc_set_enabled(want);
	return err ? err : count;
}

static ssize_t armed_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", vmpc_is_armed());
}

static ssize_t method_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", vmpc_method());
}

static ssize_t skipped_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", vmpc_skipped());
}

/*
 * The targets resolved at load, one a line: what a write of 0 hooks (in
 * resident mode, what stays hooked), whether or not hooked right now.
 */
static ssize_t targets_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < VMPC_MAX_TARGETS; i++)
		if (vmpc_target_resolved(i))
			len += sysfs_emit_at(buf, len, "%s\n",
					     vmpc_target_symbol(i));
	return len;
}

static struct kobj_attribute vmpc_attr_enabled = __ATTR_RW(enabled);
static struct kobj_attribute vmpc_attr_armed = __ATTR_RO(armed);
static struct kobj_attribute vmpc_attr_method = __ATTR_RO(method);
static struct kobj_attribute vmpc_attr_skipped = __ATTR_RO(skipped);
static struct kobj_attribute vmpc_attr_targets = __ATTR_RO(targets);

static struct attribute *vmpc_attrs[] = {
	&vmpc_attr_enabled.attr,
	&vmpc_attr_armed.attr,
	&vmpc_attr_method.attr,
	&vmpc_attr_skipped.attr,
	&vmpc_attr_targets.attr,
	NULL,
};

/* Without the count there is no skipped: no number that is not a count. */
static umode_t vmpc_attr_visible(struct kobject *kobj, struct attribute *attr,
				 int n)
{
	if (attr == &vmpc_attr_skipped.attr && !vmpc_counts_skipped)
		return 0;
	return attr->mode;
}

static const struct attribute_group vmpc_attr_group = {
	.attrs = vmpc_attrs,
	.is_visible = vmpc_attr_visible,
};

static int __init vmpc_init(void)
{
	int err;

	/* Before any hook: resident=1 and enabled=0 hook in state init. */
	vmpc_stub_addr = vmpc_counts_skipped ? (unsigned long)vmpc_stub :
					       (unsigned long)vmpc_stub_uncounted;
	err = vmpc_state_init(method, enabled, resident);
	if (err)
		return err;

	vmpc_kobj = kobject_create_and_add(KBUILD_MODNAME, kernel_kobj);
	if (!vmpc_kobj) {
		pr_err("cannot create /sys/kernel/%s: %d\n", KBUILD_MODNAME,
		       -ENOMEM);
		err = -ENOMEM;
		goto err_state;
	}
	err = sysfs_create_group(vmpc_kobj, &vmpc_attr_group);
	if (err) {
		pr_err("cannot create sysfs attributes: %d\n", err);
		goto err_kobj;
	}

	if (resident)
		pr_info("loaded, method %s, resident, %s\n", vmpc_method(),
			vmpc_is_enabled() ? "stock (hooked, handing calls back)" :
					    "short-circuited");
	else
		pr_info("loaded, method %s, %s\n", vmpc_method(),
			vmpc_is_enabled() ? "stock (nothing hooked)" :
					    "short-circuited");
	return 0;

err_kobj:
	kobject_del(vmpc_kobj);
	kobject_put(vmpc_kobj);
err_state:
	vmpc_state_exit();
	return err;
}

static void __exit vmpc_exit(void)
{
	/*
	 * Removed here, not whenever the last reference goes (which
	 * CONFIG_DEBUG_KOBJECT_RELEASE delays): removing the files waits for
	 * readers and writers still in them, and lets no new one into the
	 * module's text.
	 */
	sysfs_remove_group(vmpc_kobj, &vmpc_attr_group);
	kobject_del(vmpc_kobj);
	kobject_put(vmpc_kobj);
	vmpc_state_exit();
	if (vmpc_counts_skipped)
		pr_info("unloaded, %lu calls short-circuited\n", vmpc_skipped());
	else
		pr_info("unloaded\n");
}

module_init(vmpc_init);
module_exit(vmpc_exit);

MODULE_DESCRIPTION("Runtime switch for vmpressure() on stock kernels");
MODULE_AUTHOR("vmpressure-ctl developers");
MODULE_LICENSE("GPL");
