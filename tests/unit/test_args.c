// SPDX-License-Identifier: GPL-2.0
/* Shared option values, stop signals and the status/watch/toggle parsers. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>


#include "args.h"
#include "commands.h"
#include "signals.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

/* One size parser: measure, check and pft take the same spellings. */
static void test_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(arg_size("t", "--size", "64", &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(arg_size("t", "--size", "64M", &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(arg_size("t", "--size", "64MiB", &v), 0);
	assert_int_equal(v, 64ULL << 20);
	assert_int_equal(arg_size("t", "--size", "1T", &v), 0);
	assert_int_equal(v, 1ULL << 40);
	assert_int_equal(arg_size("t", "--size", "1025G", &v), -EINVAL);
	assert_int_equal(arg_size("t", "--size", "1K", &v), -EINVAL);
	assert_int_equal(arg_size("t", "--size", "0", &v), -EINVAL);
	assert_int_equal(arg_size("t", "--size", "", &v), -EINVAL);
	assert_int_equal(arg_size("t", "--size", "-5", &v), -EINVAL);
}

/* One integer parser; arguments get no trailing whitespace. */
static void test_uint(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(arg_uint("t", "--runs", "7", 2, 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(arg_uint("t", "--runs", "1", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--runs", "11", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--runs", "7\n", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--runs", " 7", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--runs", "+7", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--runs", "0x7", 2, 10, &v), -EINVAL);
	assert_int_equal(arg_uint("t", "--seed", "18446744073709551616", 0,
				  UINT64_MAX, &v), -EINVAL);
}

static void test_percent(void **state)
{
	double p;

	(void)state;
	assert_int_equal(arg_percent("t", "--target", "0.2%", &p), 0);
	assert_true(p == 0.2);
	assert_int_equal(arg_percent("t", "--target", "3", &p), 0);
	assert_true(p == 3);
	assert_int_equal(arg_percent("t", "--target", "0", &p), -EINVAL);
	assert_int_equal(arg_percent("t", "--target", "-1%", &p), -EINVAL);
	assert_int_equal(arg_percent("t", "--target", "1%x", &p), -EINVAL);
}

static void test_seconds(void **state)
{
	double s;

	(void)state;
	assert_int_equal(arg_seconds("t", "--seconds", "0", &s), 0);
	assert_true(s == 0);
	assert_int_equal(arg_seconds("t", "--seconds", "2.25", &s), 0);
	assert_true(s == 2.25);
	assert_int_equal(arg_seconds("t", "--seconds", "-1", &s), -EINVAL);
	assert_int_equal(arg_seconds("t", "--seconds", "nan", &s), -EINVAL);
	assert_int_equal(arg_seconds("t", "--seconds", "inf", &s), -EINVAL);
	assert_int_equal(arg_seconds("t", "--seconds", "3s", &s), -EINVAL);
}

static void test_operands(void **state)
{
	char *none[] = { "status", NULL };
	char *one[] = { "status", "x", NULL };

	(void)state;
	assert_int_equal(arg_no_operands("status", ARGC(none), none, 1), PARSE_RUN);
	assert_int_equal(arg_no_operands("status", ARGC(one), one, 1), PARSE_USAGE);
}

/* Usage errors never touch the system: safe to run anywhere. */
static void test_command_usage_errors(void **state)
{
	char *status_bad[] = { "status", "--bogus", NULL };
	char *status_extra[] = { "status", "now", NULL };
	char *enable_extra[] = { "enable", "1", NULL };
	char *disable_bad[] = { "disable", "-x", NULL };
	char *watch_level[] = { "watch", "--level", "x", NULL };
	char *check_size[] = { "check", "--size", "-5", NULL };
	char *help[] = { "watch", "--help", NULL };

	(void)state;
	assert_int_equal(cmd_status(ARGC(status_bad), status_bad), EXIT_USAGE);
	assert_int_equal(cmd_status(ARGC(status_extra), status_extra), EXIT_USAGE);
	assert_int_equal(cmd_enable(ARGC(enable_extra), enable_extra), EXIT_USAGE);
	assert_int_equal(cmd_disable(ARGC(disable_bad), disable_bad), EXIT_USAGE);
	assert_int_equal(cmd_watch(ARGC(watch_level), watch_level), EXIT_USAGE);
	assert_int_equal(cmd_check(ARGC(check_size), check_size), EXIT_USAGE);
	assert_int_equal(cmd_watch(ARGC(help), help), 0);
}

static void test_stop_signal_sets_flag_only(void **state)
{
	(void)state;
	assert_false(stop_requested());
	stop_signals_install();
	/* would kill the test without our handler */
	raise(SIGTERM);
	assert_true(stop_requested());
	assert_int_equal(stop_signal(), SIGTERM);
	/* the first stop is the one reported; every one is counted */
	raise(SIGUSR1);
	assert_int_equal(stop_signal(), SIGTERM);
	assert_int_equal(stop_count(), 2);
	stop_signals_restore();
}

static void test_signal_names(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(stop_signal_name(SIGPIPE, buf, sizeof(buf)), "SIGPIPE");
	assert_string_equal(stop_signal_name(SIGRTMIN + 3, buf, sizeof(buf)),
			    "SIGRTMIN+3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_command_usage_errors),
		cmocka_unit_test(test_stop_signal_sets_flag_only),
		cmocka_unit_test(test_signal_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
