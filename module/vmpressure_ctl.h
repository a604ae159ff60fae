/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface between the sysfs/state-machine core (main.c), the hook
 * backends (hook_*.c) and the short-circuit target (stub.c).
 */
#ifndef VMPRESSURE_CTL_H
#define VMPRESSURE_CTL_H

#include <linux/types.h>

/*
 * A hook backend. resolve() is called once per target symbol at load time
 * and must leave nothing registered; attach() then hooks every resolved
 * symbol (all or nothing), detach() unhooks them, release() forgets them.
 */
struct vmpc_backend {
	const char *name;
	int (*resolve)(const char *symbol);
	int (*attach)(void);
	int (*detach)(void);
	void (*release)(void);
};

extern const struct vmpc_backend vmpc_direct_backend;
extern const struct vmpc_backend vmpc_ftrace_backend;
extern const struct vmpc_backend vmpc_kprobe_backend;

struct ftrace_ops;
int vmpc_ftrace_filter_add(struct ftrace_ops *ops, const char *symbol,
			   bool reset);

/* Upper bound on the number of hooked symbols (vmpressure, vmpressure_prio). */
#define VMPC_MAX_TARGETS 2

/* Where every hook sends the CPU instead of the original function. */
void vmpc_stub(void);

/* ftrace direct-call target that drops into vmpc_stub (direct_tramp.S). */
void vmpc_direct_tramp(void);

/* Calls short-circuited since load, summed over all CPUs. */
unsigned long vmpc_skipped(void);

#endif /* VMPRESSURE_CTL_H */
