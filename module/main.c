// SPDX-License-Identifier: GPL-2.0
/*
 * vmpressure_ctl: switch mm/vmpressure.c's vmpressure() (and
 * vmpressure_prio()) off and on at runtime on a stock kernel.
 *
 * /sys/kernel/vmpressure_ctl/enabled is 1 for stock behaviour, with nothing
 * registered, and 0 for short-circuited, with every target hooked so that
 * calls go to vmpc_stub instead.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "vmpressure_ctl.h"

/* Not shown under /sys/module: it would go stale at the first write. */
static bool enabled = true;
module_param(enabled, bool, 0);
MODULE_PARM_DESC(enabled, "Initial state: 1 = stock vmpressure (default), 0 = short-circuited");

static char *method = "auto";
module_param(method, charp, 0444);
MODULE_PARM_DESC(method, "Hook backend: auto (default), direct, ftrace or kprobe");

struct vmpc_target {
	const char *symbol;
	bool required;
};

/* vmpressure_prio() is gone on kernels without cgroup-v1 memcg (7.3+). */
static const struct vmpc_target vmpc_targets[VMPC_MAX_TARGETS] = {
	{ .symbol = "vmpressure", .required = true },
	{ .symbol = "vmpressure_prio", .required = false },
};

/* In order of preference for method=auto. */
static const struct vmpc_backend *const vmpc_backends[] = {
#ifdef VMPC_HAVE_DIRECT
	&vmpc_direct_backend,
#endif
	&vmpc_ftrace_backend,
	&vmpc_kprobe_backend,
};

static const struct vmpc_backend *vmpc_backend;
static bool vmpc_hooked[VMPC_MAX_TARGETS];
static struct kobject *vmpc_kobj;

/* Serialises state changes; vmpc_enabled is only written under it. */
static DEFINE_MUTEX(vmpc_lock);
static bool vmpc_enabled = true;

/*
 * Resolves every target with backend b. Fails, with b released, when the
 * required one cannot be hooked; optional ones that cannot are skipped.
 */
static int vmpc_resolve_targets(const struct vmpc_backend *b, bool quiet)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(vmpc_targets); i++) {
		const struct vmpc_target *t = &vmpc_targets[i];

		err = b->resolve(t->symbol);
		vmpc_hooked[i] = !err;
		if (!err)
			continue;
		if (t->required) {
			if (!quiet)
				pr_err("%s: cannot hook %s (missing, e.g. CONFIG_MEMCG=n, or not hookable): %d\n",
				       b->name, t->symbol, err);
			b->release();
			memset(vmpc_hooked, 0, sizeof(vmpc_hooked));
			return err;
		}
		pr_info("%s: optional %s not hooked: %d\n", b->name, t->symbol,
			err);
	}
	return 0;
}

static int vmpc_choose_backend(void)
{
	bool auto_method = sysfs_streq(method, "auto");
	unsigned int i;
	int err = -EINVAL;

	for (i = 0; i < ARRAY_SIZE(vmpc_backends); i++) {
		const struct vmpc_backend *b = vmpc_backends[i];

		if (!auto_method && !sysfs_streq(method, b->name))
			continue;
		/* auto reports only the last failure; later backends may work */
		err = vmpc_resolve_targets(b, auto_method &&
					   i + 1 < ARRAY_SIZE(vmpc_backends));
		if (!err) {
			vmpc_backend = b;
			return 0;
		}
	}
	if (err == -EINVAL)
		pr_err("method=%s: unknown or not built for this kernel\n",
		       method);
	return err;
}

/* Moves to the wanted state; caller holds vmpc_lock. */
static int vmpc_set_enabled(bool want)
{
	int err;

	lockdep_assert_held(&vmpc_lock);
	if (want == vmpc_enabled)
		return 0;

	err = want ? vmpc_backend->detach() : vmpc_backend->attach();
	if (err == -EBUSY)
		pr_err("%s: cannot hook: %d (a target is owned by another IPMODIFY user, e.g. a livepatch)\n",
		       vmpc_backend->name, err);
	else if (err)
		pr_err("%s: cannot %s: %d\n", vmpc_backend->name,
		       want ? "unhook" : "hook", err);
	if (err)
		return err;
	vmpc_enabled = want;
	return 0;
}

/*
 * One kstrtobool word, optionally newline-terminated. kstrtobool() alone
 * looks at the first characters only and would take "1 0" or "yesterday".
 */
static int vmpc_parse_bool(const char *buf, size_t count, bool *val)
{
	char word[sizeof("false")];

	if (count && buf[count - 1] == '\n')
		count--;
	if (!count || count >= sizeof(word))
		return -EINVAL;
	memcpy(word, buf, count);
	word[count] = '\0';
	if (strlen(word) != count || strpbrk(word, " \t\n\v\f\r"))
		return -EINVAL;
	return kstrtobool(word, val);
}

static ssize_t enabled_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(vmpc_enabled));
}

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	bool want;
	int err;

	err = vmpc_parse_bool(buf, count, &want);
	if (err)
		return err;

	mutex_lock(&vmpc_lock);
	err = vmpc_set_enabled(want);
	mutex_unlock(&vmpc_lock);
	return err ? err : count;
}

static ssize_t method_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", vmpc_backend->name);
}

static ssize_t skipped_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%lu\n", vmpc_skipped());
}

static ssize_t targets_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < ARRAY_SIZE(vmpc_targets); i++)
		if (vmpc_hooked[i])
			len += sysfs_emit_at(buf, len, "%s\n",
					     vmpc_targets[i].symbol);
	return len;
}

static struct kobj_attribute vmpc_attr_enabled = __ATTR_RW(enabled);
static struct kobj_attribute vmpc_attr_method = __ATTR_RO(method);
static struct kobj_attribute vmpc_attr_skipped = __ATTR_RO(skipped);
static struct kobj_attribute vmpc_attr_targets = __ATTR_RO(targets);

static struct attribute *vmpc_attrs[] = {
	&vmpc_attr_enabled.attr,
	&vmpc_attr_method.attr,
	&vmpc_attr_skipped.attr,
	&vmpc_attr_targets.attr,
	NULL,
};

static const struct attribute_group vmpc_attr_group = {
	.attrs = vmpc_attrs,
};

/*
 * Unhooks if hooked, then waits until no task can still be inside the
 * stub or a trampoline (preempted there, say) before module text goes.
 */
static void vmpc_shutdown(void)
{
	mutex_lock(&vmpc_lock);
	if (!vmpc_enabled && vmpc_set_enabled(true))
		pr_err("unhooking failed on unload; the kernel may crash\n");
	mutex_unlock(&vmpc_lock);
	synchronize_rcu_tasks();
	vmpc_backend->release();
}

static int __init vmpc_init(void)
{
	int err;

	err = vmpc_choose_backend();
	if (err)
		return err;

	if (!enabled) {
		mutex_lock(&vmpc_lock);
		err = vmpc_set_enabled(false);
		mutex_unlock(&vmpc_lock);
		if (err)
			goto err_release;
	}

	vmpc_kobj = kobject_create_and_add(KBUILD_MODNAME, kernel_kobj);
	if (!vmpc_kobj) {
		pr_err("cannot create /sys/kernel/%s: %d\n", KBUILD_MODNAME,
		       -ENOMEM);
		err = -ENOMEM;
		goto err_shutdown;
	}
	err = sysfs_create_group(vmpc_kobj, &vmpc_attr_group);
	if (err) {
		pr_err("cannot create sysfs attributes: %d\n", err);
		goto err_kobj;
	}

	pr_info("loaded, method %s, %s\n", vmpc_backend->name,
		vmpc_enabled ? "stock (nothing hooked)" : "short-circuited");
	return 0;

err_kobj:
	kobject_put(vmpc_kobj);
err_shutdown:
	vmpc_shutdown();
	return err;
err_release:
	vmpc_backend->release();
	return err;
}

static void __exit vmpc_exit(void)
{
	/* Removing the directory waits for writers still in enabled_store. */
	kobject_put(vmpc_kobj);
	vmpc_shutdown();
	pr_info("unloaded, %lu calls short-circuited\n", vmpc_skipped());
}

module_init(vmpc_init);
module_exit(vmpc_exit);

MODULE_DESCRIPTION("Runtime switch for vmpressure() on stock kernels");
MODULE_AUTHOR("vmpressure-ctl developers");
MODULE_LICENSE("GPL");
