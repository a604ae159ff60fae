// SPDX-License-Identifier: GPL-2.0
/*
 * The state behind the enabled attribute: which backend hooks the targets,
 * the transitions between stock (nothing registered) and short-circuited
 * (every target hooked), and the module reference that keeps the module's
 * text in place while any hook can lead into it.
 *
 * In resident mode (resident=1) every target is hooked from load to
 * unload and a transition is one store to vmpc_pass_through, which the
 * hooks read on every call: no text is patched and no grace period is
 * waited for, so a write takes microseconds whatever the tasks in the
 * kernel are doing.
 *
 * A transition either completes or leaves everything as it was: a write
 * that fails changes neither the knob nor the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "testing.h"
#include "vmpressure_ctl.h"

struct vmpc_target {
	const char *symbol;
	bool required;
};

/* vmpressure_prio() is gone on kernels without cgroup-v1 memcg (7.3+). */
static const struct vmpc_target vmpc_targets[VMPC_MAX_TARGETS] = {
	{ .symbol = "vmpressure", .required = true },
	{ .symbol = "vmpressure_prio", .required = false },
};

/* The backends built for this kernel. */
static const struct vmpc_backend *const vmpc_backends[] = {
#ifdef VMPC_HAVE_DIRECT
	&vmpc_direct_backend,
#endif
	&vmpc_ftrace_backend,
	&vmpc_kprobe_backend,
};

/*
 * What method=auto takes, in order of preference: the first that resolves.
 * Never kprobe: where an IPMODIFY owner (a livepatch) refuses ftrace, a
 * kprobe could still sit in front of the owner's ftrace site (a breakpoint
 * on arm64) and silently bypass it.
 */
static const struct vmpc_backend *const vmpc_auto_backends[] = {
#ifdef VMPC_HAVE_DIRECT
	&vmpc_direct_backend,
#endif
	&vmpc_ftrace_backend,
};

/* Every method= the module knows, built for this kernel or not. */
static const char *const vmpc_method_names[] = { "direct", "ftrace", "kprobe" };

/* Serialises transitions; the variables below change only under it. */
static DEFINE_MUTEX(vmpc_lock);
static const struct vmpc_backend *vmpc_backend;
static bool vmpc_auto;
static bool vmpc_hooked[VMPC_MAX_TARGETS];
static bool vmpc_enabled = true;
static bool vmpc_resident;

/*
 * Read by the hooks on every call (direct_tramp.S reads it too): true
 * hands the call back to the original function, false short-circuits it.
 * A call already past the check finishes the old way. In resident mode it
 * is the knob; in the default mode it is true only while the hooks are
 * being registered, so that an attach that fails half-way, after some
 * targets were hooked, has short-circuited no call. The direct backend's
 * hooks that read no flag (jump mode and arm64's default mode) are one
 * registration: nothing of them is live before all is.
 */
bool vmpc_pass_through __read_mostly;

/*
 * Resolves every target with backend b into hooked[]. Fails, with b
 * released, when the required one cannot be resolved; optional ones that
 * cannot are left out. A failure is an error only when no other backend
 * is left to try.
 */
static int vmpc_resolve(const struct vmpc_backend *b, bool hooked[],
			bool last_try)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(vmpc_targets); i++) {
		const struct vmpc_target *t = &vmpc_targets[i];

		err = vmpc_test_fail_resolve(b->name, t->symbol);
		if (!err)
			err = b->resolve(t->symbol);
		hooked[i] = !err;
		if (!err)
			continue;
		if (!t->required) {
			pr_info("%s: optional %s not hooked: %d\n", b->name,
				t->symbol, err);
			continue;
		}
		if (last_try && err == -ENOENT)
			pr_err("%s: cannot resolve %s: %d (no traceable function of that name: CONFIG_MEMCG=n?)\n",
			       b->name, t->symbol, err);
		else if (last_try)
			pr_err("%s: the kernel refused to resolve %s: %d\n",
			       b->name, t->symbol, err);
		else
			pr_info("%s: the kernel refused to resolve %s: %d, trying the next method\n",
				b->name, t->symbol, err);
		b->release();
		return err;
	}
	return 0;
}

static void vmpc_use(const struct vmpc_backend *b, const bool hooked[])
{
	WRITE_ONCE(vmpc_backend, b);
	memcpy(vmpc_hooked, hooked, sizeof(vmpc_hooked));
}

static const struct vmpc_backend *vmpc_backend_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vmpc_backends); i++)
		if (sysfs_streq(name, vmpc_backends[i]->name))
			return vmpc_backends[i];
	return NULL;
}

/* method= names no backend of this build: say which, and what it has. */
static int vmpc_no_such_method(const char *method)
{
	char built[sizeof("direct ftrace kprobe")] = "";
	bool known = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vmpc_backends); i++) {
		if (i)
			strlcat(built, " ", sizeof(built));
		strlcat(built, vmpc_backends[i]->name, sizeof(built));
	}
	for (i = 0; i < ARRAY_SIZE(vmpc_method_names); i++)
		known |= sysfs_streq(method, vmpc_method_names[i]);
	if (known)
		pr_err("method=%s: not built for this kernel (the direct backend needs x86-64, or arm64 with CALL_OPS, and exported ops-based ftrace direct calls); this build has: auto %s\n",
		       method, built);
	else
		pr_err("method=%s: no such method; this build has: auto %s\n",
		       method, built);
	return -EOPNOTSUPP;
}

/* Picks the backend at load time, resolving its targets. */
static int vmpc_choose(const char *method)
{
	bool hooked[VMPC_MAX_TARGETS];
	const struct vmpc_backend *b;
	unsigned int i;
	int err = -EOPNOTSUPP;

	vmpc_auto = sysfs_streq(method, "auto");
	if (!vmpc_auto) {
		b = vmpc_backend_named(method);
		if (!b)
			return vmpc_no_such_method(method);
		err = vmpc_resolve(b, hooked, true);
		if (!err)
			vmpc_use(b, hooked);
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(vmpc_auto_backends); i++) {
		b = vmpc_auto_backends[i];
		err = vmpc_resolve(b, hooked,
				   i + 1 == ARRAY_SIZE(vmpc_auto_backends));
		if (!err) {
			vmpc_use(b, hooked);
			return 0;
		}
	}
	return err;
}

#define VMPC_UNARMED "the kernel registered the hook but its call sites do not lead to it: ftrace is disabled (kernel.ftrace_enabled=0), or kprobes are (debugfs kprobes/enabled=0)"

/* An array: vmpc_hook_targets() tells this refusal by its address. */
static const char vmpc_unarmed[] = VMPC_UNARMED;

/*
 * Hooks every target with b, or leaves the kernel as it was and says why
 * in *why. A registration the kernel accepts but does not arm (ftrace or
 * kprobes disabled) is undone and refused: the knob must not read 0 while
 * vmpressure() runs.
 */
static int vmpc_attach(const struct vmpc_backend *b, const char **why)
{
	int err;

	err = vmpc_test_fail_attach(b->name);
	if (!err)
		err = b->attach();
	if (err) {
		*why = err == -EBUSY ? b->busy_owner() : "refused by the kernel";
		return err;
	}
	if (b->armed())
		return 0;
	err = b->detach();
	if (err) {
		pr_err("%s: registered but not armed (ftrace disabled), and unregistering failed: %d; staying registered\n",
		       b->name, err);
		return 0;
	}
	*why = vmpc_unarmed;
	return -EBUSY;
}

/*
 * method=auto: when a target already has another direct call (a BPF
 * trampoline), the direct backend is refused but the one its busy_sharer()
 * names (ftrace) can hook next to it, and takes over. No other refusal
 * moves on: any other owner refuses ftrace as well.
 */
static int vmpc_attach_sharer(const struct vmpc_backend *b, int err,
			      const char *why)
{
	bool hooked[VMPC_MAX_TARGETS];

	pr_info("auto: %s cannot hook: %d: %s; trying %s\n",
		vmpc_backend->name, err, why, b->name);
	err = vmpc_resolve(b, hooked, true);
	if (err)
		return err;
	err = vmpc_attach(b, &why);
	if (err) {
		pr_err("%s: cannot hook: %d: %s\n", b->name, err, why);
		b->release();
		return err;
	}
	pr_info("auto: now using %s\n", b->name);
	vmpc_backend->release();
	vmpc_use(b, hooked);
	return 0;
}

/*
 * Hooks every target, moving on as method=auto allows: only after the
 * kernel refused the backend's registration. A registration it accepted
 * but did not arm (ftrace disabled) would not be armed for the sharer
 * either, and busy_sharer() knows nothing of it.
 */
static int vmpc_hook_targets(void)
{
	const struct vmpc_backend *sharer = NULL;
	const char *why;
	int err;

	err = vmpc_attach(vmpc_backend, &why);
	if (err == -EBUSY && why != vmpc_unarmed && vmpc_auto &&
	    vmpc_backend->busy_sharer)
		sharer = vmpc_backend->busy_sharer();
	if (sharer)
		return vmpc_attach_sharer(sharer, err, why);
	if (err)
		pr_err("%s: cannot hook: %d: %s\n", vmpc_backend->name, err, why);
	return err;
}

static int vmpc_hook(void)
{
	int err;

	WRITE_ONCE(vmpc_pass_through, true);
	err = vmpc_hook_targets();
	if (err)
		return err;
	/* Held while hooked: rmmod cannot take the stub away from a live hook. */
	__module_get(THIS_MODULE);
	WRITE_ONCE(vmpc_pass_through, false);
	WRITE_ONCE(vmpc_enabled, false);
	return 0;
}

static int vmpc_detach(void)
{
	int err;

	err = vmpc_test_fail_detach();
	return err ? err : vmpc_backend->detach();
}

/* A failed detach leaves hooks that lead into the module: it stays pinned. */
static int vmpc_unhook(void)
{
	int err;

	err = vmpc_detach();
	if (err) {
		pr_err("%s: cannot unhook: %d; staying hooked, and loaded: rmmod is refused\n",
		       vmpc_backend->name, err);
		return err;
	}
	WRITE_ONCE(vmpc_enabled, true);
	module_put(THIS_MODULE);
	return 0;
}

/*
 * Resident mode: the hooks stay registered, the knob only tells them what
 * to do. A write of 0 is refused, as in the default mode, while the
 * kernel's call sites do not lead to the hooks.
 */
static int vmpc_resident_set(bool want)
{
	if (!want && !vmpc_backend->armed()) {
		pr_err("%s: %s\n", vmpc_backend->name, vmpc_unarmed);
		return -EBUSY;
	}
	WRITE_ONCE(vmpc_pass_through, want);
	WRITE_ONCE(vmpc_enabled, want);
	return 0;
}

int vmpc_set_enabled(bool want)
{
	int err = 0;

	mutex_lock(&vmpc_lock);
	if (want != vmpc_enabled && vmpc_resident)
		err = vmpc_resident_set(want);
	else if (want != vmpc_enabled)
		err = want ? vmpc_unhook() : vmpc_hook();
	mutex_unlock(&vmpc_lock);
	return err;
}

bool vmpc_is_enabled(void)
{
	return READ_ONCE(vmpc_enabled);
}

/*
 * Without vmpc_lock: a write can hold it for an RCU-tasks grace period,
 * which a task long in the kernel holds off. A read racing a transition
 * gets the state before or after it; armed() only reads what resolve()
 * set up and the kernel's text.
 */
bool vmpc_is_armed(void)
{
	return !READ_ONCE(vmpc_enabled) && READ_ONCE(vmpc_backend)->armed();
}

bool vmpc_is_resident(void)
{
	return vmpc_resident;
}

const char *vmpc_method(void)
{
	return READ_ONCE(vmpc_backend)->name;
}

bool vmpc_target_resolved(unsigned int i)
{
	return i < ARRAY_SIZE(vmpc_hooked) && READ_ONCE(vmpc_hooked[i]);
}

const char *vmpc_target_symbol(unsigned int i)
{
	return vmpc_targets[i].symbol;
}

/*
 * Resident mode hooks at load in the state enabled asks for, and holds no
 * module reference: rmmod works from either knob state, and
 * vmpc_state_exit() unhooks before the module's text goes.
 */
static int vmpc_resident_init(bool enabled)
{
	int err;

	/* Short-circuiting only once every target is hooked (vmpc_hook()). */
	WRITE_ONCE(vmpc_pass_through, true);
	/* Before hooking: the direct backend picks its target by it. */
	vmpc_resident = true;
	err = vmpc_hook_targets();
	if (err) {
		vmpc_resident = false;
		return err;
	}
	WRITE_ONCE(vmpc_pass_through, enabled);
	WRITE_ONCE(vmpc_enabled, enabled);
	return 0;
}

int vmpc_state_init(const char *method, bool enabled, bool resident)
{
	int err;

	err = vmpc_choose(method);
	if (err)
		return err;
	if (resident)
		err = vmpc_resident_init(enabled);
	else if (!enabled)
		err = vmpc_set_enabled(false);
	if (err)
		vmpc_backend->release();
	return err;
}

/*
 * Unhooks for unload. Past this point nothing keeps the module's text, so
 * while the kernel refuses to let a hook go, unload waits and asks again
 * each second (in TASK_IDLE: no hung-task report for a wait that is
 * meant): a hook left pointing into freed text would crash the kernel.
 */
static void vmpc_unhook_for_unload(void)
{
	bool waited = false;
	int err;

	while ((err = vmpc_detach())) {
		if (!waited)
			pr_crit("%s: cannot unhook at unload: %d; the module stays until the kernel lets its hooks go, asking each second\n",
				vmpc_backend->name, err);
		waited = true;
		schedule_timeout_idle(HZ);
	}
	if (waited)
		pr_info("%s: unhooked at last, unloading\n", vmpc_backend->name);
}

/*
 * In the default mode the module reference held while hooked means only a
 * forced rmmod gets here hooked; in resident mode every rmmod does. Unhook
 * then: the backends' unregistration returns only once no CPU can still be
 * in a callback (ftrace's RCU-tasks waits, kprobes' synchronize_rcu()), so
 * no new call can enter the module's text. Then wait until no task can
 * still be inside the stub or a trampoline (preempted there, say) before
 * that text goes.
 */
void vmpc_state_exit(void)
{
	mutex_lock(&vmpc_lock);
	if (vmpc_resident || !vmpc_enabled)
		vmpc_unhook_for_unload();
	mutex_unlock(&vmpc_lock);
	synchronize_rcu_tasks();
	vmpc_backend->release();
}
