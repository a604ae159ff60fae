/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forcing reclaim: a child process moves itself into a memory cgroup and
 * touches more anonymous memory than the limit allows, so the kernel
 * reclaims (swaps) inside the memcg and vmpressure() runs.
 */
#ifndef VMPCTL_RECLAIM_H
#define VMPCTL_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"

/* Child exit codes that say which step failed. */
#define RECLAIM_EXIT_NOMEM 124
#define RECLAIM_EXIT_ATTACH 125

struct reclaim_job {
	uint64_t bytes;
	double seconds;		/* > 0: keep touching until this much time passed */
	unsigned int passes;	/* when seconds <= 0: this many full passes */
};

struct reclaim_result {
	double elapsed;		/* seconds from fork to reap */
	int exit_code;		/* when the child exited */
	int term_signal;	/* when it was killed, else 0 */
	bool oom_killed;
	bool interrupted;	/* a stop signal came: it was stopped or never started */
};

/*
 * Maps bytes of anonymous memory and writes one byte per page through a
 * volatile pointer (so the compiler cannot drop the stores), pass after
 * pass, until the job is done. 0 or -errno.
 */
int reclaim_touch(const struct reclaim_job *job);

/*
 * Runs reclaim_touch() in a child inside cg through child_run() (a stop
 * signal is forwarded to it; it is always reaped). 0 when the child ran
 * or a stop came first (see result), else -errno of fork.
 */
int reclaim_run(const struct memcg *cg, const struct reclaim_job *job,
		struct reclaim_result *result);

/*
 * The same for another body that enters cg itself (memcg_enter_child())
 * and exits with RECLAIM_EXIT_* the way the reclaim child does.
 */
int reclaim_run_body(const struct memcg *cg, int (*body)(void *arg),
		     void *arg, struct reclaim_result *result);

/* One line for a child that did not exit 0, e.g. "killed by the OOM killer". */
const char *reclaim_failure(const struct reclaim_result *result, char *buf,
			    size_t size);

#endif
