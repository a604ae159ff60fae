// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab: option parsing, block order, metric capture, reclaim counters,
 * sanity warnings, the report, and whole runs against a scratch knob file;
 * --interleave runs against one too, with this program as the workload
 * ("rate-workload": rate lines at a rate set by the knob's value).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "ab/ab.h"
#include "ab/result.h"
#include "ab/session.h"
#include "commands.h"
#include "capture.h"
#include "clock.h"
#include "rate.h"

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static enum parse_result parse(struct ab_options *o, const char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return ab_parse_args(argc, (char **)argv, o);
}

static void test_parse_defaults_and_command(void **state)
{
	const char *plain[] = { "ab", "--", "sleep", "1", NULL };
	const char *no_dashes[] = { "ab", "-n", "3", "ls", "-l", NULL };
	struct ab_options o;

	(void)state;
	assert_int_equal(parse(&o, plain), PARSE_RUN);
	assert_int_equal(o.runs, AB_RUNS_DEFAULT);
	assert_int_equal(o.warmup, AB_WARMUP_DEFAULT);
	assert_int_equal(o.order, AB_ORDER_ABBA);
	assert_null(o.knob);
	assert_string_equal(o.value_a, "1");
	assert_string_equal(o.value_b, "0");
	assert_null(o.metric_regex);
	assert_true(o.max_time_s == 0);
	assert_int_equal(o.format, AB_FORMAT_TABLE);
	assert_string_equal(o.cmd[0], "sleep");
	assert_string_equal(o.cmd[1], "1");
	assert_null(o.cmd[2]);
	ab_options_free(&o);

	/* CMD's own options stay CMD's */
	assert_int_equal(parse(&o, no_dashes), PARSE_RUN);
	assert_int_equal(o.runs, 3);
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-l");
	ab_options_free(&o);
}

static void test_parse_all_options(void **state)
{
	const char *argv[] = {
		"ab", "--runs", "7", "--warmup", "0", "--order", "random",
		"--seed", "42", "--metric", "x=([0-9]+)", "--higher-is-better",
		"--target", "0.2%", "--until-precision", "1", "--knob",
		"/tmp/k", "--a", "some", "--b", "full", "--csv", "--quiet",
		"--", "true", NULL
	};
	struct ab_options o;

	(void)state;
	assert_int_equal(parse(&o, argv), PARSE_RUN);
	assert_int_equal(o.runs, 7);
	assert_int_equal(o.warmup, 0);
	assert_int_equal(o.order, AB_ORDER_RANDOM);
	assert_true(o.seed_given);
	assert_int_equal(o.seed, 42);
	assert_string_equal(o.metric_regex, "x=([0-9]+)");
	assert_true(o.higher_is_better);
	assert_true(fabs(o.target_pct - 0.2) < 1e-12);
	assert_true(o.precision_pct == 1);
	assert_true(o.max_time_s == AB_MAX_TIME_DEFAULT);
	assert_string_equal(o.knob, "/tmp/k");
	assert_string_equal(o.value_a, "some");
	assert_string_equal(o.value_b, "full");
	assert_int_equal(o.format, AB_FORMAT_CSV);
	assert_true(o.quiet);
	assert_string_equal(o.cmd[0], "true");
	ab_options_free(&o);
}

static void test_parse_errors(void **state)
{
	const char *no_cmd[] = { "ab", "-n", "3", NULL };
	const char *one_run[] = { "ab", "-n", "1", "--", "true", NULL };
	const char *bad_order[] = { "ab", "-o", "abab", "--", "true", NULL };
	const char *hib[] = { "ab", "-H", "--", "true", NULL };
	const char *bad_re[] = { "ab", "-M", "(", "--", "true", NULL };
	const char *same[] = { "ab", "--a", "0", "--", "true", NULL };
	const char *bad_pct[] = { "ab", "--target", "-1%", "--", "true", NULL };
	const char *bad_pct2[] = { "ab", "--target", "1%x", "--", "true", NULL };
	const char *unknown[] = { "ab", "--bogus", "--", "true", NULL };
	const char *no_value[] = { "ab", "--runs", NULL };
	const char *two_ways[] = { "ab", "-k", "/tmp/k", "-S", "x", "--",
				   "true", NULL };
	const char *bad_name[] = { "ab", "-M", "x", "-N", "a,b", "--", "true",
				   NULL };
	const char *empty_value[] = { "ab", "--b", "", "--", "true", NULL };
	const char *two_lines[] = { "ab", "--a", "1\n0", "--", "true", NULL };
	const char *runs_space[] = { "ab", "-n", "3 ", "--", "true", NULL };
	/* short options that meant something else in another command */
	const char *seed_short[] = { "ab", "-s", "1", "--", "true", NULL };
	const char *target_short[] = { "ab", "-t", "1%", "--", "true", NULL };
	const char *csv_short[] = { "ab", "-c", "--", "true", NULL };
	const char *metric_short[] = { "ab", "-m", "x", "--", "true", NULL };
	const char **cases[] = { no_cmd, one_run, bad_order, hib, bad_re, same,
				 bad_pct, bad_pct2, unknown, no_value,
				 two_ways, bad_name, empty_value, two_lines,
				 runs_space, seed_short, target_short,
				 csv_short, metric_short };
	struct ab_options o;

	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(cases); i++)
		assert_int_equal(parse(&o, cases[i]), PARSE_USAGE);
}

static void test_parse_interleave(void **state)
{
	const char *plain[] = { "ab", "--interleave", "0.5", "--", "w", NULL };
	const char *given[] = { "ab", "--interleave", "2", "--max-flip", "0.1",
				"-o", "random", "-N", "faults", "-H", "--a", "1",
				"--b", "1", "--settle", "0.5", "--start-timeout",
				"30", "--", "w", NULL };
	const char *lower[] = { "ab", "--interleave", "1", "--lower-is-better",
				"--", "w", NULL };
	const char *both_ways[] = { "ab", "--interleave", "1", "-H",
				    "--lower-is-better", "--", "w", NULL };
	const char *abba[] = { "ab", "--interleave", "2", "-o", "abba", "--",
			       "w", NULL };
	const char *no_flip[] = { "ab", "--interleave", "2", "--max-flip", "0",
				  "--", "w", NULL };
	const char *settle_all[] = { "ab", "--interleave", "2", "--settle", "2",
				     "--", "w", NULL };
	const char *no_start[] = { "ab", "--interleave", "2", "--start-timeout",
				   "0", "--", "w", NULL };
	const char *settle_whole[] = { "ab", "--settle", "1", "--", "w", NULL };
	const char *timeout_whole[] = { "ab", "--start-timeout", "1", "--", "w",
					NULL };
	const char *long_whole[] = { "ab", "--long-every", "3", "--", "w", NULL };
	const char *long_one[] = { "ab", "--interleave", "1", "--long-every",
				   "1", "--", "w", NULL };
	const char *with_metric[] = { "ab", "--interleave", "1", "-M", "x",
				      "--", "w", NULL };
	const char *flip_alone[] = { "ab", "--max-flip", "0.1", "--", "w",
				     NULL };
	const char *zero[] = { "ab", "--interleave", "0", "--", "w", NULL };
	const char *huge[] = { "ab", "--interleave", "3601", "--", "w", NULL };
	const char *same_whole[] = { "ab", "--a", "1", "--b", "1", "--", "w",
				     NULL };
	struct ab_options o;

	(void)state;
	assert_int_equal(parse(&o, plain), PARSE_RUN);
	assert_true(o.interleave_s == 0.5);
	/* random pairs, a quarter of the slice for a flip, the rate */
	assert_int_equal(o.order, AB_ORDER_RANDOM);
	assert_true(o.max_flip_s == 0.125);
	assert_true(o.settle_s == 0);
	assert_true(o.start_timeout_s == AB_START_TIMEOUT_DEFAULT);
	assert_string_equal(o.metric_name, "rate");
	/* a rate: higher is better unless told */
	assert_true(o.higher_is_better);
	ab_options_free(&o);
	assert_int_equal(parse(&o, lower), PARSE_RUN);
	assert_false(o.higher_is_better);
	ab_options_free(&o);
	assert_int_equal(parse(&o, both_ways), PARSE_USAGE);

	/* -H needs no --metric here; A = B is an A/A run */
	assert_int_equal(parse(&o, given), PARSE_RUN);
	assert_int_equal(o.order, AB_ORDER_RANDOM);
	assert_true(o.max_flip_s == 0.1);
	assert_true(o.settle_s == 0.5);
	assert_true(o.start_timeout_s == 30);
	assert_string_equal(o.metric_name, "faults");
	assert_true(o.higher_is_better);
	assert_string_equal(o.value_a, o.value_b);
	ab_options_free(&o);

	assert_int_equal(parse(&o, with_metric), PARSE_USAGE);
	assert_int_equal(parse(&o, flip_alone), PARSE_USAGE);
	assert_int_equal(parse(&o, zero), PARSE_USAGE);
	assert_int_equal(parse(&o, huge), PARSE_USAGE);
	assert_int_equal(parse(&o, same_whole), PARSE_USAGE);
	/* abba's period of four slices aliases periodic load into B - A */
	assert_int_equal(parse(&o, abba), PARSE_USAGE);
	/* no flip is that fast: every pair would be dropped, forever */
	assert_int_equal(parse(&o, no_flip), PARSE_USAGE);
	assert_int_equal(parse(&o, settle_all), PARSE_USAGE);
	assert_int_equal(parse(&o, no_start), PARSE_USAGE);
	assert_int_equal(parse(&o, settle_whole), PARSE_USAGE);
	assert_int_equal(parse(&o, timeout_whole), PARSE_USAGE);
	assert_int_equal(parse(&o, long_whole), PARSE_USAGE);
	assert_int_equal(parse(&o, long_one), PARSE_USAGE);
}

static void test_schedule_abba(void **state)
{
	static const enum ab_arm want[] = { AB_ARM_A, AB_ARM_B, AB_ARM_B,
		AB_ARM_A, AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A };
	struct ab_schedule s;
	enum ab_arm arms[2];

	(void)state;
	assert_int_equal(ab_schedule_init(&s, AB_ORDER_ABBA, 0), 0);
	for (size_t i = 0; i < N_ELEMENTS(want); i += 2) {
		ab_schedule_next(&s, arms);
		assert_int_equal(arms[0], want[i]);
		assert_int_equal(arms[1], want[i + 1]);
	}
	ab_schedule_free(&s);
}

static void expect_block(struct ab_schedule *s, enum ab_arm first)
{
	enum ab_arm arms[2];

	ab_schedule_next(s, arms);
	assert_int_equal(arms[0], first);
	assert_int_not_equal(arms[1], first);
}

/* A whole run's limit is finite whatever was given: a hung run ends. */
static void test_run_timeout(void **state)
{
	struct ab_session s = { .max_time_end_s = INFINITY };

	(void)state;
	/* no -T, no run ended yet: the fixed default */
	assert_true(ab_run_timeout(&s, 0) == AB_FIRST_RUN_TIMEOUT_S);
	/* then 10 times the longest run, at least a minute */
	s.longest_run_s = 1;
	assert_true(ab_run_timeout(&s, 0) == AB_RUN_TIMEOUT_MIN_S);
	s.longest_run_s = 100;
	assert_true(ab_run_timeout(&s, 0) == 1000);
	/* -T: until its end before any run ended, and never before it */
	s.max_time_end_s = 500;
	s.longest_run_s = 0;
	assert_true(ab_run_timeout(&s, 100) == 400);
	s.longest_run_s = 1;
	assert_true(ab_run_timeout(&s, 100) == 400);
	assert_true(ab_run_timeout(&s, 600) == 10);
	/* --run-timeout rules */
	s.opts.run_timeout_s = 2;
	assert_true(ab_run_timeout(&s, 100) == 2);
}

/* A dropped block's order runs again: the kept blocks still go AB, BA, ... */
static void test_schedule_repeat(void **state)
{
	struct ab_schedule s, r;
	enum ab_arm lost[2], arms[2];

	(void)state;
	/* ABBA, its second block (BA) dropped: AB, BA (lost), BA, AB, BA */
	assert_int_equal(ab_schedule_init(&s, AB_ORDER_ABBA, 0), 0);
	expect_block(&s, AB_ARM_A);
	expect_block(&s, AB_ARM_B);
	ab_schedule_repeat(&s);
	expect_block(&s, AB_ARM_B);
	expect_block(&s, AB_ARM_A);
	expect_block(&s, AB_ARM_B);
	ab_schedule_free(&s);
	/* random: the lost order again, then the draws as without the drop */
	assert_int_equal(ab_schedule_init(&s, AB_ORDER_RANDOM, 7), 0);
	assert_int_equal(ab_schedule_init(&r, AB_ORDER_RANDOM, 7), 0);
	for (int i = 0; i < 16; i++) {
		ab_schedule_next(&s, lost);
		ab_schedule_repeat(&s);
		expect_block(&s, lost[0]);
		ab_schedule_next(&r, arms);
		assert_int_equal(arms[0], lost[0]);
	}
	ab_schedule_free(&s);
	ab_schedule_free(&r);
}

static unsigned int random_pattern(unsigned long seed)
{
	struct ab_schedule s;
	enum ab_arm arms[2];
	unsigned int bits = 0;

	assert_int_equal(ab_schedule_init(&s, AB_ORDER_RANDOM, seed), 0);
	for (int i = 0; i < 32; i++) {
		ab_schedule_next(&s, arms);
		assert_int_not_equal(arms[0], arms[1]);
		bits = bits << 1 | (arms[0] == AB_ARM_B);
	}
	ab_schedule_free(&s);
	return bits;
}

static void test_schedule_random(void **state)
{
	unsigned int p = random_pattern(42);

	(void)state;
	/* reproducible from the seed, different for another seed */
	assert_int_equal(p, random_pattern(42));
	assert_int_not_equal(p, random_pattern(43));
	/* both block orders occur, and it is not ABBA's alternation */
	assert_int_not_equal(p, 0);
	assert_int_not_equal(p, 0xffffffffu);
	assert_int_not_equal(p, 0x55555555u);
	assert_int_not_equal(p, 0xaaaaaaaau);
}

static void test_extract_metric(void **state)
{
	const char *pft_json =
		"{\"Gb\":0.25,\"Rep\":1,\"flt/cpu/s\":612345.5,\"fault/wsec\":598765.25,\"pages\":65536}\n";
	regex_t re;
	double v;

	(void)state;
	assert_int_equal(regcomp(&re, "\"fault/wsec\":([0-9.]+)", REG_EXTENDED), 0);
	assert_int_equal(ab_extract_metric(&re, pft_json, &v), 0);
	assert_true(v == 598765.25);
	assert_int_equal(ab_extract_metric(&re, "no such thing", &v), -ENOENT);
	regfree(&re);

	/* no group: the whole match */
	assert_int_equal(regcomp(&re, "[0-9]+\\.[0-9]+", REG_EXTENDED), 0);
	assert_int_equal(ab_extract_metric(&re, "took 1.25 s, 3.5 s", &v), 0);
	assert_true(v == 1.25);
	regfree(&re);

	/* a match that is not a number */
	assert_int_equal(regcomp(&re, "time: ([a-z]+)", REG_EXTENDED), 0);
	assert_int_equal(ab_extract_metric(&re, "time: soon", &v), -EINVAL);
	regfree(&re);

	/* hackbench prints "Time: 1.234" */
	assert_int_equal(regcomp(&re, "Time: ([0-9.]+)", REG_EXTENDED), 0);
	assert_int_equal(ab_extract_metric(&re,
		"Running in process mode with 10 groups\nTime: 0.712\n", &v), 0);
	assert_true(v == 0.712);
	regfree(&re);
}

static void test_parse_reclaim(void **state)
{
	const char *v61 = "nr_free_pages 1000\npgscan_kswapd 5\npgscan_direct 7\n"
		"pgscan_khugepaged 0\npgscan_direct_throttle 0\npgscan_anon 300\n"
		"pgscan_file 20\npgsteal_kswapd 4\npgsteal_direct 6\n"
		"pgsteal_anon 250\npgsteal_file 15\n";
	const char *old = "pgsteal_kswapd 4\npgsteal_direct 6\npgscan_kswapd 5\n"
		"pgscan_direct 7\n";
	uint64_t scan, steal;

	(void)state;
	/* memcg limit reclaim shows in pgscan_anon/file, not kswapd/direct */
	assert_int_equal(ab_parse_reclaim(v61, &scan, &steal), 0);
	assert_int_equal(scan, 320);
	assert_int_equal(steal, 265);
	assert_int_equal(ab_parse_reclaim(old, &scan, &steal), 0);
	assert_int_equal(scan, 12);
	assert_int_equal(steal, 10);
	assert_int_equal(ab_parse_reclaim("nr_free_pages 1\n", &scan, &steal),
			 -ENOENT);
}

static void test_run_warnings(void **state)
{
	struct ab_run run = {
		.arm = AB_ARM_B, .have_reclaim = true, .pgscan = 1000,
		.have_skipped = true, .skipped = 50,
	};

	(void)state;
	assert_int_equal(ab_run_warnings(&run, true), 0);
	run.skipped = 0;
	assert_int_equal(ab_run_warnings(&run, true), AB_WARN_B_NOT_SKIPPED);
	run.pgscan = 0;
	assert_int_equal(ab_run_warnings(&run, true), AB_WARN_NO_RECLAIM);
	run.arm = AB_ARM_A;
	run.pgscan = 1000;
	assert_int_equal(ab_run_warnings(&run, true), 0);
	run.skipped = 3;
	assert_int_equal(ab_run_warnings(&run, true), AB_WARN_A_SKIPPED);
	/* module not loaded: no skipped to judge by */
	run.have_skipped = false;
	assert_int_equal(ab_run_warnings(&run, true), 0);
	/* another knob: vmpressure's sanity does not apply */
	run.pgscan = 0;
	assert_int_equal(ab_run_warnings(&run, false), 0);
}

/* Arm A around 100 (lower is better), arm B 10% higher. */
static size_t make_runs(struct ab_run *runs, size_t per_arm)
{
	size_t n = 0;

	for (size_t i = 0; i < per_arm; i++) {
		double jitter = (double)(i % 3) - 1.0;

		runs[n++] = (struct ab_run){
			.arm = AB_ARM_A, .wall_s = 100 + jitter, .user_s = 10,
			.sys_s = 90 + jitter, .metric = 500 + jitter,
			.have_reclaim = true, .pgscan = 100,
			.have_skipped = true, .skipped = 0,
			.knob_toggled = i > 0, .knob_write_s = 0.002 * (i + 1),
		};
		runs[n++] = (struct ab_run){
			.arm = AB_ARM_B, .wall_s = 110 + jitter,
			.user_s = 10 + 0.1 * jitter, .sys_s = 100 + jitter,
			.metric = 550 + jitter, .have_reclaim = true,
			.pgscan = i == 0 ? 0 : 100, .have_skipped = true,
			.skipped = i == 1 ? 0 : 40,
			.knob_toggled = true, .knob_write_s = 0.001 * (i + 1),
		};
	}
	return n;
}

static void test_build_report(void **state)
{
	const char *argv[] = { "ab", "-M", "v=([0-9]+)", "-N", "v", "-H",
			       "--target", "2%", "--", "true", NULL };
	struct ab_run runs[12];
	size_t n = make_runs(runs, 6);
	struct ab_report r;
	struct ab_options o;
	struct stats_comparison direct;
	double a[6], b[6];

	(void)state;
	assert_int_equal(parse(&o, argv), PARSE_RUN);
	assert_int_equal(ab_build_report(&o, runs, n, &r), 0);
	assert_int_equal(r.n_metrics, 4);
	assert_int_equal(r.metrics[0].id, AB_METRIC_CUSTOM);
	assert_string_equal(r.metrics[0].name, "v");
	assert_int_equal(r.metrics[1].id, AB_METRIC_WALL);

	/* the report's numbers are stats_compare's on the arm split */
	for (size_t i = 0; i < 6; i++) {
		a[i] = runs[2 * i].wall_s;
		b[i] = runs[2 * i + 1].wall_s;
	}
	assert_int_equal(stats_compare(a, 6, b, 6, &direct), 0);
	assert_true(r.metrics[1].cmp.diff_pct == direct.diff_pct);
	assert_true(r.metrics[1].cmp.welch_p == direct.welch_p);
	assert_true(fabs(r.metrics[1].cmp.diff_pct - 10.0) < 1e-9);
	/* pairs needed by the design's test: 2 runs per arm a block */
	assert_true(r.metrics[1].paired);
	assert_int_equal(r.metrics[1].runs_needed,
			 2 * stats_log_needed(r.metrics[1].contrast.sd, 2,
					      STATS_TEST_T));

	/* B is 10% higher: better for the metric, worse for the times */
	assert_string_equal(ab_verdict(&r.metrics[0]), "B better");
	assert_string_equal(ab_verdict(&r.metrics[1]), "B worse");
	assert_string_equal(ab_verdict(&r.metrics[2]), "~");

	assert_int_equal(r.runs_without_reclaim, 1);
	assert_int_equal(r.b_runs_not_skipped, 1);
	assert_int_equal(r.a_runs_skipped, 0);

	/* toggles: every B write (1..6 ms), A's but the first (4..12 ms) */
	assert_int_equal(r.toggle_to_b.n, 6);
	assert_true(fabs(r.toggle_to_b.median - 0.0035) < 1e-12);
	assert_true(fabs(r.toggle_to_b.max - 0.006) < 1e-12);
	assert_int_equal(r.toggle_to_a.n, 5);
	assert_true(fabs(r.toggle_to_a.median - 0.008) < 1e-12);

	assert_int_equal(ab_build_report(&o, runs, 3, &r), -EINVAL);
	ab_options_free(&o);
}

/*
 * Every metric printed gets a verdict, so Holm's family is all four: a
 * metric whose own design p (0.038) is below 0.05 is not marked when its
 * Holm p across the four (0.15) is not. welch_p_holm is Welch's p under
 * Holm, as its name says; the design's is p_holm.
 */
static void test_verdict_uses_holm(void **state)
{
	static const double a[] = { 10, 11, 12, 10, 11, 12 };
	static const double b[] = { 11.5, 12.5, 13.5, 11, 12, 12.5 };
	const char *argv[] = { "ab", "-M", "v=([0-9.]+)", "--", "true", NULL };
	double p[4], welch[4], adjusted[4], welch_adjusted[4];
	struct ab_run runs[12];
	struct ab_report r;
	struct ab_options o;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		/* the times are alike in both arms */
		runs[2 * i] = (struct ab_run){ .arm = AB_ARM_A, .metric = a[i],
			.wall_s = 1 + 0.1 * (double)i, .user_s = 0.5 + 0.01 * (double)i,
			.sys_s = 0.5 + 0.02 * (double)i };
		runs[2 * i + 1] = runs[2 * i];
		runs[2 * i + 1].arm = AB_ARM_B;
		runs[2 * i + 1].metric = b[i];
	}
	assert_int_equal(parse(&o, argv), PARSE_RUN);
	assert_int_equal(ab_build_report(&o, runs, 12, &r), 0);
	assert_int_equal(r.n_metrics, 4);
	assert_int_equal(r.n_named, 4);
	assert_true(r.metrics[0].paired);
	assert_true(r.metrics[0].blocks.p < 0.05);
	for (size_t i = 0; i < 4; i++) {
		p[i] = r.metrics[i].blocks.p;
		welch[i] = r.metrics[i].cmp.welch_p;
	}
	stats_holm(p, 4, adjusted);
	stats_holm(welch, 4, welch_adjusted);
	for (size_t i = 0; i < 4; i++) {
		assert_true(r.metrics[i].p_holm == adjusted[i]);
		assert_true(r.metrics[i].welch_p_holm == welch_adjusted[i]);
		assert_false(r.metrics[i].significant);
		assert_string_equal(ab_verdict(&r.metrics[i]), "~");
	}
	assert_true(r.metrics[0].p_holm > 0.05);
	ab_options_free(&o);
}

/*
 * Whole runs in ABBA blocks on a machine whose level wanders by +-30%
 * from block to block while B is 2% slower within each: the unpaired
 * test sees only the wandering, the design's pairs see the 2%.
 */
static void test_blocks_pair_the_runs(void **state)
{
	const char *argv[] = { "ab", "-M", "v=([0-9.]+)", "--", "true", NULL };
	struct ab_run runs[20];
	struct ab_report r;
	struct ab_options o;
	const struct ab_metric_report *m = &r.metrics[0];

	(void)state;
	for (size_t i = 0; i < 10; i++) {
		double level = 100 * (1 + 0.3 * sin(1.7 * (double)i));
		double wobble = 0.1 * (double)(i % 3);
		bool b_first = i % 2 == 1;

		runs[2 * i] = (struct ab_run){ .arm = b_first ? AB_ARM_B : AB_ARM_A,
			.wall_s = 1, .user_s = 1, .sys_s = 1 };
		runs[2 * i + 1] = runs[2 * i];
		runs[2 * i + 1].arm = b_first ? AB_ARM_A : AB_ARM_B;
		runs[2 * i + (b_first ? 1 : 0)].metric = level;
		runs[2 * i + (b_first ? 0 : 1)].metric = 1.02 * level + wobble;
	}
	assert_int_equal(parse(&o, argv), PARSE_RUN);
	assert_int_equal(ab_build_report(&o, runs, 20, &r), 0);
	assert_true(m->paired);
	/* ABBA blocks: two pairs each */
	assert_int_equal(m->blocks.n, 5);
	assert_true(m->cmp.welch_p > 0.5);
	assert_true(m->blocks.p < 1e-6);
	assert_true(m->blocks.mde_pct < m->cmp.mde_pct / 10);
	assert_true(m->significant);
	assert_string_equal(ab_verdict(m), "B worse");
	ab_options_free(&o);
}

static char *capture(enum ab_format format, const struct ab_report *r)
{
	struct ab_result result;
	struct capture c;

	ab_result_of_runs(r, &result);
	assert_int_equal(ab_result_print_as(capture_open(&c), &result, format), 0);
	return capture_text(&c);
}

static size_t count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

static void test_outputs(void **state)
{
	const char *argv[] = { "ab", "--target", "1%", "--", "sh", "-c", "x\"y",
			       NULL };
	struct ab_run runs[12];
	size_t n = make_runs(runs, 6);
	struct ab_report r;
	struct ab_options o;
	char *text, *line2;

	(void)state;
	assert_int_equal(parse(&o, argv), PARSE_RUN);
	assert_int_equal(ab_build_report(&o, runs, n, &r), 0);
	r.knob_path = "/sys/kernel/vmpressure_ctl/enabled";
	r.seed = 5;

	text = capture(AB_FORMAT_TABLE, &r);
	assert_non_null(strstr(text, "knob /sys/kernel/vmpressure_ctl/enabled: A=1 B=0, order abba"));
	assert_non_null(strstr(text, "*10.00%*"));
	assert_non_null(strstr(text, "B worse"));
	assert_non_null(strstr(text, "runs/arm for 1%"));
	assert_non_null(strstr(text, "1 without reclaim, 1 of arm B did not short-circuit"));
	assert_non_null(strstr(text, "WARNING"));
	assert_non_null(strstr(text, "arm changes (knob write + read-back, or --switch): A->B 6, median 3.500 ms, max 6.000 ms; B->A 5, median 8.000 ms"));
	free(text);

	text = capture(AB_FORMAT_JSON, &r);
	assert_non_null(strstr(text, "\"command\":[\"sh\",\"-c\",\"x\\\"y\"]"));
	assert_non_null(strstr(text, "\"marker\":\"*10.00%*\""));
	assert_non_null(strstr(text, "\"metric_regex\":null"));
	assert_non_null(strstr(text, "\"toggles\":{\"a_to_b\":{\"n\":6,\"median_s\":0.0035,\"max_s\":0.006},"));
	assert_non_null(strstr(text, "\"sanity\":{\"vmpressure_checks\":true,\"runs_without_reclaim\":1,"));
	assert_int_equal(count_char(text, '{'), count_char(text, '}'));
	assert_int_equal(count_char(text, '\n'), 1);
	free(text);

	/* a header and one line per metric, all with the same columns */
	text = capture(AB_FORMAT_CSV, &r);
	assert_int_equal(count_char(text, '\n'), 1 + r.n_metrics);
	line2 = strchr(text, '\n') + 1;
	*strchr(line2, '\n') = '\0';
	*strchr(text, '\n') = '\0';
	assert_int_equal(count_char(text, ','), count_char(line2, ','));
	assert_true(strncmp(line2, "wall(s),0,6,", 12) == 0);
	assert_non_null(strstr(line2, ",1,*10.00%*,"));
	free(text);
	ab_options_free(&o);
}

/* Whole runs of cmd_ab against a scratch knob, with a command that logs it. */
struct scratch {
	char knob[64];
	char log[64];
	char out[64];
};

static int scratch_setup(void **state)
{
	static struct scratch s;
	int fd;

	strcpy(s.knob, "/tmp/vmpctl-test-knob-XXXXXX");
	strcpy(s.log, "/tmp/vmpctl-test-log-XXXXXX");
	strcpy(s.out, "/tmp/vmpctl-test-out-XXXXXX");
	fd = mkstemp(s.knob);
	if (fd < 0 || write(fd, "up\n", 3) != 3)
		return -1;
	close(fd);
	fd = mkstemp(s.log);
	if (fd < 0)
		return -1;
	close(fd);
	fd = mkstemp(s.out);
	if (fd < 0)
		return -1;
	close(fd);
	*state = &s;
	return 0;
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;

	unlink(s->knob);
	unlink(s->log);
	unlink(s->out);
	return 0;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* cmd_ab with its stdout (the report) in the file out */
static int run_ab(const char **argv, const char *out)
{
	int argc = 0, saved, fd, rc;

	while (argv[argc])
		argc++;
	fflush(NULL);
	saved = dup(STDOUT_FILENO);
	fd = open(out, O_WRONLY | O_TRUNC);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	rc = cmd_ab(argc, (char **)argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return rc;
}

static void test_cmd_ab_order_and_restore(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "none", "-n", "3", "-w", "2", "-q", "--csv",
			       "-M", "v=([0-9]+)", "--", "sh", "-c", script,
			       NULL };

	snprintf(script, sizeof(script),
		 "cat %s >> %s; "
		 "if [ $(cat %s) = on ]; then echo v=10; else echo v=20; fi",
		 s->knob, s->log, s->knob);
	assert_int_equal(run_ab(argv, s->out), 0);
	/* warmup A B, then ABBA blocks: AB BA AB; each value whole and alone */
	assert_string_equal(slurp(s->log),
			    "on\nnone\non\nnone\nnone\non\non\nnone\n");
	assert_string_equal(slurp(s->knob), "up\n");
	/* B's 20 against A's 10, without noise */
	assert_non_null(strstr(slurp(s->out), "\nmetric,0,3,10,0,0,10,10,10,"));
}

static void test_cmd_ab_failure_restores(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "2", "-w", "0", "-q", "--", "sh",
			       "-c", script, NULL };
	const char *no_metric[] = { "ab", "--knob", s->knob, "--a", "on",
				    "--b", "no", "-n", "2", "-q", "-M",
				    "nothing=([0-9]+)", "--", "true", NULL };
	const char *missing_knob[] = { "ab", "--knob", "/nonexistent/knob",
				       "--", "true", NULL };

	/* the third run (arm B of the second block) fails */
	snprintf(script, sizeof(script),
		 "echo x >> %s; [ $(wc -l < %s) -lt 3 ]", s->log, s->log);
	assert_int_equal(run_ab(argv, s->out), 1);
	assert_string_equal(slurp(s->knob), "up\n");
	assert_string_equal(slurp(s->log), "x\nx\nx\n");
	assert_int_equal(run_ab(no_metric, s->out), 1);
	assert_string_equal(slurp(s->knob), "up\n");
	assert_int_equal(run_ab(missing_knob, s->out), 3);
}

static void test_cmd_ab_until_precision(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "2", "-w", "0", "-q", "--json",
			       "-M", "v=([0-9.]+)", "--until-precision", "10%",
			       "--max-time", "60", "--", "sh", "-c", script,
			       NULL };
	const char *json;

	/* 10..16 in a fixed cycle: a CoV of about 15% for both arms */
	snprintf(script, sizeof(script),
		 "n=$(wc -l < %s); echo x >> %s; echo v=1$((n * 3 %% 7))",
		 s->log, s->log);
	/* that noise needs far more than 2 runs per arm for +-10% */
	assert_int_equal(run_ab(argv, s->out), 0);
	assert_string_equal(slurp(s->knob), "up\n");
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"precision_reached\":true"));
	assert_null(strstr(json, "\"a\":{\"n\":2,"));
	assert_null(strstr(json, "\"a\":{\"n\":3,"));
}

/*
 * --until-precision judges the headline's interval, the ABBA blocks'
 * contrast: a steep drift (each run 10 more than the one before, the
 * arms alike) widens Welch's interval past +-5% for hundreds of runs,
 * but cancels inside each block, so 2 blocks (8 runs) are enough.
 */
static void test_cmd_ab_until_precision_blocks(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "4", "-w", "0", "-q", "--json",
			       "-M", "v=([0-9.]+)", "--until-precision", "5%",
			       "--max-time", "5", "--", "sh", "-c", script,
			       NULL };
	const char *json;

	snprintf(script, sizeof(script),
		 "n=$(wc -l < %s); echo x >> %s; echo v=$((100 + 10 * n))",
		 s->log, s->log);
	assert_int_equal(run_ab(argv, s->out), 0);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"precision_reached\":true"));
	assert_non_null(strstr(json, "\"a\":{\"n\":4,"));
	assert_string_equal(slurp(s->knob), "up\n");
}

static void test_cmd_ab_switch(void **state)
{
	struct scratch *s = *state;
	char cmd[128];
	const char *argv[] = { "ab", "--switch", cmd, "--a", "absent", "--b",
			       "stock", "-n", "3", "-w", "0", "-q", "--json",
			       "--", "true", NULL };
	const char *failing[] = { "ab", "--switch", "exit 3 #", "-n", "2",
				  "-q", "--", "true", NULL };

	snprintf(cmd, sizeof(cmd), "echo >> %s", s->log);
	assert_int_equal(run_ab(argv, s->out), 0);
	/* A B B A A B, a switch only where the arm changes, then back to A */
	assert_string_equal(slurp(s->log),
			    "absent\nstock\nabsent\nstock\nabsent\n");
	/* the first switch leaves an unknown state: not a toggle */
	assert_non_null(strstr(slurp(s->out), "\"a_to_b\":{\"n\":2,"));
	assert_non_null(strstr(slurp(s->out), "\"b_to_a\":{\"n\":1,"));
	assert_non_null(strstr(slurp(s->out), "\"vmpressure_checks\":false"));
	/* the switch fails, so does the way back to A: the state is unknown */
	assert_int_equal(run_ab(failing, s->out), 4);
}

/*
 * The workload of the interleaved tests: rate lines on a grid of 1/64 s of
 * CLOCK_MONOTONIC, 15625 per interval (1e6/s) while the knob reads "on",
 * 17187.5 (1.1e6/s) otherwise. Grid times, lengths and counts are exact
 * binary fractions, so every slice's rate is exactly 1e6 or 1.1e6 and the
 * statistics have no noise to be fooled by. The knob is read at the
 * start of each interval; an interval whose read came late (after a
 * quarter of it) is left out, as it may have seen the next slice's value.
 * With fail_after_s, exits 3 then; else after a minute. Its variants:
 */
enum workload_kind {
	WORKLOAD_KNOB_RATE,
	/* the knob's value does nothing, but for 0.1 s after it changed the rate is 20% lower */
	WORKLOAD_FLIP_DISTURBED,
	/* t on CLOCK_REALTIME: the epoch, not the monotonic clock */
	WORKLOAD_WALL_CLOCK,
	/* one line per 1/8 s */
	WORKLOAD_SLOW_REPORT,
};

static int rate_workload(const char *knob, double fail_after_s,
			 enum workload_kind kind)
{
	const double step = kind == WORKLOAD_SLOW_REPORT ? 1.0 / 8 : 1.0 / 64;
	double start = monotonic_s(), g = ceil(start / step) * step;
	double disturbed_until = 0, t_offset = 0;
	char last[32] = "";

	if (kind == WORKLOAD_WALL_CLOCK) {
		struct timespec wall;

		clock_gettime(CLOCK_REALTIME, &wall);
		t_offset = (double)wall.tv_sec + 1e-9 * (double)wall.tv_nsec - start;
	}
	while (g - start < (fail_after_s > 0 ? fail_after_s : 60)) {
		char value[32] = "", line[RATE_LINE_MAX];
		struct timespec at;
		double count;
		FILE *f;
		int len;

		at.tv_sec = (time_t)g;
		at.tv_nsec = (long)((g - (double)at.tv_sec) * 1e9);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		f = fopen(knob, "r");
		if (f) {
			if (!fgets(value, sizeof(value), f))
				value[0] = '\0';
			fclose(f);
		}
		if (last[0] && strcmp(value, last) != 0)
			disturbed_until = g + 0.1;
		snprintf(last, sizeof(last), "%s", value);
		g += step;
		if (monotonic_s() > g - 0.75 * step)
			continue;
		if (kind == WORKLOAD_FLIP_DISTURBED)
			count = g <= disturbed_until ? 12500.0 : 15625.0;
		else
			count = strcmp(value, "on\n") == 0 ? 15625.0 : 17187.5;
		at.tv_sec = (time_t)g;
		at.tv_nsec = (long)((g - (double)at.tv_sec) * 1e9);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		len = snprintf(line, sizeof(line),
			       "{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%.1f}\n",
			       g + t_offset, step, count * step * 64);
		if (write(STDOUT_FILENO, line, (size_t)len) != len)
			return 2;
	}
	return fail_after_s > 0 ? 3 : 0;
}

static char self_exe[PATH_MAX];

/*
 * ab --interleave ARGS... -- this program's rate workload. Tests not about
 * slow flips pass --max-flip 5: on a loaded host (ASan, guests beside it)
 * flips over the default quarter slice dropped pairs unevenly, and the run
 * then rightly refused a verdict (exit 1).
 */
static int run_interleaved(struct scratch *s, const char **options,
			   const char *workload)
{
	const char *argv[40];
	int argc = 0;

	argv[argc++] = "ab";
	while (*options)
		argv[argc++] = *options++;
	argv[argc++] = "--";
	argv[argc++] = self_exe;
	argv[argc++] = workload;
	argv[argc++] = s->knob;
	argv[argc] = NULL;
	return run_ab(argv, s->out);
}

/* The 10% is found, every pair has an A and a B slice, the knob is back. */
static void test_cmd_ab_interleave(void **state)
{
	struct scratch *s = *state;
	const char *options[] = { "--knob", s->knob, "--a", "on", "--b", "off",
				  "--interleave", "0.3", "--max-flip", "5", "-n", "6",
				  "-H", "-q", "--json", NULL };
	const char *json;

	assert_int_equal(run_interleaved(s, options, "rate-workload"), 0);
	assert_string_equal(slurp(s->knob), "up\n");
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"mode\":\"interleave\""));
	assert_non_null(strstr(json, "\"pairs\":{\"kept\":6,"));
	assert_non_null(strstr(json, "\"verdict\":\"B better\""));
	/* exactly 10%: the rates are exact */
	assert_non_null(strstr(json, "\"diff_pct\":10.0,"));
	assert_non_null(strstr(json, "\"arm\":\"A\",\"fate\":\"kept\""));
	assert_non_null(strstr(json, "\"arm\":\"B\",\"fate\":\"kept\""));
	assert_null(strstr(json, "\"straddling\":0,"));
	assert_non_null(strstr(json, "\"command_ended\":false"));
}

/* --long-every 2: every second pair's slices are four times as long. */
static void test_cmd_ab_interleave_long_slices(void **state)
{
	struct scratch *s = *state;
	const char *options[] = { "--knob", s->knob, "--a", "on", "--b", "off",
				  "--interleave", "0.2", "--max-flip", "5", "-n", "4",
				  "-w", "0", "--long-every", "2", "-q", "--json",
				  NULL };
	json_t *doc, *slice;
	size_t i, longer = 0;
	const char *json;

	assert_int_equal(run_interleaved(s, options, "rate-workload"), 0);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"long_checked\":true,\"short_pairs\":2,\"long_pairs\":2,"));
	doc = json_loads(json, 0, NULL);
	assert_non_null(doc);
	json_array_foreach(json_object_get(doc, "slices"), i, slice) {
		double length = json_real_value(json_object_get(slice, "end_s")) -
			json_real_value(json_object_get(slice, "start_s"));

		longer += length > 0.7;
	}
	json_decref(doc);
	/* pairs 2 and 4: four slices of 0.8 s */
	assert_int_equal(longer, 4);
}

/* A = B: the same rate on both sides, nothing found. */
static void test_cmd_ab_interleave_identical_arms(void **state)
{
	struct scratch *s = *state;
	const char *options[] = { "--knob", s->knob, "--a", "on", "--b", "on",
				  "--interleave", "0.2", "--max-flip", "5", "-n", "6",
				  "-q", "--json", NULL };
	const char *json;

	assert_int_equal(run_interleaved(s, options, "rate-workload"), 0);
	assert_string_equal(slurp(s->knob), "up\n");
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"significant\":false"));
	assert_non_null(strstr(json, "\"diff_pct\":0.0,"));
	assert_non_null(strstr(json, "\"verdict\":\"~\""));
}

/* How many slices flipped in 0.6 s or more; each must be dropped. */
static int slow_flips_dropped(const char *json)
{
	json_t *doc = json_loads(json, 0, NULL), *slice;
	size_t i;
	int slow = 0;

	assert_non_null(doc);
	json_array_foreach(json_object_get(doc, "slices"), i, slice) {
		/* the open slice at the end has no fate yet */
		if (json_real_value(json_object_get(slice, "flip_s")) < 0.6 ||
		    strcmp(json_string_value(json_object_get(slice, "fate")),
			   "unfinished") == 0)
			continue;
		slow++;
		assert_string_equal(json_string_value(json_object_get(slice, "fate")),
				    "flip too long");
	}
	json_decref(doc);
	return slow;
}

/*
 * One slow flip (the fourth run of the switch sleeps 0.6 s) drops its
 * slice and that slice's pair; the pairs asked for are still kept. (A
 * loaded machine may make another switch slow too: at least one.) The
 * seed is fixed: with another order the one slow flip may be a third of
 * the flips toward its arm, and the balance check rightly refuses.
 */
static void test_cmd_ab_interleave_drops_slow_flip(void **state)
{
	struct scratch *s = *state;
	char cmd[512];
	const char *options[] = { "--switch", cmd, "--a", "on", "--b", "off",
				  "--interleave", "0.4", "--max-flip", "0.3",
				  "--seed", "1", "-w", "0", "-n", "5", "-q", "--json",
				  NULL };
	const char *json;

	snprintf(cmd, sizeof(cmd),
		 "f() { n=$(wc -l < %s); echo x >> %s; [ $n -ne 3 ] || sleep 0.6; echo \"$1\" > %s; }; f",
		 s->log, s->log, s->knob);
	assert_int_equal(run_interleaved(s, options, "rate-workload"), 0);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"pairs\":{\"kept\":5,\"dropped\":"));
	assert_null(strstr(json, "\"pairs\":{\"kept\":5,\"dropped\":0,"));
	assert_null(strstr(json, ",\"slices_flip_too_long\":0,"));
	assert_true(slow_flips_dropped(json) >= 1);
	/* back in arm A */
	assert_string_equal(slurp(s->knob), "on\n");
}

/* The command fails, or is no rate command: exit 1, the knob is back. */
static void test_cmd_ab_interleave_failures(void **state)
{
	struct scratch *s = *state;
	const char *options[] = { "--knob", s->knob, "--a", "on", "--b", "off",
				  "--interleave", "0.1", "-n", "50", "-q", NULL };
	const char *not_rate[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
				   "off", "--interleave", "0.1", "-q",
				   "--start-timeout", "2", "--", "sleep", "60",
				   NULL };
	double start;

	assert_int_equal(run_interleaved(s, options, "rate-workload-fails"), 1);
	assert_string_equal(slurp(s->knob), "up\n");
	/* given up after --start-timeout, not after the command's 60 s */
	start = monotonic_s();
	assert_int_equal(run_ab(not_rate, s->out), 1);
	assert_true(monotonic_s() - start < 30);
	assert_string_equal(slurp(s->knob), "up\n");
	/* epoch stamps, and a report interval longer than half a slice:
	 * refused, where the 100 slices of each would take 20 s */
	start = monotonic_s();
	assert_int_equal(run_interleaved(s, options, "rate-wall-clock"), 1);
	assert_int_equal(run_interleaved(s, options, "rate-slow-report"), 1);
	assert_true(monotonic_s() - start < 15);
	assert_string_equal(slurp(s->knob), "up\n");
}

/*
 * The arms do the same, every change of the knob disturbs the workload
 * alike, but flips toward B take longer than --max-flip: only pairs whose
 * B slice began without a change of the knob are kept (all BA), so every
 * kept A slice is disturbed and none of B. No verdict, exit 1; slices
 * long enough (--settle past the disturbance) and a --max-flip above both
 * flips' times give the honest "~".
 */
static void test_cmd_ab_interleave_unbalanced(void **state)
{
	struct scratch *s = *state;
	char cmd[512];
	const char *options[] = { "--switch", cmd, "--a", "on", "--b", "off",
				  "--interleave", "0.4", "--max-flip", "0.1",
				  "-w", "0", "-n", "8", "-T", "30", "-q", "--json",
				  NULL };
	const char *settled[] = { "--switch", cmd, "--a", "on", "--b", "off",
				  "--interleave", "0.4", "--max-flip", "1",
				  "--settle", "0.125", "-w", "0", "-n", "8",
				  "--seed", "1", "-q", "--json", NULL };
	const char *json;

	snprintf(cmd, sizeof(cmd),
		 "f() { [ \"$1\" = on ] || sleep 0.15; echo \"$1\" > %s; }; f",
		 s->knob);
	assert_int_equal(run_interleaved(s, options, "rate-flip-disturbed"), 1);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"balanced\":false"));
	assert_non_null(strstr(json, "\"verdict\":\"no verdict\""));
	assert_non_null(strstr(json, "\"pairs_ab\":0,"));
	assert_string_equal(slurp(s->knob), "on\n");

	assert_int_equal(run_interleaved(s, settled, "rate-flip-disturbed"), 0);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"balanced\":true"));
	assert_non_null(strstr(json, "\"verdict\":\"~\""));
}

/* Whether process pid is gone (or a zombie) within 3 s. */
static bool process_gone(pid_t pid)
{
	for (int i = 0; i < 300; i++) {
		char path[64], state = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return true;
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 0;
		fclose(f);
		if (state == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The command's own children end with it: ab signals the command's
 * process group, not only the shell it started.
 */
static void test_cmd_ab_interleave_ends_the_group(void **state)
{
	struct scratch *s = *state;
	char script[PATH_MAX * 3];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "off", "--interleave", "0.2", "--max-flip", "5",
			       "-n", "2", "-q", "--", "sh", "-c", script, NULL };
	long grandchild = 0;
	FILE *f;

	snprintf(script, sizeof(script),
		 "sleep 60 & echo $! > %s; exec %s rate-workload %s",
		 s->log, self_exe, s->knob);
	assert_int_equal(run_ab(argv, s->out), 0);
	f = fopen(s->log, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &grandchild), 1);
	fclose(f);
	assert_true(grandchild > 0);
	if (!process_gone((pid_t)grandchild)) {
		kill((pid_t)grandchild, SIGKILL);
		fail_msg("the command's child %ld outlived ab", grandchild);
	}
}

/* How many lines of text hold needle. */
static size_t lines_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *line = text; line && *line; ) {
		const char *end = strchr(line, '\n');
		const char *hit = strstr(line, needle);

		if (hit && (!end || hit < end))
			n++;
		line = end ? end + 1 : NULL;
	}
	return n;
}

/*
 * Nothing lost: the fifth run fails, and the four before it are still
 * reported (exit 1) and were saved, each as it was measured.
 */
static void test_cmd_ab_failure_keeps_what_was_measured(void **state)
{
	struct scratch *s = *state;
	char script[256], save[80];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "3", "-w", "0", "-q", "--json",
			       "--save", save, "-M", "v=([0-9]+)", "--", "sh",
			       "-c", script, NULL };
	const char *saved;

	snprintf(save, sizeof(save), "%s.save", s->out);
	snprintf(script, sizeof(script),
		 "echo x >> %s; n=$(wc -l < %s); echo v=$((10 + n)); [ $n -lt 5 ]",
		 s->log, s->log);
	assert_int_equal(run_ab(argv, s->out), 1);
	assert_string_equal(slurp(s->knob), "up\n");
	assert_non_null(strstr(slurp(s->out), "\"a\":{\"n\":2,"));
	saved = slurp(save);
	assert_int_equal(lines_with(saved, "\"type\":\"run\""), 4);
	assert_int_equal(lines_with(saved, "\"metrics\":["), 1);
	unlink(save);
}

/* --interleave --save: the header, each slice as it became final, the report. */
static void test_cmd_ab_interleave_saves_slices(void **state)
{
	struct scratch *s = *state;
	char save[80];
	const char *options[] = { "--knob", s->knob, "--a", "on", "--b", "off",
				  "--interleave", "0.2", "-n", "3", "-q",
				  "--save", save, NULL };
	const char *saved;

	snprintf(save, sizeof(save), "%s.save", s->out);
	assert_int_equal(run_interleaved(s, options, "rate-workload"), 0);
	saved = slurp(save);
	/* the header with the options first, every slice, the report last */
	assert_true(strstr(saved, "{\"type\":\"ab\",") == saved);
	assert_true(lines_with(saved, "\"type\":\"slice\"") >= 6);
	assert_int_equal(lines_with(saved, "\"mode\":\"interleave\""), 2);
	unlink(save);
}

/* --ignore-failure: the third run fails, its block is dropped, the A/B goes on. */
static void test_cmd_ab_ignore_failure(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "3", "-w", "0", "-q", "--json",
			       "--ignore-failure", "-M", "v=([0-9]+)", "--",
			       "sh", "-c", script, NULL };
	const char *always[] = { "ab", "--knob", s->knob, "-n", "2", "-w", "0",
				 "-q", "--ignore-failure", "--", "false", NULL };
	const char *json;

	snprintf(script, sizeof(script),
		 "echo x >> %s; n=$(wc -l < %s); echo v=$((10 + n)); [ $n -ne 3 ]",
		 s->log, s->log);
	assert_int_equal(run_ab(argv, s->out), 0);
	json = slurp(s->out);
	assert_non_null(strstr(json, "\"blocks_failed\":1"));
	assert_non_null(strstr(json, "\"a\":{\"n\":3,"));
	assert_string_equal(slurp(s->knob), "up\n");
	/* a command that always fails still ends the A/B */
	assert_int_equal(run_ab(always, s->out), 1);
	assert_string_equal(slurp(s->knob), "up\n");
}

/*
 * --ignore-failure: the third run (B, first of the BA block) fails; its
 * block runs BA again, so the kept blocks are AB, BA, AB and each ABBA
 * block of the analysis cancels a drift.
 */
static void test_cmd_ab_drop_keeps_abba(void **state)
{
	struct scratch *s = *state;
	char script[256];
	const char *argv[] = { "ab", "--knob", s->knob, "--a", "on", "--b",
			       "no", "-n", "3", "-w", "0", "-q", "--json",
			       "--ignore-failure", "-M", "v=([0-9]+)", "--",
			       "sh", "-c", script, NULL };

	snprintf(script, sizeof(script),
		 "cat %s >> %s; echo v=10; [ $(wc -l < %s) -ne 3 ]",
		 s->knob, s->log, s->log);
	assert_int_equal(run_ab(argv, s->out), 0);
	assert_string_equal(slurp(s->log),
			    "on\nno\nno\nno\non\non\nno\n");
	assert_string_equal(slurp(s->knob), "up\n");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_defaults_and_command),
		cmocka_unit_test(test_parse_all_options),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_interleave),
		cmocka_unit_test(test_schedule_abba),
		cmocka_unit_test(test_schedule_repeat),
		cmocka_unit_test(test_run_timeout),
		cmocka_unit_test(test_schedule_random),
		cmocka_unit_test(test_extract_metric),
		cmocka_unit_test(test_parse_reclaim),
		cmocka_unit_test(test_run_warnings),
		cmocka_unit_test(test_build_report),
		cmocka_unit_test(test_verdict_uses_holm),
		cmocka_unit_test(test_blocks_pair_the_runs),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test_setup_teardown(test_cmd_ab_order_and_restore,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_failure_restores,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_until_precision,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_until_precision_blocks,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_switch,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_identical_arms,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_long_slices,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_drops_slow_flip,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_failures,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_unbalanced,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_ends_the_group,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_failure_keeps_what_was_measured,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_interleave_saves_slices,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_ignore_failure,
						scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_cmd_ab_drop_keeps_abba,
						scratch_setup, scratch_teardown),
	};
	ssize_t n;

	if (argc == 3 && strcmp(argv[1], "rate-workload") == 0)
		return rate_workload(argv[2], 0, WORKLOAD_KNOB_RATE);
	if (argc == 3 && strcmp(argv[1], "rate-workload-fails") == 0)
		return rate_workload(argv[2], 0.5, WORKLOAD_KNOB_RATE);
	if (argc == 3 && strcmp(argv[1], "rate-flip-disturbed") == 0)
		return rate_workload(argv[2], 0, WORKLOAD_FLIP_DISTURBED);
	if (argc == 3 && strcmp(argv[1], "rate-wall-clock") == 0)
		return rate_workload(argv[2], 0, WORKLOAD_WALL_CLOCK);
	if (argc == 3 && strcmp(argv[1], "rate-slow-report") == 0)
		return rate_workload(argv[2], 0, WORKLOAD_SLOW_REPORT);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';

	return cmocka_run_group_tests(tests, NULL, NULL);
}
