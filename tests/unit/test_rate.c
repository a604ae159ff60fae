// SPDX-License-Identifier: GPL-2.0
/*
 * Rate lines (tools/rate.c): the format and its parser, and the reporter
 * thread: lines on time, intervals without gaps, every count reported,
 * the last short interval written at stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "rate.h"

static int parse(const char *line, struct rate_interval *out)
{
	return rate_line_parse(line, strlen(line), out);
}

static void test_format_parses_back(void **state)
{
	char line[RATE_LINE_MAX];
	struct rate_interval got;
	int len;

	(void)state;
	len = rate_line_format(line, sizeof(line), 1234567.000123, 0.25, 4711);
	assert_true(len > 0 && (size_t)len < sizeof(line));
	assert_string_equal(line,
			    "{\"t\":1234567.000123,\"interval_s\":0.250000,\"count\":4711,\"rate\":18844}\n");
	assert_int_equal(rate_line_parse(line, (size_t)len - 1, &got), 0);
	/* microseconds survive a large uptime */
	assert_true(fabs(got.t - 1234567.000123) < 1e-7);
	assert_true(got.interval_s == 0.25 && got.count == 4711);
}

static void test_parse_rules(void **state)
{
	struct rate_interval got;
	char long_line[RATE_LINE_MAX + 10];

	(void)state;
	/* other keys are ignored, reals count */
	assert_int_equal(parse("{\"t\":5,\"interval_s\":0.1,\"count\":12.5,\"unit\":\"B\"}",
			       &got), 0);
	assert_true(got.t == 5 && got.count == 12.5);
	/* not rate lines: other output of the command */
	assert_int_equal(parse("", &got), -ENOENT);
	assert_int_equal(parse("fault/wsec 123", &got), -ENOENT);
	assert_int_equal(parse("{\"fault/wsec\":123}", &got), -ENOENT);
	assert_int_equal(parse("{\"t\":1", &got), -ENOENT);
	assert_int_equal(parse("[1,2]", &got), -ENOENT);
	memset(long_line, ' ', sizeof(long_line) - 1);
	long_line[0] = '{';
	long_line[sizeof(long_line) - 1] = '\0';
	assert_int_equal(parse(long_line, &got), -ENOENT);
	/* rate lines that break the contract */
	assert_int_equal(parse("{\"t\":1,\"count\":3}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":1,\"interval_s\":0,\"count\":3}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":1,\"interval_s\":-1,\"count\":3}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":1,\"interval_s\":1,\"count\":-3}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":\"1\",\"interval_s\":1,\"count\":3}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":1,\"interval_s\":1,\"count\":null}", &got), -EINVAL);
	assert_int_equal(parse("{\"t\":1,\"t\":2,\"interval_s\":1,\"count\":3}", &got), -ENOENT);
}

static uint64_t read_counter(void *ctx)
{
	return __atomic_load_n((uint64_t *)ctx, __ATOMIC_RELAXED);
}

/* Reads every line of fd (non-blocking) and checks it as a rate line. */
static size_t check_lines(int fd, struct rate_interval *lines, size_t max)
{
	static char text[65536];
	size_t len = 0, n = 0;
	ssize_t got;
	char *line, *end;

	while ((got = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)got;
	text[len] = '\0';
	for (line = text; (end = strchr(line, '\n')) && n < max; line = end + 1)
		assert_int_equal(rate_line_parse(line, (size_t)(end - line),
						 &lines[n++]), 0);
	assert_true(*line == '\0');
	return n;
}

/*
 * 0.3 s at 20 ms: lines on their deadlines, each interval starting where
 * the last ended, the counts adding up to all the work, the part after
 * the last deadline written at stop.
 */
static void test_reporter(void **state)
{
	struct rate_interval lines[256];
	struct rate_reporter r;
	uint64_t counter = 0;
	double start, stop, sum = 0;
	int fds[2];
	size_t n;

	(void)state;
	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	start = monotonic_s();
	assert_int_equal(rate_reporter_start(&r, fds[1], 0.02, read_counter,
					     &counter), 0);
	while (monotonic_s() - start < 0.3) {
		__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		usleep(1000);
	}
	assert_int_equal(rate_reporter_stop(&r), 0);
	stop = monotonic_s();
	n = check_lines(fds[0], lines, 256);
	close(fds[0]);
	close(fds[1]);

	/* 15 deadlines; a loaded machine may merge a few */
	assert_true(n >= 5 && n <= 17);
	for (size_t i = 0; i < n; i++) {
		double begin = lines[i].t - lines[i].interval_s;

		sum += lines[i].count;
		assert_true(lines[i].t <= stop);
		if (i == 0)
			assert_true(begin >= start - 1e-3);
		else	/* printed to the microsecond */
			assert_true(fabs(begin - lines[i - 1].t) < 3e-6);
	}
	assert_true(sum == (double)counter);
	assert_true(stop - lines[n - 1].t < 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parses_back),
		cmocka_unit_test(test_parse_rules),
		cmocka_unit_test(test_reporter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
