// SPDX-License-Identifier: GPL-2.0
/* The verdict of vmpctl check over its three phases, and its output. */
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
#include "check.h"
#include "output.h"

/* A v1 run the way the module should make it look. */
static void good_v1(struct measurement p[CHECK_PHASES])
{
	int i;

	memset(p, 0, sizeof(struct measurement) * CHECK_PHASES);
	for (i = 0; i < CHECK_PHASES; i++) {
		p[i].cgroup_version = 1;
		p[i].levels = PRESSURE_ALL_LEVELS;
		p[i].have_skipped = true;
		p[i].have_pgscan = true;
		p[i].pgscan = 30000;
		p[i].seconds = 2;
	}
	p[0].events[PRESSURE_LOW] = 40;
	p[0].events[PRESSURE_MEDIUM] = 3;
	p[1].skipped_delta = 512;
	p[2].events[PRESSURE_LOW] = 38;
}

/* The same on a kernel without memory.pressure_level. */
static void good_v2(struct measurement p[CHECK_PHASES])
{
	int i;

	good_v1(p);
	for (i = 0; i < CHECK_PHASES; i++) {
		p[i].cgroup_version = 2;
		p[i].levels = 0;
		memset(p[i].events, 0, sizeof(p[i].events));
	}
}

/* A v2 run on a kernel that counts sock_throttled, loopback TCP alongside. */
static void good_v2_sockets(struct measurement p[CHECK_PHASES])
{
	int i;

	good_v2(p);
	for (i = 0; i < CHECK_PHASES; i++) {
		p[i].have_sock_throttled = true;
		p[i].have_net = true;
		p[i].net.private_netns = true;
		p[i].net.bytes = 30000000;
		p[i].net.seconds = 3;
		p[i].net.sndbuf_max = 2626560;
		p[i].net.rcvbuf_max = 131072;
		p[i].net.retrans = 0;
	}
	p[0].sock_throttled = 41234;
	p[2].sock_throttled = 39001;
}

/* A v2 run on a kernel without sock_throttled: the tracer counted the work. */
static void good_v2_traced(struct measurement p[CHECK_PHASES])
{
	int i;

	good_v2_sockets(p);
	for (i = 0; i < CHECK_PHASES; i++) {
		p[i].have_sock_throttled = false;
		p[i].sock_throttled = 0;
		p[i].have_work_fn = true;
	}
	p[0].work_fn_runs = 48;
	p[2].work_fn_runs = 64;
}

static void expect_verdict(const struct measurement p[CHECK_PHASES], bool pass,
			   const char *reason_part)
{
	char reason[256];

	assert_int_equal(check_judge(p, reason, sizeof(reason)), pass);
	if (!strstr(reason, reason_part))
		fail_msg("reason \"%s\" lacks \"%s\"", reason, reason_part);
}

static void test_pass_with_events(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	expect_verdict(p, true, "events while enabled (43, 38), none while disabled (skipped +512)");
}

static void test_pass_through_skipped_alone(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2(p);
	expect_verdict(p, true, "verified through skipped alone (+512 while disabled");
}

static void test_fail_events_while_disabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	p[1].events[PRESSURE_CRITICAL] = 1;
	expect_verdict(p, false, "disabled: 1 pressure events while short-circuited");
}

static void test_fail_no_events_while_enabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	memset(p[0].events, 0, sizeof(p[0].events));
	expect_verdict(p, false, "enabled: no pressure events");
	good_v1(p);
	memset(p[2].events, 0, sizeof(p[2].events));
	expect_verdict(p, false, "re-enabled: no pressure events");
}

static void test_fail_skipped_not_growing(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	p[1].skipped_delta = 0;
	expect_verdict(p, false, "disabled: skipped did not grow");
	good_v2(p);
	p[1].skipped_delta = 0;
	expect_verdict(p, false, "disabled: skipped did not grow");
}

static void test_fail_skipped_growing_while_stock(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	p[2].skipped_delta = 4;
	expect_verdict(p, false, "re-enabled: skipped grew by 4 while stock");
}

static void test_fail_without_reclaim(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2(p);
	p[0].pgscan = 0;
	expect_verdict(p, false, "enabled: no pages scanned");
}

static void test_unknown_pgscan_does_not_fail(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	p[1].have_pgscan = false;
	p[1].pgscan = 0;
	expect_verdict(p, true, "events while enabled");
}

static void test_fail_without_module(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v1(p);
	p[0].have_skipped = false;
	expect_verdict(p, false, "enabled: no skipped count");
}

/* count_skipped=0: the kernel's evidence alone, and never a made-up count. */
static void test_uncounted_judged_by_kernel(void **state)
{
	struct measurement p[CHECK_PHASES];
	int i;

	(void)state;
	good_v1(p);
	for (i = 0; i < CHECK_PHASES; i++) {
		p[i].have_skipped = false;
		p[i].skipped_delta = 0;
	}
	expect_verdict(p, true, "none while disabled (skipped not counted)");
	p[1].events[PRESSURE_LOW] = 2;
	expect_verdict(p, false, "disabled: 2 pressure events while short-circuited");
	good_v2(p);
	for (i = 0; i < CHECK_PHASES; i++)
		p[i].have_skipped = false;
	expect_verdict(p, false, "no skipped count (module not loaded, or count_skipped=0) and no evidence");
}

static void test_pass_with_sock_throttled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_sockets(p);
	expect_verdict(p, true, "sock_throttled +41234, +39001), never while disabled (skipped +512)");
}

static void test_fail_sock_throttled_while_disabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_sockets(p);
	p[1].sock_throttled = 1;
	expect_verdict(p, false, "disabled: sock_throttled grew by 1 while short-circuited");
}

static void test_fail_sock_throttled_still_while_enabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_sockets(p);
	p[0].sock_throttled = 0;
	expect_verdict(p, false, "enabled: sock_throttled did not move");
	good_v2_sockets(p);
	p[2].sock_throttled = 0;
	expect_verdict(p, false, "re-enabled: sock_throttled did not move");
	good_v2_sockets(p);
	p[1].have_sock_throttled = false;
	expect_verdict(p, false, "disabled: no sock_throttled count");
}

static void test_pass_with_work_traced(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_traced(p);
	expect_verdict(p, true, "work ran while enabled (48, 64 times, the kernel's function tracer), never while disabled (skipped +512)");
}

/* What count_only=1 would look like: skipped grows, the work still runs. */
static void test_fail_work_traced_while_disabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_traced(p);
	p[1].work_fn_runs = 51;
	expect_verdict(p, false, "disabled: vmpressure's work ran 51 times while short-circuited");
}

static void test_fail_work_not_traced_while_enabled(void **state)
{
	struct measurement p[CHECK_PHASES];

	(void)state;
	good_v2_traced(p);
	p[2].work_fn_runs = 0;
	expect_verdict(p, false, "re-enabled: vmpressure's work never ran");
	good_v2_traced(p);
	p[1].have_work_fn = false;
	expect_verdict(p, false, "disabled: no count of vmpressure's work");
}

static char *capture_table(const struct measurement p[CHECK_PHASES], size_t n)
{
	struct capture c;

	check_print_table(capture_open(&c), p, n);
	return capture_text(&c);
}

static void test_table(void **state)
{
	struct measurement p[CHECK_PHASES];
	struct measure_opts opts;
	char *text;

	(void)state;
	good_v1(p);
	text = capture_table(p, CHECK_PHASES);
	assert_string_equal(text,
		"phase       knob  low  medium  critical  skipped  pgscan  seconds\n"
		"enabled        1   40       3         0        0   30000     2.00\n"
		"disabled       0    0       0         0      512   30000     2.00\n"
		"re-enabled     1   38       0         0        0   30000     2.00\n");
	free(text);
	good_v2(p);
	text = capture_table(p, 1);
	assert_string_equal(text,
		"phase    knob  low  medium  critical  skipped  pgscan  seconds\n"
		"enabled     1    -       -         -        0   30000     2.00\n");
	free(text);
	good_v2_sockets(p);
	text = capture_table(p, CHECK_PHASES);
	assert_string_equal(text,
		"phase       knob  sock_throttled  work  skipped  pgscan  TCP MB/s   sndbuf  retrans  seconds\n"
		"enabled        1           41234     -        0   30000     10.00  2626560        0     2.00\n"
		"disabled       0               0     -      512   30000     10.00  2626560        0     2.00\n"
		"re-enabled     1           39001     -        0   30000     10.00  2626560        0     2.00\n");
	free(text);
	good_v2_traced(p);
	text = capture_table(p, CHECK_PHASES);
	assert_string_equal(text,
		"phase       knob  sock_throttled  work  skipped  pgscan  TCP MB/s   sndbuf  retrans  seconds\n"
		"enabled        1               -    48        0   30000     10.00  2626560        0     2.00\n"
		"disabled       0               -     0      512   30000     10.00  2626560        0     2.00\n"
		"re-enabled     1               -    64        0   30000     10.00  2626560        0     2.00\n");
	free(text);
	/* rcvbuf when --output names it */
	assert_int_equal(check_parse_args(3, (char *[]){ "check", "--output", "phase,rcvbuf", NULL },
					  &opts), PARSE_RUN);
	text = capture_table(p, 1);
	assert_string_equal(text, "phase    rcvbuf\nenabled  131072\n");
	free(text);
	table_format.columns = NULL;
}

/*
 * The widest figures a check can print: eight digits of every counter,
 * five of MB/s, an 8 MiB send buffer, a long run. The table stays within
 * TABLE_WIDTH, as its default columns were chosen to.
 */
static void test_table_fits_width(void **state)
{
	struct measurement p[CHECK_PHASES];
	char *text;

	(void)state;
	good_v2_sockets(p);
	for (int i = 0; i < CHECK_PHASES; i++) {
		p[i].sock_throttled = 99999999;
		p[i].have_work_fn = true;
		p[i].work_fn_runs = 99999999;
		p[i].skipped_delta = 99999999;
		p[i].pgscan = 99999999;
		p[i].net.bytes = 99999ULL * 1000000 * 3;
		p[i].net.sndbuf_max = 8388608;
		p[i].net.rcvbuf_max = 8388608;
		p[i].net.retrans = 99999999;
		p[i].seconds = 99999.99;
	}
	text = capture_table(p, CHECK_PHASES);
	assert_true(capture_widest_line(text) <= TABLE_WIDTH);
	free(text);
}

static void test_json(void **state)
{
	struct measurement p[CHECK_PHASES];
	struct capture c;
	char *text;

	(void)state;
	good_v2(p);
	assert_int_equal(check_print_json(capture_open(&c), p, false,
					  "a \"quoted\" reason"), 0);
	text = capture_json_text(&c);
	assert_string_equal(text,
		"{\"phases\":["
		"{\"phase\":\"enabled\",\"knob\":1,\"measurement\":{\"cgroup_version\":2,\"events\":null,\"skipped_delta\":0,\"pgscan\":30000,\"seconds\":2.0,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}},"
		"{\"phase\":\"disabled\",\"knob\":0,\"measurement\":{\"cgroup_version\":2,\"events\":null,\"skipped_delta\":512,\"pgscan\":30000,\"seconds\":2.0,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}},"
		"{\"phase\":\"re-enabled\",\"knob\":1,\"measurement\":{\"cgroup_version\":2,\"events\":null,\"skipped_delta\":0,\"pgscan\":30000,\"seconds\":2.0,\"sock_throttled\":null,\"work_fn_runs\":null,\"net\":null}}"
		"],\"pass\":false,\"reason\":\"a \\\"quoted\\\" reason\"}\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_with_events),
		cmocka_unit_test(test_pass_through_skipped_alone),
		cmocka_unit_test(test_uncounted_judged_by_kernel),
		cmocka_unit_test(test_fail_events_while_disabled),
		cmocka_unit_test(test_fail_no_events_while_enabled),
		cmocka_unit_test(test_fail_skipped_not_growing),
		cmocka_unit_test(test_fail_skipped_growing_while_stock),
		cmocka_unit_test(test_fail_without_reclaim),
		cmocka_unit_test(test_unknown_pgscan_does_not_fail),
		cmocka_unit_test(test_fail_without_module),
		cmocka_unit_test(test_pass_with_sock_throttled),
		cmocka_unit_test(test_fail_sock_throttled_while_disabled),
		cmocka_unit_test(test_fail_sock_throttled_still_while_enabled),
		cmocka_unit_test(test_pass_with_work_traced),
		cmocka_unit_test(test_fail_work_traced_while_disabled),
		cmocka_unit_test(test_fail_work_not_traced_while_enabled),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fits_width),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
