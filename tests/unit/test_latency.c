// SPDX-License-Identifier: GPL-2.0
/*
 * Latency per slice (tools/ab/latency.c) on made-up timelines: each
 * interval's figure goes to the slice the interval went to, weighted by
 * its length; only kept pairs are compared; a source without latency
 * gives no comparison.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ab/latency.h"
#include "capture.h"

/*
 * Slices of 1 s from t = 10, arms as given, flips of 1 ms, and one more
 * slice begun so that the last of them ends.
 */
static void make_slices(struct interleave *il, const enum ab_arm *arms, size_t n)
{
	il_init(il, 0.1, 0);
	for (size_t k = 0; k <= n; k++)
		assert_int_equal(il_begin_slice(il, k < n ? arms[k] : AB_ARM_A,
						10.0 + k, 10.001 + k, 0.001, true), 0);
}

/* Two intervals of 0.4 s in slice k: figures x then y (mean or pct). */
static void add_two(struct interleave *il, struct ab_latency *lat, size_t k,
		    double x, double y, bool pct)
{
	double ends[2] = { 10.45 + k, 10.85 + k }, figures[2] = { x, y };

	for (int i = 0; i < 2; i++) {
		struct ab_sample s = { .iv = { .t = ends[i], .interval_s = 0.4, .count = 100 },
				       .lat_mean_ms = NAN, .lat_pct_ms = NAN, .lat_pct = NAN };

		if (pct) {
			s.lat_pct_ms = figures[i];
			s.lat_pct = 95;
		} else {
			s.lat_mean_ms = figures[i];
		}
		assert_int_equal(il_add_interval(il, &s.iv), IL_IN_SLICE);
		assert_int_equal(ab_latency_add(lat, il, &s), 0);
	}
}

/* Three pairs, AB BA AB; each slice's two intervals report x then y. */
static void three_pairs(struct interleave *il, struct ab_latency *lat, bool pct,
			double a_x, double a_y, double b_x, double b_y)
{
	static const enum ab_arm arms[] = { AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A,
					    AB_ARM_A, AB_ARM_B };

	make_slices(il, arms, 6);
	for (size_t k = 0; k < 6; k++)
		add_two(il, lat, k, arms[k] == AB_ARM_A ? a_x : b_x,
			arms[k] == AB_ARM_A ? a_y : b_y, pct);
}

static void test_mean_per_pair(void **state)
{
	struct interleave il;
	struct ab_latency lat = { .pct = NAN };
	struct ab_latency_report r;
	json_t *json;

	(void)state;
	/* A: 2 ms, B: 1 ms; within a slice the two intervals average */
	three_pairs(&il, &lat, false, 1.5, 2.5, 0.5, 1.5);
	il.input_done = true;
	assert_int_equal(ab_latency_build(&lat, &il, 1, &r), 0);
	assert_true(r.mean.compared);
	assert_false(r.pct.compared);
	assert_int_equal(r.mean.cmp.n, 3);
	assert_true(fabs(r.mean.cmp.a.mean - 2) < 1e-12);
	assert_true(fabs(r.mean.cmp.b.mean - 1) < 1e-12);
	assert_true(fabs(r.mean.test.mean + 50) < 1e-9);
	json = ab_latency_json(&r);
	assert_non_null(json);
	assert_true(json_is_null(json_object_get(json, "pct_ms")));
	json_decref(json);
	ab_latency_free(&lat);
	il_free(&il);
}

/*
 * Only the named metric gets a verdict (one test at 5%, nothing to
 * correct for): a clear latency difference is a figure with its p, with
 * no verdict word in the text or the JSON.
 */
static void test_latency_gets_no_verdict(void **state)
{
	static const enum ab_arm arms[] = { AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A,
					    AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A,
					    AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A,
					    AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A };
	const size_t n = sizeof(arms) / sizeof(arms[0]);
	struct interleave il;
	struct ab_latency lat = { .pct = NAN };
	struct ab_latency_report r;
	struct capture c;
	json_t *json;
	char *text;

	(void)state;
	/* 8 pairs, B's latency half of A's in each: p 2 / 256 */
	make_slices(&il, arms, n);
	for (size_t k = 0; k < n; k++)
		add_two(&il, &lat, k, arms[k] == AB_ARM_A ? 2 + 0.01 * (double)k : 1,
			arms[k] == AB_ARM_A ? 2 : 1 + 0.01 * (double)k, false);
	il.input_done = true;
	assert_int_equal(ab_latency_build(&lat, &il, 1, &r), 0);
	assert_int_equal(r.mean.cmp.n, 8);
	assert_true(r.mean.test.p < STATS_ALPHA);
	ab_latency_print_table(capture_open(&c), &r);
	text = capture_text(&c);
	assert_non_null(strstr(text, "; a figure, not a verdict)\n"));
	assert_null(strstr(text, "lower"));
	assert_null(strstr(text, "B's"));
	free(text);
	json = ab_latency_json(&r);
	assert_non_null(json);
	assert_null(json_object_get(json_object_get(json, "mean_ms"), "verdict"));
	assert_true(json_is_real(json_object_get(json_object_get(json, "mean_ms"),
						 "signflip_p")));
	json_decref(json);
	ab_latency_free(&lat);
	il_free(&il);
}

static void test_only_kept_pairs(void **state)
{
	struct interleave il;
	struct ab_latency lat = { .pct = NAN };
	struct ab_latency_report r;

	(void)state;
	three_pairs(&il, &lat, true, 2, 2, 1, 1);
	/* the second pair's B slice flipped too slowly: its pair is dropped */
	il.slices[2].flip_s = 1;
	il.input_done = true;
	assert_int_equal(ab_latency_build(&lat, &il, 1, &r), 0);
	assert_true(r.pct.compared);
	assert_int_equal(r.pct.cmp.n, 2);
	assert_true(r.pct_level == 95);
	ab_latency_free(&lat);
	il_free(&il);
}

static void test_no_latency_no_comparison(void **state)
{
	static const enum ab_arm arms[] = { AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A };
	struct interleave il;
	struct ab_latency lat = { .pct = NAN };
	struct ab_latency_report r;
	struct ab_sample s = { .iv = { .t = 10.5, .interval_s = 0.4, .count = 1 },
			       .lat_mean_ms = NAN, .lat_pct_ms = NAN, .lat_pct = NAN };

	(void)state;
	make_slices(&il, arms, 4);
	assert_int_equal(il_add_interval(&il, &s.iv), IL_IN_SLICE);
	assert_int_equal(ab_latency_add(&lat, &il, &s), 0);
	il.input_done = true;
	assert_int_equal(ab_latency_build(&lat, &il, 1, &r), 0);
	assert_false(r.mean.compared || r.pct.compared);
	assert_null(ab_latency_json(&r));
	ab_latency_free(&lat);
	il_free(&il);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_per_pair),
		cmocka_unit_test(test_only_kept_pairs),
		cmocka_unit_test(test_no_latency_no_comparison),
		cmocka_unit_test(test_latency_gets_no_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
