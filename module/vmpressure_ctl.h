/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface between the sysfs attributes (main.c), the state machine
 * (state.c), the hook backends (hook_*.c), the call-site reader (site.c),
 * the knob grammar (knob.c) and the short-circuit target (stub.c).
 */
#ifndef VMPRESSURE_CTL_H
#define VMPRESSURE_CTL_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "direct_mode.h"

/* Upper bound on the number of hooked symbols (vmpressure, vmpressure_prio). */
#define VMPC_MAX_TARGETS 2

/*
 * A hook backend. resolve() is called once per target symbol and must leave
 * nothing registered; attach() then hooks every resolved symbol (all or
 * nothing: a failed attach leaves the kernel as it was and can be retried,
 * and while it runs the hooks hand every call back, vmpc_pass_through),
 * detach() unhooks them, release() forgets them. armed() says whether every
 * hooked call site really leads to the hook (kernel.ftrace_enabled=0 can
 * turn ftrace sites back into NOPs under a registered hook). busy_owner()
 * says, after attach() failed with -EBUSY, what kind of owner the kernel
 * found on a target, as far as the kernel's answer tells; busy_sharer(),
 * where set, which backend can hook next to that owner (NULL: none).
 */
struct vmpc_backend {
	const char *name;
	int (*resolve)(const char *symbol);
	int (*attach)(void);
	int (*detach)(void);
	void (*release)(void);
	bool (*armed)(void);
	const char *(*busy_owner)(void);
	const struct vmpc_backend *(*busy_sharer)(void);
};

/* What busy_owner() says, as far as the kernel's refusal tells. */
#define VMPC_OWNER_IPMODIFY "an IPMODIFY ftrace user holds a target: a livepatch, a kprobe with a post handler, or another module's IPMODIFY ftrace_ops"
#define VMPC_OWNER_DIRECT "a target already has an ftrace direct call: a BPF trampoline (fentry/fexit/fmod_ret program, bpftrace kfunc/fentry probe) or another module's; method=ftrace or kprobe can share a function with BPF"
#define VMPC_OWNER_UNSHARED_OR_OFF "ftrace is disabled (kernel.ftrace_enabled=0), or a target has an ftrace direct call that does not share it (BPF trampolines do; another module's may not)"
#define VMPC_OWNER_KPROBE "another kprobe sits on a target: a kprobe event (kprobe_events in tracefs), perf probe or bpftrace; remove it, or use method=ftrace, which shares a function with kprobes"
#define VMPC_OWNER_FTRACE_SITE "an IPMODIFY ftrace user holds a target's ftrace site (a livepatch or another module's IPMODIFY ftrace_ops), or an ftrace direct call there does not share it (BPF trampolines do)"

extern const struct vmpc_backend vmpc_direct_backend;
extern const struct vmpc_backend vmpc_ftrace_backend;
extern const struct vmpc_backend vmpc_kprobe_backend;

struct ftrace_ops;
int vmpc_ftrace_filter_add(struct ftrace_ops *ops, const char *symbol,
			   bool reset);

/*
 * Where a target's hook sits: the address kprobes resolve its entry to,
 * whether that is the function's ftrace call site, and whether another
 * kprobe sat there when it was looked up.
 */
struct vmpc_site {
	unsigned long addr;
	bool ftrace;
	bool kprobe_shared;
};

int vmpc_site_find(const char *symbol, struct vmpc_site *site);
bool vmpc_ftrace_site_live(unsigned long addr);
bool vmpc_sites_live(const struct vmpc_site *sites, unsigned int nr);

/* The state machine behind the enabled attribute (state.c). */
int vmpc_state_init(const char *method, bool enabled, bool resident);
void vmpc_state_exit(void);
int vmpc_set_enabled(bool want);
bool vmpc_is_enabled(void);
bool vmpc_is_armed(void);
bool vmpc_is_resident(void);
const char *vmpc_method(void);
bool vmpc_target_resolved(unsigned int i);
const char *vmpc_target_symbol(unsigned int i);

/* One boolean word as the enabled attribute accepts it (knob.c). */
int vmpc_parse_knob(const char *buf, size_t count, bool *val);

/* Hooks hand calls back: resident mode, and during attach (state.c). */
extern bool vmpc_pass_through;

/*
 * Where every hook sends the CPU instead of the original function. In
 * jump mode (direct_mode.h) the default mode's fentry site JMPs straight
 * to it, or ftrace_caller hands over by a RET; IBT polices neither, and
 * the other hooks arrive by a RET or an IRET too. So no ENDBR there: the
 * stub is the count and the RET, one instruction over an empty function.
 */
#ifdef VMPC_DIRECT_JMP
#include <asm/ibt.h>
#define VMPC_STUB_ENTRY __noendbr
#else
#define VMPC_STUB_ENTRY
#endif
VMPC_STUB_ENTRY void vmpc_stub(void);

/*
 * With count_skipped=0 (main.c) the hooks send calls to an empty stub
 * instead, and the direct backend to trampoline entries that return
 * straight to the caller: a short-circuited call is counted nowhere and
 * costs a bare return, and the skipped attribute is absent.
 */
extern bool vmpc_counts_skipped;
VMPC_STUB_ENTRY void vmpc_stub_uncounted(void);

/*
 * Where the ftrace and kprobe hooks point the instruction pointer: one of
 * the two, chosen at load, so a hook loads it as it would the constant.
 */
extern unsigned long vmpc_stub_addr;

DECLARE_PER_CPU(unsigned long, vmpc_skipped_count);

/*
 * Counts one short-circuited call. Inline, so that a kprobe pre-handler
 * (count_only) counts without calling vmpc_stub, which stays probe-able.
 */
static inline void vmpc_count_skipped(void)
{
	this_cpu_inc(vmpc_skipped_count);
}

/*
 * ftrace direct-call target that drops into vmpc_stub (direct_tramp*.S);
 * on arm64 also one that never hands back, for the default mode. The
 * _uncounted entries return to the caller without counting.
 */
void vmpc_direct_tramp(void);
void vmpc_direct_tramp_uncounted(void);
void vmpc_direct_tramp_skip(void);
void vmpc_direct_tramp_skip_uncounted(void);

/* The same for jump mode, and where it hands calls back (direct_jmp_stub.c). */
void vmpc_direct_jmp_stub(void);
void vmpc_direct_jmp_stub_uncounted(void);
void vmpc_direct_jmp_resume_at(unsigned long site_addr);

/* Calls short-circuited since load, summed over all CPUs. */
unsigned long vmpc_skipped(void);

#endif /* VMPRESSURE_CTL_H */
