// SPDX-License-Identifier: GPL-2.0
/*
 * direct backend: an ftrace direct call from the targets' fentry sites to
 * vmpc_direct_tramp, which drops the return address into the target and
 * jumps to vmpc_stub (x86-64: direct_tramp.S; arm64: direct_tramp_arm64.S,
 * which does the same with the patch site's x9/x30); in jump mode
 * (direct_mode.h) a JMP from the site to vmpc_stub itself, or in resident
 * mode to vmpc_direct_jmp_stub, with no return address to drop; with
 * count_skipped=0 the uncounted twin of each. No ftrace callback runs and
 * no registers are saved: the cheapest backend.
 *
 * A function has at most one direct call, so a BPF trampoline (or any
 * other direct caller) on a target makes registration fail with -EBUSY;
 * so does an IPMODIFY user (a livepatch), which a direct ops without an
 * ops_func cannot share a function with. The kernel sets this ops' flags
 * itself, so it cannot carry FTRACE_OPS_FL_PERMANENT: armed() reads the
 * call sites instead.
 */
#include <linux/ftrace.h>
#ifdef CONFIG_ARM64
#include <asm/insn.h>
#endif

#include "compat.h"
#include "testing.h"
#include "vmpressure_ctl.h"

#ifdef VMPC_HAVE_DIRECT

/* register_ftrace_direct*() fills in func, flags and trampoline. */
static struct ftrace_ops vmpc_direct_ops;
static struct vmpc_site vmpc_direct_sites[VMPC_MAX_TARGETS];
static unsigned int vmpc_direct_nr_resolved;
static unsigned long vmpc_direct_addr;
static bool vmpc_direct_refused_late;

#ifdef VMPC_DIRECT_JMP
/*
 * Bit 0 of a direct address asks ftrace for a JMP instead of a CALL. The
 * default mode hooks only while the knob is 0, so its sites JMP straight
 * to the stub; resident mode's go through the jump stub, which reads it.
 */
static unsigned long vmpc_direct_entry(void)
{
	unsigned long entry = vmpc_stub_addr;

	if (vmpc_is_resident())
		entry = vmpc_counts_skipped ?
			(unsigned long)vmpc_direct_jmp_stub :
			(unsigned long)vmpc_direct_jmp_stub_uncounted;
	return ftrace_jmp_set(entry);
}

/*
 * Finds the target's ftrace site, where the jump stub hands calls back:
 * it knows one body (compat.h), so a second target that exists is
 * refused.
 */
static int vmpc_direct_find_site(const char *symbol, struct vmpc_site *site)
{
	int err;

	err = vmpc_site_find(symbol, site);
	if (err)
		return err;
	if (vmpc_direct_nr_resolved || !site->ftrace)
		return -EOPNOTSUPP;
	vmpc_direct_jmp_resume_at(site->addr);
	return 0;
}
#else
/*
 * On arm64 the default mode, hooked only while the knob is 0, takes the
 * trampoline's entry that reads no flag.
 */
static unsigned long vmpc_direct_entry(void)
{
	if (IS_ENABLED(CONFIG_ARM64) && !vmpc_is_resident())
		return vmpc_counts_skipped ?
			(unsigned long)vmpc_direct_tramp_skip :
			(unsigned long)vmpc_direct_tramp_skip_uncounted;
	return vmpc_counts_skipped ? (unsigned long)vmpc_direct_tramp :
				     (unsigned long)vmpc_direct_tramp_uncounted;
}

/*
 * The site is only read by armed(): unknown counts as live. On arm64 the
 * lookup gives the function's entry, where a breakpoint kprobe would sit;
 * ftrace patches the BL of "mov x9, x30; bl" there, after a "bti c" when
 * the kernel is built with BTI (arm64's ftrace_call_adjust()).
 */
static int vmpc_direct_find_site(const char *symbol, struct vmpc_site *site)
{
	vmpc_site_find(symbol, site);
#ifdef CONFIG_ARM64
	if (site->addr) {
		site->addr += AARCH64_INSN_SIZE;
		if (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL))
			site->addr += AARCH64_INSN_SIZE;
		site->ftrace = true;
	}
#endif
	return 0;
}
#endif

static int vmpc_direct_resolve(const char *symbol)
{
	unsigned int n = vmpc_direct_nr_resolved;
	int err;

	if (n == VMPC_MAX_TARGETS)
		return -ENOSPC;
	err = vmpc_direct_find_site(symbol, &vmpc_direct_sites[n]);
	if (err)
		return err;
	err = vmpc_ftrace_filter_add(&vmpc_direct_ops, symbol, n == 0);
	if (err)
		return err;
	vmpc_direct_nr_resolved++;
	return 0;
}

static int vmpc_direct_attach(void)
{
	int err;

	/*
	 * Keep only what ftrace_set_filter() set up: the kernel replaces the
	 * flags with its direct ones only past the check for another
	 * direct call, which tells the two kinds of owner apart.
	 */
	vmpc_direct_ops.flags &= FTRACE_OPS_FL_INITIALIZED;
	vmpc_direct_addr = vmpc_test_direct_target(vmpc_direct_entry());
	err = vmpc_register_ftrace_direct(&vmpc_direct_ops, vmpc_direct_addr);
	vmpc_direct_refused_late = err &&
				   (vmpc_direct_ops.flags & FTRACE_OPS_FL_DIRECT);
	if (!err)
		return 0;
	/*
	 * Kernels without "ftrace: Fix BPF fexit with livepatch" (all of
	 * 6.1.y) leave func and trampoline set when the registration fails
	 * past that point, and refuse every later attempt with -EINVAL
	 * because of them. Nothing is registered: clear them, as later
	 * kernels do themselves.
	 */
	vmpc_direct_ops.func = NULL;
	vmpc_direct_ops.trampoline = 0;
	return err;
}

static int vmpc_direct_detach(void)
{
	return vmpc_unregister_ftrace_direct(&vmpc_direct_ops, vmpc_direct_addr);
}

static void vmpc_direct_release(void)
{
	if (vmpc_direct_nr_resolved)
		vmpc_ftrace_free_filter(&vmpc_direct_ops);
	vmpc_direct_nr_resolved = 0;
}

static bool vmpc_direct_armed(void)
{
	return vmpc_sites_live(vmpc_direct_sites, vmpc_direct_nr_resolved);
}

static const char *vmpc_direct_busy_owner(void)
{
	return vmpc_direct_refused_late ? VMPC_OWNER_IPMODIFY : VMPC_OWNER_DIRECT;
}

/* ftrace shares a function with another direct call, not with IPMODIFY. */
static const struct vmpc_backend *vmpc_direct_busy_sharer(void)
{
	return vmpc_direct_refused_late ? NULL : &vmpc_ftrace_backend;
}

const struct vmpc_backend vmpc_direct_backend = {
	.name = "direct",
	.resolve = vmpc_direct_resolve,
	.attach = vmpc_direct_attach,
	.detach = vmpc_direct_detach,
	.release = vmpc_direct_release,
	.armed = vmpc_direct_armed,
	.busy_owner = vmpc_direct_busy_owner,
	.busy_sharer = vmpc_direct_busy_sharer,
};

#endif /* VMPC_HAVE_DIRECT */
