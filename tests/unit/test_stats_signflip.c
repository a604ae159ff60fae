// SPDX-License-Identifier: GPL-2.0
/*
 * tools/stats_signflip.c: exact values a reader can count by hand, the
 * false-positive rate and the interval's coverage under heavy-tailed
 * noise (where the t-test's assumptions fail), and Wilson's interval.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats.h"
#include "stats_signflip.h"

static void test_exact_by_hand(void **state)
{
	const double rising[] = { 1, 2, 3, 4, 5, 6 };
	const double balanced[] = { 1, -1, 2, -2, 3, -3 };
	struct stats_signflip r;

	(void)state;
	/* only the identity and the all-flipped vector reach |21| of 64 */
	assert_int_equal(stats_signflip(rising, 6, 1, &r), 0);
	assert_true(r.exact);
	assert_int_equal(r.vectors, 64);
	assert_true(fabs(r.p - 2.0 / 64) < 1e-12);
	assert_true(fabs(r.mean - 3.5) < 1e-12);
	/* k = floor(0.025 * 64) = 1: the smallest and largest subset means */
	assert_true(r.ci_lo == 1 && r.ci_hi == 6);

	assert_int_equal(stats_signflip(balanced, 6, 1, &r), 0);
	assert_true(r.p == 1);

	/* five pairs: 32 vectors, k = 0, no 95% interval exists */
	assert_int_equal(stats_signflip(rising, 5, 1, &r), 0);
	assert_true(isinf(r.ci_lo) && isinf(r.ci_hi));
	assert_int_equal(stats_signflip(rising, 0, 1, &r), -EINVAL);
}

/* Random swaps: the same seed gives the same answer, close to exact. */
static void test_random_swaps(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double d[40];
	struct stats_signflip r, again;

	(void)state;
	gsl_rng_set(rng, 3);
	for (size_t i = 0; i < 40; i++)
		d[i] = 0.4 + gsl_ran_gaussian(rng, 1);
	assert_int_equal(stats_signflip(d, 40, 9, &r), 0);
	assert_false(r.exact);
	assert_int_equal(r.vectors, STATS_SIGNFLIP_DRAWS + 1);
	assert_int_equal(stats_signflip(d, 40, 9, &again), 0);
	assert_true(r.p == again.p && r.ci_lo == again.ci_lo);
	/* the mean lies inside, and the interval is about +-2 sd / sqrt(n) */
	assert_true(r.ci_lo < r.mean && r.mean < r.ci_hi);
	assert_true(r.ci_hi - r.ci_lo > 0.4 && r.ci_hi - r.ci_lo < 0.9);
	gsl_rng_free(rng);
}

/*
 * 2000 null data sets of 10 Cauchy differences (no mean, wild outliers):
 * rejections at 5% and coverage of the centre at 95%, each within
 * Wilson's interval of the 2000.
 */
static void test_calibrated_under_heavy_tails(void **state)
{
	const size_t trials = 2000, n = 10;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t rejected = 0, covered = 0;
	double lo, hi;

	(void)state;
	gsl_rng_set(rng, 11);
	for (size_t t = 0; t < trials; t++) {
		double d[10];
		struct stats_signflip r;

		for (size_t i = 0; i < n; i++)
			d[i] = gsl_ran_cauchy(rng, 1);
		assert_int_equal(stats_signflip(d, n, t, &r), 0);
		rejected += r.p < STATS_ALPHA;
		covered += r.ci_lo <= 0 && 0 <= r.ci_hi;
	}
	stats_wilson(rejected, trials, &lo, &hi);
	print_message("false positives %zu of %zu: [%.3f, %.3f]\n", rejected,
		      trials, lo, hi);
	assert_true(lo <= 0.05 && 0.05 <= hi);
	stats_wilson(covered, trials, &lo, &hi);
	print_message("coverage %zu of %zu: [%.3f, %.3f]\n", covered, trials,
		      lo, hi);
	assert_true(lo <= 0.951 && 0.951 <= hi);
	gsl_rng_free(rng);
}

static void test_wilson(void **state)
{
	double lo, hi;

	(void)state;
	/* 1 of 20: [0.0089, 0.2361] (Wilson 1927; R's prop.test without correction) */
	stats_wilson(1, 20, &lo, &hi);
	assert_true(fabs(lo - 0.00889) < 1e-4 && fabs(hi - 0.23613) < 1e-4);
	stats_wilson(0, 10, &lo, &hi);
	assert_true(lo < 1e-12 && fabs(hi - 0.27753) < 1e-4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_by_hand),
		cmocka_unit_test(test_random_swaps),
		cmocka_unit_test(test_calibrated_under_heavy_tails),
		cmocka_unit_test(test_wilson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
