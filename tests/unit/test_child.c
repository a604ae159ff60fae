// SPDX-License-Identifier: GPL-2.0
/*
 * The child runner (tools/child.c): the captured tail, stdin, exit
 * statuses, stops, and the watcher callbacks (output as it arrives,
 * wake-ups on time, the end a watcher asks for). Stop state is per process and sticky, so every
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
#include "clock.h"
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
	/* late enough for sh to have set its trap on a loaded machine */
	pid_t helper = send_later(SIGTERM, 1000, 0);

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
	pid_t helper = send_later(SIGTERM, 1000, 1300);

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

/* What the watcher callbacks saw. */
struct watch_log {
	char seen[4096];
	size_t seen_len;
	unsigned int wakes;
	double first_wake;
	double last_wake;
	double every_s;		/* asks to be woken this often */
	unsigned int end_after;	/* asks for the end at this wake-up; 0 never */
	bool end_after_output;	/* ... and not before some output came */
};

static void log_output(void *ctx, const char *data, size_t n)
{
	struct watch_log *log = ctx;

	if (log->seen_len + n < sizeof(log->seen)) {
		memcpy(log->seen + log->seen_len, data, n);
		log->seen_len += n;
	}
}

static bool log_wake(void *ctx, double *wake_at)
{
	struct watch_log *log = ctx;
	double now = monotonic_s();

	if (!log->wakes++)
		log->first_wake = now;
	log->last_wake = now;
	*wake_at = now + log->every_s;
	if (log->end_after_output && !log->seen_len)
		return true;
	return !(log->end_after && log->wakes >= log->end_after);
}

/*
 * on_output gets the output as it comes, before the child ends; on_wake
 * runs on time while the child sleeps, not only when it writes.
 */
static void test_watcher_sees_output_and_wakes_on_time(void **state)
{
	char *argv[] = { "sh", "-c", "echo one; sleep 0.6; echo two", NULL };
	struct watch_log log = { .every_s = 0.05 };
	struct child_spec spec = { .argv = argv, .capture_max = 1024,
				   .on_output = log_output, .on_wake = log_wake,
				   .ctx = &log };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&spec, &r), 0);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	assert_false(r.ended);
	log.seen[log.seen_len] = '\0';
	assert_string_equal(log.seen, "one\ntwo\n");
	assert_string_equal(r.out.text, "one\ntwo\n");
	/* about 0.6 s / 0.05 s wake-ups, whatever else happened */
	assert_true(log.wakes >= 6);
	assert_true(log.last_wake - log.first_wake >= 0.4);
	child_result_free(&r);
}

/* A watcher that asks for the end: SIGTERM at once, not a stop of ours. */
static void test_watcher_ends_the_child(void **state)
{
	char *argv[] = { "sleep", "10", NULL };
	struct watch_log log = { .every_s = 0.05, .end_after = 4 };
	struct child_spec spec = { .argv = argv, .capture_max = 64,
				   .on_wake = log_wake, .ctx = &log };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&spec, &r), 0);
	assert_true(r.ended && !r.stopped && !r.killed);
	assert_true(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM);
	assert_int_equal(log.wakes, 4);
	assert_true(r.wall_s < 3);
	assert_false(stop_requested());
	child_result_free(&r);
}

/* ... and SIGKILL when the child ignores it, after the grace. */
static void test_watcher_end_escalates(void **state)
{
	char *argv[] = { "sh", "-c", "trap '' TERM; echo ready; exec sleep 10",
			 NULL };
	/* "ready": the trap is set */
	struct watch_log log = { .every_s = 0.05, .end_after = 1,
				 .end_after_output = true };
	struct child_spec spec = { .argv = argv, .capture_max = 64,
				   .stop_grace_s = 0.3, .on_output = log_output,
				   .on_wake = log_wake, .ctx = &log };
	struct child_result r;

	(void)state;
	assert_int_equal(child_run(&spec, &r), 0);
	assert_true(r.ended && r.killed);
	assert_true(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL);
	assert_true(r.wall_s < 3);
	child_result_free(&r);
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
		cmocka_unit_test(test_watcher_sees_output_and_wakes_on_time),
		cmocka_unit_test(test_watcher_ends_the_child),
		cmocka_unit_test(test_watcher_end_escalates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
