// SPDX-License-Identifier: GPL-2.0
/*
 * The child runner (tools/child.c): the captured tail, stdin, exit
 * statuses, and stops. Stop state is per process and sticky, so every
 * stop scenario runs in a forked test process of its own.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "signals.h"

/* In a forked scenario: report the failed condition and exit 1. */
#define REQUIRE(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
			_exit(1);					\
		}							\
	} while (0)

/* Runs scenario() in a child process; it must exit 0. */
static void in_fork(void (*scenario)(void))
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		scenario();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A helper process that sends sig to us after each of the delays (ms). */
static pid_t send_later(int sig, int first_ms, int second_ms)
{
	pid_t target = getpid(), pid = fork();

	if (pid == 0) {
		usleep((useconds_t)first_ms * 1000);
		kill(target, sig);
		if (second_ms) {
			usleep((useconds_t)(second_ms - first_ms) * 1000);
			kill(target, sig);
		}
		_exit(0);
	}
	return pid;
}

/* The byte at position i of the pattern the writer children write. */
static char pattern(uint64_t i)
{
	return (char)('a' + (i * 7 + i / 13) % 26);
}

struct writer {
	size_t total;
	size_t chunk;
};

static int write_pattern(void *arg)
{
	const struct writer *w = arg;
	static char buf[65536];

	for (size_t done = 0; done < w->total;) {
		size_t n = w->total - done < w->chunk ? w->total - done : w->chunk;

		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(done + i);
		if (write(STDOUT_FILENO, buf, n) != (ssize_t)n)
			return 2;
		done += n;
	}
	return 0;
}

/* Whatever the sizes, the capture is exactly the last capture_max bytes. */
static void test_capture_keeps_the_tail(void **state)
{
	static const struct { size_t total, chunk, max; } cases[] = {
		{ 0, 1, 100 }, { 99, 7, 100 }, { 100, 100, 100 },
		{ 101, 1, 100 }, { 250000, 4093, 65536 }, { 250000, 8192, 999 },
		{ 70000, 65536, 70000 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct writer w = { cases[c].total, cases[c].chunk };
		struct child_spec spec = { .body = write_pattern, .arg = &w,
					   .capture_max = cases[c].max };
		struct child_result r;
		size_t kept = w.total < cases[c].max ? w.total : cases[c].max;

		assert_int_equal(child_run(&spec, &r), 0);
		assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
		assert_int_equal(r.out.total, w.total);
		assert_int_equal(r.out.len, kept);
		assert_int_equal(r.out.cut, w.total > kept);
		assert_int_equal(r.out.text[kept], '\0');
		for (size_t i = 0; i < kept; i++)
			if (r.out.text[i] != pattern(w.total - kept + i))
				fail_msg("case %zu: byte %zu is wrong", c, i);
		child_result_free(&r);
	}
}

static int read_stdin(void *arg)
{
	char c;

	(void)arg;
	return read(STDIN_FILENO, &c, 1) == 0 ? 0 : 1;
}

static int exit_seven(void *arg)
{
	(void)arg;
	return 7;
}

static void test_stdin_and_statuses(void **state)
{
	struct child_spec spec = { .body = read_stdin };
	char *missing[] = { "/nonexistent/command", NULL };
	struct child_result r;
	char why[64];

	(void)state;
	/* stdin is /dev/null: the first read is the end */
	assert_int_equal(child_run(&spec, &r), 0);
	assert_null(child_status_text(r.status, why, sizeof(why)));
	spec.body = exit_seven;
	assert_int_equal(child_run(&spec, &r), 0);
	assert_string_equal(child_status_text(r.status, why, sizeof(why)),
			    "exited with status 7");
	spec = (struct child_spec){ .argv = missing };
	assert_int_equal(child_run(&spec, &r), 0);
	assert_string_equal(child_status_text(r.status, why, sizeof(why)),
			    "exited with status 127");
}

static void stop_before_start(void)
{
	char *argv[] = { "true", NULL };
	struct child_spec spec = { .argv = argv };
	struct child_result r;

	stop_signals_install();
	raise(SIGTERM);
	REQUIRE(child_run(&spec, &r) == -EINTR);
	/* the way back to a known state runs all the same */
	spec.despite_stop = true;
	REQUIRE(child_run(&spec, &r) == 0);
	REQUIRE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	REQUIRE(!r.stopped);
}

static void test_stop_before_start(void **state)
{
	(void)state;
	in_fork(stop_before_start);
}

/* A stop is forwarded at once: sleep 10 ends by our SIGTERM. */
static void stop_forwarded(void)
{
	char *argv[] = { "sleep", "10", NULL };
	struct child_spec spec = { .argv = argv };
	struct child_result r;
	pid_t helper = send_later(SIGTERM, 200, 0);

	REQUIRE(child_run(&spec, &r) == 0);
	waitpid(helper, NULL, 0);
	REQUIRE(r.stopped && !r.killed);
	REQUIRE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	REQUIRE(r.wall_s < 3);
	REQUIRE(stop_signal() == SIGTERM);
}

static void test_stop_is_forwarded(void **state)
{
	(void)state;
	in_fork(stop_forwarded);
}

/* Other stops reach the child as SIGTERM. */
static void usr1_forwarded_as_term(void)
{
	char *argv[] = { "sleep", "10", NULL };
	struct child_spec spec = { .argv = argv };
	struct child_result r;
	pid_t helper = send_later(SIGUSR1, 200, 0);

	REQUIRE(child_run(&spec, &r) == 0);
	waitpid(helper, NULL, 0);
	REQUIRE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	REQUIRE(stop_signal() == SIGUSR1);
}

static void test_other_stops_forwarded_as_term(void **state)
{
	(void)state;
	in_fork(usr1_forwarded_as_term);
}

/* A child that ignores the stop is killed when the grace is over... */
static void stubborn_grace(void)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; exec sleep 10", NULL };
	struct child_spec spec = { .argv = argv, .stop_grace_s = 0.3 };
	struct child_result r;
	pid_t helper = send_later(SIGTERM, 300, 0);

	REQUIRE(child_run(&spec, &r) == 0);
	waitpid(helper, NULL, 0);
	REQUIRE(r.stopped && r.killed);
	REQUIRE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	REQUIRE(r.wall_s < 3);
}

static void test_stubborn_child_killed_after_grace(void **state)
{
	(void)state;
	in_fork(stubborn_grace);
}

/* ... or at once at a second stop. */
static void stubborn_second_stop(void)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; exec sleep 10", NULL };
	struct child_spec spec = { .argv = argv };
	struct child_result r;
	pid_t helper = send_later(SIGTERM, 300, 600);

	REQUIRE(child_run(&spec, &r) == 0);
	waitpid(helper, NULL, 0);
	REQUIRE(r.killed);
	REQUIRE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	/* well before the 5 s grace */
	REQUIRE(r.wall_s < CHILD_STOP_GRACE_S - 2);
}

static void test_stubborn_child_killed_at_second_stop(void **state)
{
	(void)state;
	in_fork(stubborn_second_stop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_keeps_the_tail),
		cmocka_unit_test(test_stdin_and_statuses),
		cmocka_unit_test(test_stop_before_start),
		cmocka_unit_test(test_stop_is_forwarded),
		cmocka_unit_test(test_other_stops_forwarded_as_term),
		cmocka_unit_test(test_stubborn_child_killed_after_grace),
		cmocka_unit_test(test_stubborn_child_killed_at_second_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
