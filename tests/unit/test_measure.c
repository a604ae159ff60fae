// SPDX-License-Identifier: GPL-2.0
/* measure/check option parsing and the measure --json contract line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "json.h"
#include "check.h"
#include "measure.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_defaults(void **state)
{
	char *argv[] = { "measure", NULL };
	struct measure_opts o;

	(void)state;
	assert_int_equal(measure_parse_args(ARGC(argv), argv, &o), PARSE_RUN);
	assert_null(o.cgroup);
	assert_int_equal(o.limit, 32ULL << 20);
	assert_int_equal(o.size, 64ULL << 20);
	assert_true(o.seconds == 0);
	assert_int_equal(o.levels, PRESSURE_ALL_LEVELS);
	assert_int_equal(o.mode, PRESSURE_MODE_DEFAULT);
	assert_false(o.json);
}

static void test_size_defaults_to_twice_the_limit(void **state)
{
	char *argv[] = { "measure", "--limit", "10", NULL };
	char *argv2[] = { "measure", "-L", "10", "-s", "15", NULL };
	/* the size spellings pft takes (measure --size 64M was refused) */
	char *argv3[] = { "check", "--limit", "32M", "--size", "64M", NULL };
	struct measure_opts o;

	(void)state;
	assert_int_equal(measure_parse_args(ARGC(argv), argv, &o), PARSE_RUN);
	assert_int_equal(o.size, 20ULL << 20);
	assert_int_equal(measure_parse_args(ARGC(argv2), argv2, &o), PARSE_RUN);
	assert_int_equal(o.limit, 10ULL << 20);
	assert_int_equal(o.size, 15ULL << 20);
	assert_int_equal(check_parse_args(ARGC(argv3), argv3, &o), PARSE_RUN);
	assert_int_equal(o.limit, 32ULL << 20);
	assert_int_equal(o.size, 64ULL << 20);
}

static void test_all_options(void **state)
{
	char *argv[] = { "check", "--cgroup", "/sys/fs/cgroup/memory/x",
			 "--level", "critical", "--mode", "local",
			 "--seconds", "1.5", "--json", NULL };
	struct measure_opts o;

	(void)state;
	assert_int_equal(check_parse_args(ARGC(argv), argv, &o), PARSE_RUN);
	assert_string_equal(o.cgroup, "/sys/fs/cgroup/memory/x");
	assert_int_equal(o.levels, 1u << PRESSURE_CRITICAL);
	assert_int_equal(o.mode, PRESSURE_MODE_LOCAL);
	assert_true(o.seconds == 1.5);
	assert_true(o.json);
}

static void test_bad_values_are_usage_errors(void **state)
{
	char *bad_level[] = { "measure", "--level", "high", NULL };
	char *bad_mode[] = { "measure", "--mode", "x", NULL };
	char *zero_size[] = { "measure", "--size", "0", NULL };
	char *neg_seconds[] = { "measure", "--seconds", "-1", NULL };
	char *operand[] = { "measure", "extra", NULL };
	char *unknown[] = { "measure", "--bogus", NULL };
	char *missing[] = { "measure", "--size", NULL };
	struct measure_opts o;

	(void)state;
	assert_int_equal(measure_parse_args(ARGC(bad_level), bad_level, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(bad_mode), bad_mode, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(zero_size), zero_size, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(neg_seconds), neg_seconds, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(operand), operand, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(unknown), unknown, &o), PARSE_USAGE);
	assert_int_equal(measure_parse_args(ARGC(missing), missing, &o), PARSE_USAGE);
}

static void test_help(void **state)
{
	char *argv[] = { "check", "--json", "-h", NULL };
	struct measure_opts o;

	(void)state;
	assert_int_equal(check_parse_args(ARGC(argv), argv, &o), PARSE_HELP);
}

static char *json_of(const struct measurement *m)
{
	struct capture c;

	assert_int_equal(json_print_line(capture_open(&c), measurement_json(m)), 0);
	return capture_json_text(&c);
}

static void test_json_v1_with_module(void **state)
{
	struct measurement m = {
		.cgroup_version = 1,
		.levels = PRESSURE_ALL_LEVELS,
		.events = { 120, 7, 0 },
		.have_skipped = true,
		.skipped_delta = 0,
		.have_pgscan = true,
		.pgscan = 40960,
		.seconds = 2.5,
	};
	char *text = json_of(&m);

	(void)state;
	assert_string_equal(text,
		"{\"cgroup_version\":1,\"events\":{\"low\":120,\"medium\":7,\"critical\":0},"
		"\"skipped_delta\":0,\"pgscan\":40960,\"seconds\":2.5,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}\n");
	free(text);
}

static void test_json_v2_without_module(void **state)
{
	struct measurement m = {
		.cgroup_version = 2,
		.have_pgscan = true,
		.pgscan = 5,
		.seconds = 0.25,
	};
	char *text = json_of(&m);

	(void)state;
	assert_string_equal(text,
		"{\"cgroup_version\":2,\"events\":null,\"skipped_delta\":null,"
		"\"pgscan\":5,\"seconds\":0.25,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}\n");
	free(text);
}

static void test_json_unregistered_level_is_null(void **state)
{
	struct measurement m = {
		.cgroup_version = 1,
		.levels = 1u << PRESSURE_MEDIUM,
		.events = { 0, 3, 0 },
		.have_skipped = true,
		.skipped_delta = 77,
	};
	char *text = json_of(&m);

	(void)state;
	assert_string_equal(text,
		"{\"cgroup_version\":1,\"events\":{\"low\":null,\"medium\":3,\"critical\":null},"
		"\"skipped_delta\":77,\"pgscan\":null,\"seconds\":0.0,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}\n");
	free(text);
}

static void test_events_total(void **state)
{
	struct measurement m = { .events = { 1, 2, 3 } };

	(void)state;
	assert_int_equal(measurement_events_total(&m), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_size_defaults_to_twice_the_limit),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_bad_values_are_usage_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_json_v1_with_module),
		cmocka_unit_test(test_json_v2_without_module),
		cmocka_unit_test(test_json_unregistered_level_is_null),
		cmocka_unit_test(test_events_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
