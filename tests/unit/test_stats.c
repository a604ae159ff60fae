// SPDX-License-Identifier: GPL-2.0
/* tools/stats.c against SciPy reference values (fixtures/stats_reference.*). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

struct arm_reference {
	double mean, stddev, cov_pct, min, max, median;
	double median_ci_lo, median_ci_hi, median_ci_coverage;
};

struct stats_reference {
	const char *name;
	const double *a;
	size_t n_a;
	const double *b;
	size_t n_b;
	struct arm_reference arm_a, arm_b;
	double diff_pct, diff_ci_lo_pct, diff_ci_hi_pct;
	double ratio, ratio_ci_lo, ratio_ci_hi;
	double welch_t, welch_df, welch_p;
	double mwu_u, mwu_p;
	bool mwu_exact, significant;
	double noise_pct, mde_pct;
};

struct runs_reference {
	double noise_pct, target_pct;
	size_t runs;
};

struct mde_reference {
	double noise_pct;
	size_t runs;
	double mde_pct;
};

#include "fixtures/stats_reference.h"

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * GSL and SciPy agree to ~1e-12 on CDFs but only to ~1e-8 on t quantiles at
 * non-integer df (CIs, MDE): 1e-7 relative still catches any formula slip.
 */
static void assert_close(double got, double want, const char *what,
			 const char *sample)
{
	double tolerance = 1e-7 * fmax(1.0, fabs(want));

	/* NaN stands for "undefined" (an unbounded interval) on both sides */
	if (isnan(want) && isnan(got))
		return;
	if (!(fabs(got - want) <= tolerance)) {
		print_error("%s: %s = %.17g, reference %.17g\n", sample, what,
			    got, want);
		fail();
	}
}

static void check_arm(const struct stats_summary *got,
		      const struct arm_reference *want, size_t n,
		      const char *sample)
{
	assert_int_equal(got->n, n);
	assert_close(got->mean, want->mean, "mean", sample);
	assert_close(got->stddev, want->stddev, "stddev", sample);
	assert_close(got->cov_pct, want->cov_pct, "cov", sample);
	assert_close(got->min, want->min, "min", sample);
	assert_close(got->max, want->max, "max", sample);
	assert_close(got->median, want->median, "median", sample);
	assert_close(got->median_ci_lo, want->median_ci_lo, "median lo",
		     sample);
	assert_close(got->median_ci_hi, want->median_ci_hi, "median hi",
		     sample);
	assert_close(got->median_ci_coverage, want->median_ci_coverage,
		     "median coverage", sample);
}

static void test_compare_matches_scipy(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(stats_references); i++) {
		const struct stats_reference *r = &stats_references[i];
		struct stats_comparison c;

		assert_int_equal(stats_compare(r->a, r->n_a, r->b, r->n_b, &c),
				 0);
		check_arm(&c.a, &r->arm_a, r->n_a, r->name);
		check_arm(&c.b, &r->arm_b, r->n_b, r->name);
		assert_close(c.diff_pct, r->diff_pct, "diff", r->name);
		assert_close(c.diff_ci_lo_pct, r->diff_ci_lo_pct, "diff lo",
			     r->name);
		assert_close(c.diff_ci_hi_pct, r->diff_ci_hi_pct, "diff hi",
			     r->name);
		assert_close(c.ratio, r->ratio, "ratio", r->name);
		assert_close(c.ratio_ci_lo, r->ratio_ci_lo, "ratio lo", r->name);
		assert_close(c.ratio_ci_hi, r->ratio_ci_hi, "ratio hi", r->name);
		assert_close(c.welch_t, r->welch_t, "welch t", r->name);
		assert_close(c.welch_df, r->welch_df, "welch df", r->name);
		assert_close(c.welch_p, r->welch_p, "welch p", r->name);
		assert_close(c.mwu_u, r->mwu_u, "U", r->name);
		assert_close(c.mwu_p, r->mwu_p, "U p", r->name);
		assert_int_equal(c.mwu_exact, r->mwu_exact);
		assert_int_equal(c.significant, r->significant);
		assert_close(c.noise_pct, r->noise_pct, "noise", r->name);
		assert_close(c.mde_pct, r->mde_pct, "mde", r->name);
	}
}

/* The reviewer's question of 2021, answered from the runs themselves. */
static void test_seed_case_is_not_significant(void **state)
{
	struct stats_comparison c;
	char marker[32];

	(void)state;
	assert_int_equal(stats_compare(seed_pft_2021_a, 5, seed_pft_2021_b, 5,
				       &c), 0);
	assert_true(fabs(c.a.cov_pct - 1.2) < 0.05);
	assert_true(fabs(c.diff_pct - 0.2) < 0.01);
	assert_true(fabs(c.welch_t - 0.37) < 0.005);
	assert_false(c.significant);
	assert_true(c.diff_ci_lo_pct < 0 && c.diff_ci_hi_pct > 0);
	stats_format_marker(marker, sizeof(marker), c.diff_pct, c.significant);
	assert_string_equal(marker, "(  0.20%)");
	/* 0.2% at this noise needs hundreds of runs per arm, not 5 */
	assert_true(stats_runs_needed(c.noise_pct, 0.2, STATS_UNPAIRED) > 100);
}

/*
 * Fieller's interval does not treat mean A as known: it is wider than the
 * old Welch CI divided by mean A, and unbounded when mean A is not told
 * apart from 0. It excludes 0% exactly when Welch's test rejects.
 */
static void test_fieller_interval(void **state)
{
	struct stats_comparison small;
	double lo, hi;

	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(stats_references); i++) {
		const struct stats_reference *r = &stats_references[i];
		struct stats_comparison c;

		assert_int_equal(stats_compare(r->a, r->n_a, r->b, r->n_b, &c), 0);
		if (isnan(c.diff_ci_lo_pct))
			continue;
		assert_true(c.diff_ci_lo_pct <= c.diff_pct &&
			    c.diff_pct <= c.diff_ci_hi_pct);
		assert_int_equal(c.diff_ci_lo_pct > 0 || c.diff_ci_hi_pct < 0,
				 c.welch_p < STATS_ALPHA);
	}
	/* mean A of 0 and no noise at all */
	assert_int_equal(stats_fieller(0, 1, 0, 0.1, 0, 2, &lo, &hi), -ERANGE);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(stats_fieller(2, 3, 0, 0, 0, 2, &lo, &hi), 0);
	assert_true(lo == 1.5 && hi == 1.5);
	/* mean A fixed gave [+27.2%, +260.5%] for these arms: too narrow */
	assert_int_equal(stats_compare(small_exact_a, 4, small_exact_b, 6,
				       &small), 0);
	assert_true(small.diff_ci_lo_pct < 27.2 && small.diff_ci_hi_pct > 260.5);
}

/* Holm's step-down adjustment against its definition (SciPy script). */
static void test_holm(void **state)
{
	double adjusted[N_ELEMENTS(holm_p)];
	double one = 0.3, one_adjusted;

	(void)state;
	stats_holm(holm_p, N_ELEMENTS(holm_p), adjusted);
	for (size_t i = 0; i < N_ELEMENTS(holm_p); i++)
		assert_close(adjusted[i], holm_adjusted[i], "holm", "holm_p");
	/* a family of one is not adjusted */
	stats_holm(&one, 1, &one_adjusted);
	assert_true(one_adjusted == one);
}

static void test_runs_needed_and_mde(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(runs_references); i++) {
		const struct runs_reference *r = &runs_references[i];

		assert_int_equal(stats_runs_needed(r->noise_pct, r->target_pct,
						   STATS_UNPAIRED),
				 r->runs);
	}
	for (size_t i = 0; i < N_ELEMENTS(mde_references); i++) {
		const struct mde_reference *r = &mde_references[i];

		assert_close(stats_mde_pct(r->noise_pct, r->runs, STATS_UNPAIRED), r->mde_pct,
			     "mde", "mde_references");
	}
	assert_int_equal(stats_runs_needed(1.0, 0, STATS_UNPAIRED), STATS_RUNS_NEEDED_MAX);
	assert_true(isinf(stats_mde_pct(1.0, 1, STATS_UNPAIRED)));
}

static void test_marker_format(void **state)
{
	char buf[32];

	(void)state;
	stats_format_marker(buf, sizeof(buf), -6.1, true);
	assert_string_equal(buf, "*-6.10%*");
	stats_format_marker(buf, sizeof(buf), -1.43, false);
	assert_string_equal(buf, "( -1.43%)");
	stats_format_marker(buf, sizeof(buf), 12.345, true);
	assert_string_equal(buf, "*12.35%*");
	stats_format_marker(buf, sizeof(buf), NAN, false);
	assert_string_equal(buf, "(   n/a)");
}

/* Ranks of the 95% order-statistic interval, from the binomial by hand. */
static void test_median_ci_ranks(void **state)
{
	static const struct {
		size_t n, lo_rank, hi_rank;
	} expect[] = {
		{ 5, 1, 5 }, { 6, 1, 6 }, { 8, 1, 8 }, { 9, 2, 8 },
		{ 10, 2, 9 }, { 12, 3, 10 }, { 20, 6, 15 },
	};
	double sorted[32], lo, hi, coverage;

	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(sorted); i++)
		sorted[i] = (double)(i + 1);
	for (size_t i = 0; i < N_ELEMENTS(expect); i++) {
		stats_median_ci(sorted, expect[i].n, &lo, &hi, &coverage);
		assert_int_equal((size_t)lo, expect[i].lo_rank);
		assert_int_equal((size_t)hi, expect[i].hi_rank);
		assert_true(expect[i].n < 6 ? coverage < 0.95 :
			    coverage >= 0.95);
	}
}

static void test_degenerate_input(void **state)
{
	static const double one[] = { 7 };
	static const double same_a[] = { 5, 5, 5 };
	static const double same_b[] = { 6, 6, 6 };
	struct stats_summary s;
	struct stats_comparison c;

	(void)state;
	assert_int_equal(stats_summarize(one, 0, &s), -EINVAL);
	assert_int_equal(stats_summarize(one, 1, &s), 0);
	assert_true(s.median == 7 && isnan(s.stddev));
	assert_int_equal(stats_compare(one, 1, same_b, 3, &c), -EINVAL);

	/* no noise: a difference is certain, no difference is not one */
	assert_int_equal(stats_compare(same_a, 3, same_b, 3, &c), 0);
	assert_true(c.significant && c.welch_p == 0);
	assert_close(c.diff_pct, 20.0, "diff", "no noise");
	assert_int_equal(stats_compare(same_a, 3, same_a, 3, &c), 0);
	assert_false(c.significant);
	assert_true(c.welch_p == 1 && c.mwu_p == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_matches_scipy),
		cmocka_unit_test(test_seed_case_is_not_significant),
		cmocka_unit_test(test_fieller_interval),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_runs_needed_and_mde),
		cmocka_unit_test(test_marker_format),
		cmocka_unit_test(test_median_ci_ranks),
		cmocka_unit_test(test_degenerate_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
