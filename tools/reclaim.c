// SPDX-License-Identifier: GPL-2.0
#include "reclaim.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int reclaim_touch(const struct reclaim_job *job)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* Look at the clock every 4 MiB, not every page. */
	const size_t clock_every = (4u << 20) / page;
	double deadline = now_seconds() + job->seconds;
	volatile unsigned char *mem;
	unsigned int pass;
	size_t i, pages;

	if (job->bytes == 0 || job->bytes > SIZE_MAX)
		return -EINVAL;
	mem = mmap(NULL, job->bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	pages = job->bytes / page;
	for (pass = 0;; pass++) {
		if (job->seconds <= 0 && pass >= job->passes)
			break;
		for (i = 0; i < pages; i++) {
			mem[i * page] = (unsigned char)(pass + i);
			if (job->seconds > 0 && i % clock_every == 0 &&
			    now_seconds() >= deadline)
				goto done;
		}
	}
done:
	munmap((void *)mem, job->bytes);
	return 0;
}

static void run_child(const struct memcg *cg, const struct reclaim_job *job)
{
	int err;

	err = memcg_enter_child(cg);
	if (err) {
		vmpctl_error("moving the reclaim child into %s: %s", cg->path,
			     strerror(-err));
		_exit(RECLAIM_EXIT_ATTACH);
	}
	err = reclaim_touch(job);
	if (err) {
		vmpctl_error("mapping %llu bytes for the reclaim child: %s",
			     (unsigned long long)job->bytes, strerror(-err));
		_exit(RECLAIM_EXIT_NOMEM);
	}
	_exit(0);
}

int reclaim_run(const struct memcg *cg, const struct reclaim_job *job,
		struct reclaim_result *result)
{
	uint64_t oom_before = 0, oom_after = 0;
	bool have_oom = memcg_read_oom_kills(cg, &oom_before) == 0;
	double start = now_seconds();
	int status;
	pid_t pid;

	memset(result, 0, sizeof(*result));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		run_child(cg, job);

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (stop_requested() && !result->interrupted) {
			kill(pid, SIGKILL);
			result->interrupted = true;
		}
	}
	result->elapsed = now_seconds() - start;
	if (stop_requested())
		result->interrupted = true;
	if (WIFEXITED(status)) {
		result->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		result->term_signal = WTERMSIG(status);
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
