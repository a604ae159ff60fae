/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own count of how often vmpressure_work_fn ran: the function
 * tracer of a tracefs instance of vmpctl's own, filtered on that function.
 * vmpressure() queues that work item on cgroup v1 and v2 alike (until
 * MEMCG_V1 went, Debian's 7.3); on a v2 kernel without memory.events'
 * sock_throttled it is the evidence of the knob's effect that does not take
 * the module's word for it. An instance leaves the top-level tracer, and
 * anyone using it, alone.
 */
#ifndef VMPCTL_WORKTRACE_H
#define VMPCTL_WORKTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define WORKTRACE_FUNCTION "vmpressure_work_fn"

struct work_trace {
	char dir[256];		/* the instance; "" when not open */
};

/*
 * Creates the instance and arms its function tracer on vmpressure_work_fn,
 * not yet recording. 0, or -errno: -ENOENT when there is no tracefs, no
 * instances or no such traceable function (then nothing is left behind).
 */
int work_trace_open(struct work_trace *t);

/* Empties the instance's buffer and starts recording. 0 or -errno. */
int work_trace_start(struct work_trace *t);

/* Stops recording and counts the runs recorded since the start. */
int work_trace_stop(struct work_trace *t, uint64_t *runs);

/* Removes the instance (its tracer and filter go with it); safe when not open. */
void work_trace_close(struct work_trace *t);

/* The function tracer's lines in TRACE that are a run of vmpressure_work_fn. */
uint64_t work_trace_count_runs(FILE *trace);

#endif
