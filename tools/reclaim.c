// SPDX-License-Identifier: GPL-2.0
#include "reclaim.h"
#include "child.h"
#include "clock.h"
#include "output.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int reclaim_touch(const struct reclaim_job *job)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* Look at the clock every 4 MiB, not every page. */
	const size_t clock_every = (4u << 20) / page;
	double deadline = monotonic_s() + job->seconds;
	volatile unsigned char *mem;
	unsigned int pass;
	size_t i, pages;

	if (job->bytes == 0 || job->bytes > SIZE_MAX)
		return -EINVAL;
	mem = mmap(NULL, job->bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	/*
	 * Base pages only: where THP is "always" (Debian's arm64 kernels), a
	 * hog of huge pages in a small memcg swaps 2 MiB at a time, reclaim
	 * falls behind and the OOM killer takes the task that charges next.
	 * A kernel without THP refuses the advice; nothing to avoid then.
	 */
	madvise((void *)mem, job->bytes, MADV_NOHUGEPAGE);
	pages = job->bytes / page;
	for (pass = 0;; pass++) {
		if (job->seconds <= 0 && pass >= job->passes)
			break;
		for (i = 0; i < pages; i++) {
			mem[i * page] = (unsigned char)(pass + i);
			if (job->seconds > 0 && i % clock_every == 0 &&
			    monotonic_s() >= deadline)
				goto done;
		}
	}
done:
	munmap((void *)mem, job->bytes);
	return 0;
}

struct reclaim_child {
	const struct memcg *cg;
	const struct reclaim_job *job;
};

static int reclaim_child_body(void *arg)
{
	const struct reclaim_child *c = arg;
	int err;

	err = memcg_enter_child(c->cg);
	if (err) {
		vmpctl_error("moving the reclaim child into %s: %s", c->cg->path,
			     strerror(-err));
		return RECLAIM_EXIT_ATTACH;
	}
	err = reclaim_touch(c->job);
	if (err) {
		vmpctl_error("mapping %llu bytes for the reclaim child: %s",
			     (unsigned long long)c->job->bytes, strerror(-err));
		return RECLAIM_EXIT_NOMEM;
	}
	return 0;
}

int reclaim_run(const struct memcg *cg, const struct reclaim_job *job,
		struct reclaim_result *result)
{
	struct reclaim_child child = { cg, job };

	return reclaim_run_body(cg, reclaim_child_body, &child, result);
}

int reclaim_run_body(const struct memcg *cg, int (*body)(void *arg),
		     void *arg, struct reclaim_result *result)
{
	struct child_spec spec = { .body = body, .arg = arg };
	uint64_t oom_before = 0, oom_after = 0;
	bool have_oom = memcg_read_oom_kills(cg, &oom_before) == 0;
	struct child_result res;
	int err;

	memset(result, 0, sizeof(*result));
	err = child_run(&spec, &res);
	if (err == -EINTR) {
		result->interrupted = true;
		return 0;
	}
	if (err)
		return err;
	result->elapsed = res.wall_s;
	result->interrupted = res.stopped;
	if (WIFEXITED(res.status)) {
		result->exit_code = WEXITSTATUS(res.status);
	} else if (WIFSIGNALED(res.status)) {
		result->term_signal = WTERMSIG(res.status);
		/* A SIGKILL we did not send, with the memcg's oom_kill grown. */
		if (result->term_signal == SIGKILL && !result->interrupted)
			result->oom_killed = !have_oom ||
				(memcg_read_oom_kills(cg, &oom_after) == 0 &&
				 oom_after > oom_before);
	}
	return 0;
}

const char *reclaim_failure(const struct reclaim_result *result, char *buf,
			    size_t size)
{
	if (result->interrupted)
		snprintf(buf, size, "interrupted");
	else if (result->oom_killed)
		snprintf(buf, size, "killed by the OOM killer (too little swap? try a smaller --size)");
	else if (result->term_signal)
		snprintf(buf, size, "killed by signal %d (%s)", result->term_signal,
			 strsignal(result->term_signal));
	else if (result->exit_code == RECLAIM_EXIT_ATTACH)
		snprintf(buf, size, "could not join the cgroup");
	else if (result->exit_code == RECLAIM_EXIT_NOMEM)
		snprintf(buf, size, "could not map its memory");
	else if (result->exit_code)
		snprintf(buf, size, "exited with status %d", result->exit_code);
	else
		return NULL;
	return buf;
}
