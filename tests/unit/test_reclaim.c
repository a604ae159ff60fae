// SPDX-License-Identifier: GPL-2.0
/* The touch loop really faults its pages in; failure texts. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "reclaim.h"

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static void test_touch_faults_every_page(void **state)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct reclaim_job job = { .bytes = 8u << 20, .passes = 2 };
	long before, faults;

	(void)state;
	before = minor_faults();
	assert_int_equal(reclaim_touch(&job), 0);
	faults = minor_faults() - before;
	/*
	 * Each fresh page faults once (base pages only); a loop the compiler
	 * removed would fault none.
	 */
	assert_true(faults >= (long)(job.bytes / page));
}

/*
 * The VmFlags of PID's mapping of exactly BYTES into FLAGS (false while
 * there is none).
 */
static bool mapping_flags(pid_t pid, unsigned long bytes, char *flags,
			  size_t size)
{
	char path[64], line[512];
	unsigned long start, end;
	bool ours = false, found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			ours = end - start == bytes;
		else if (ours && strncmp(line, "VmFlags:", 8) == 0) {
			size_t n = strlen(line + 8);

			n = n < size ? n : size - 1;
			memcpy(flags, line + 8, n);
			flags[n] = '\0';
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The hog asks for base pages, whatever the THP mode (see reclaim_touch). */
static void test_touch_refuses_huge_pages(void **state)
{
	struct reclaim_job job = { .bytes = 24u << 20, .seconds = 2 };
	char flags[256] = "";
	int tries, status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(reclaim_touch(&job) ? 1 : 0);
	/*
	 * The mapping shows between mmap and madvise: wait for the advice,
	 * not only for the mapping, or a slow (sanitised) hog reads as no nh.
	 */
	for (tries = 0; tries < 150; tries++) {
		if (mapping_flags(pid, job.bytes, flags, sizeof(flags)) &&
		    strstr(flags, " nh"))
			break;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!strstr(flags, " nh"))
		fail_msg("the hog's mapping has VmFlags \"%s\", no nh", flags);
}

static void test_touch_by_time(void **state)
{
	struct reclaim_job job = { .bytes = 1u << 20, .seconds = 0.05 };
	struct timespec a, b;
	double elapsed;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(reclaim_touch(&job), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	elapsed = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(elapsed >= 0.05);
	assert_true(elapsed < 5);
}

static void test_touch_rejects_empty(void **state)
{
	struct reclaim_job job = { .bytes = 0, .passes = 1 };

	(void)state;
	assert_int_equal(reclaim_touch(&job), -EINVAL);
}

static void expect_failure(const struct reclaim_result *r, const char *want)
{
	char buf[128];
	const char *got = reclaim_failure(r, buf, sizeof(buf));

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	if (!strstr(got, want))
		fail_msg("\"%s\" lacks \"%s\"", got, want);
}

static void test_failure_texts(void **state)
{
	struct reclaim_result ok = { 0 };
	struct reclaim_result oom = { .term_signal = SIGKILL, .oom_killed = true };
	struct reclaim_result killed = { .term_signal = SIGSEGV };
	struct reclaim_result attach = { .exit_code = RECLAIM_EXIT_ATTACH };
	struct reclaim_result stopped = { .term_signal = SIGKILL, .interrupted = true };

	(void)state;
	expect_failure(&ok, NULL);
	expect_failure(&oom, "killed by the OOM killer");
	expect_failure(&killed, "killed by signal 11");
	expect_failure(&attach, "could not join the cgroup");
	expect_failure(&stopped, "interrupted");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_touch_faults_every_page),
		cmocka_unit_test(test_touch_refuses_huge_pages),
		cmocka_unit_test(test_touch_by_time),
		cmocka_unit_test(test_touch_rejects_empty),
		cmocka_unit_test(test_failure_texts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
