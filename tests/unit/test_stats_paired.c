// SPDX-License-Identifier: GPL-2.0
/*
 * tools/stats_paired.c against SciPy reference values
 * (fixtures/paired_reference.*), and what pairing is for: a drift common
 * to both arms hides an effect from the unpaired test, not from this one.
 */
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

#include "stats_paired.h"

struct paired_reference {
	const char *name;
	const double *a;
	const double *b;
	size_t n;
	double d_mean, d_stddev, correlation, diff_pct;
	double diff_ci_lo_pct, diff_ci_hi_pct, ratio, ratio_ci_lo, ratio_ci_hi;
	double t, df, p, wilcoxon_w, wilcoxon_p;
	bool wilcoxon_exact, significant;
	double noise_pct, mde_pct;
};

struct paired_mde_reference {
	double noise_pct;
	size_t pairs;
	double mde_pct;
};

struct paired_needed_reference {
	double noise_pct, target_pct;
	size_t pairs;
};

#include "fixtures/paired_reference.h"

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

/* as in test_stats.c: SciPy's and GSL's t quantiles agree to ~1e-8 */
static void assert_close(double got, double want, const char *what,
			 const char *sample)
{
	double tolerance = 1e-7 * fmax(1.0, fabs(want));

	if (isnan(want) && isnan(got))
		return;
	if (!(fabs(got - want) <= tolerance)) {
		print_error("%s: %s = %.17g, reference %.17g\n", sample, what,
			    got, want);
		fail();
	}
}

static void test_paired_matches_scipy(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(paired_references); i++) {
		const struct paired_reference *r = &paired_references[i];
		struct stats_paired c;

		assert_int_equal(stats_compare_paired(r->a, r->b, r->n, &c), 0);
		assert_int_equal(c.n, r->n);
		assert_close(c.d.mean, r->d_mean, "mean d", r->name);
		assert_close(c.d.stddev, r->d_stddev, "sd d", r->name);
		assert_close(c.correlation, r->correlation, "correlation", r->name);
		assert_close(c.diff_pct, r->diff_pct, "diff", r->name);
		assert_close(c.diff_ci_lo_pct, r->diff_ci_lo_pct, "diff lo", r->name);
		assert_close(c.diff_ci_hi_pct, r->diff_ci_hi_pct, "diff hi", r->name);
		assert_close(c.ratio, r->ratio, "ratio", r->name);
		assert_close(c.ratio_ci_lo, r->ratio_ci_lo, "ratio lo", r->name);
		assert_close(c.ratio_ci_hi, r->ratio_ci_hi, "ratio hi", r->name);
		assert_close(c.t, r->t, "t", r->name);
		assert_close(c.df, r->df, "df", r->name);
		assert_close(c.p, r->p, "p", r->name);
		assert_close(c.wilcoxon_w, r->wilcoxon_w, "W", r->name);
		assert_close(c.wilcoxon_p, r->wilcoxon_p, "W p", r->name);
		assert_int_equal(c.wilcoxon_exact, r->wilcoxon_exact);
		assert_int_equal(c.significant, r->significant);
		assert_close(c.noise_pct, r->noise_pct, "noise", r->name);
		assert_close(c.mde_pct, r->mde_pct, "mde", r->name);
	}
}

/* A bounded interval excludes 0% exactly when p < 0.05 (the CI is the test). */
static void test_ci_agrees_with_p(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(paired_references); i++) {
		const struct paired_reference *r = &paired_references[i];
		struct stats_paired c;
		bool excludes_zero;

		assert_int_equal(stats_compare_paired(r->a, r->b, r->n, &c), 0);
		if (!isfinite(c.diff_ci_lo_pct))
			continue;
		excludes_zero = c.diff_ci_lo_pct > 0 || c.diff_ci_hi_pct < 0;
		assert_int_equal(excludes_zero, c.significant);
	}
}

static void test_mde_and_pairs_needed_match_scipy(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(paired_mde_references); i++) {
		const struct paired_mde_reference *r = &paired_mde_references[i];

		assert_close(stats_mde_pct(r->noise_pct, r->pairs, STATS_PAIRED),
			     r->mde_pct, "mde", "paired_mde_references");
	}
	for (size_t i = 0; i < N_ELEMENTS(paired_needed_references); i++) {
		const struct paired_needed_reference *r = &paired_needed_references[i];

		assert_int_equal(stats_runs_needed(r->noise_pct, r->target_pct,
						   STATS_PAIRED),
				 r->pairs);
	}
	assert_true(isinf(stats_mde_pct(1.0, 1, STATS_PAIRED)));
	assert_int_equal(stats_runs_needed(NAN, 1.0, STATS_PAIRED), STATS_RUNS_NEEDED_MAX);
	assert_int_equal(stats_runs_needed(1e6, 1e-6, STATS_PAIRED), STATS_RUNS_NEEDED_MAX);
}

/*
 * What pairing buys: the drifting sample's 1% is lost in the unpaired
 * comparison of the same numbers, found by the paired one, with an MDE
 * several times smaller.
 */
static void test_pairing_cancels_drift(void **state)
{
	struct stats_comparison unpaired;
	struct stats_paired paired;

	(void)state;
	assert_int_equal(stats_compare(drift_one_percent_a, 30,
				       drift_one_percent_b, 30, &unpaired), 0);
	assert_int_equal(stats_compare_paired(drift_one_percent_a,
					      drift_one_percent_b, 30, &paired), 0);
	assert_false(unpaired.significant);
	assert_true(paired.significant);
	assert_true(paired.mde_pct * 3 < unpaired.mde_pct);
	assert_true(paired.correlation > 0.9);
}

static void test_degenerate_inputs(void **state)
{
	static const double a[] = { 10, 11, 12 };
	static const double shifted[] = { 11, 12, 13 };
	double zeros[] = { 0, 0, 0 }, w, p;
	struct stats_paired c;
	bool exact;

	(void)state;
	assert_int_equal(stats_compare_paired(a, a, 1, &c), -EINVAL);
	/* identical arms: no difference at all, and no test can say more */
	assert_int_equal(stats_compare_paired(a, a, 3, &c), 0);
	assert_true(c.p == 1.0 && !c.significant);
	assert_true(c.wilcoxon_p == 1.0);
	/* every pair +1 exactly: no noise, certain */
	assert_int_equal(stats_compare_paired(a, shifted, 3, &c), 0);
	assert_true(c.p == 0.0 && c.significant);
	assert_int_equal(stats_wilcoxon(zeros, 3, &w, &p, &exact), -EINVAL);
	assert_true(w == 0 && p == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paired_matches_scipy),
		cmocka_unit_test(test_ci_agrees_with_p),
		cmocka_unit_test(test_mde_and_pairs_needed_match_scipy),
		cmocka_unit_test(test_pairing_cancels_drift),
		cmocka_unit_test(test_degenerate_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
