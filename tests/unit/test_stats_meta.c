// SPDX-License-Identifier: GPL-2.0
/* tools/stats_meta.c against R's metafor (fixtures/meta_reference.*). */
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

#include "stats_meta.h"

struct meta_reference {
	const char *name;
	const double *y;
	const double *v;
	size_t k;
	double tau2, mu, se, ci_lo, ci_hi;
	double p, q, q_p, i2_pct, pi_lo, pi_hi;
};

#include "fixtures/meta_reference.h"

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

/* 4 significant digits; an exact 0 (tau^2 on its boundary) stays 0. */
static void assert_4_digits(double got, double want, const char *what,
			    const char *set)
{
	double tolerance = 5e-5 * fabs(want) + 1e-15;

	if (!(fabs(got - want) <= tolerance))
		fail_msg("%s %s: got %.10g, metafor %.10g", set, what, got, want);
}

static void test_matches_metafor(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(meta_references); i++) {
		const struct meta_reference *ref = &meta_references[i];
		struct meta_result r;

		assert_int_equal(meta_random_effects(ref->y, ref->v, ref->k, &r), 0);
		assert_true(r.converged);
		assert_4_digits(r.tau2, ref->tau2, "tau2", ref->name);
		assert_4_digits(r.mu, ref->mu, "mu", ref->name);
		assert_4_digits(r.se, ref->se, "se", ref->name);
		assert_4_digits(r.ci_lo, ref->ci_lo, "ci_lo", ref->name);
		assert_4_digits(r.ci_hi, ref->ci_hi, "ci_hi", ref->name);
		assert_4_digits(r.p, ref->p, "p", ref->name);
		assert_4_digits(r.q, ref->q, "Q", ref->name);
		assert_4_digits(r.q_p, ref->q_p, "Q p", ref->name);
		assert_4_digits(r.i2_pct, ref->i2_pct, "I2", ref->name);
		assert_4_digits(r.pi_lo, ref->pi_lo, "pi_lo", ref->name);
		assert_4_digits(r.pi_hi, ref->pi_hi, "pi_hi", ref->name);
		assert_4_digits(r.tau, sqrt(ref->tau2), "tau", ref->name);
	}
}

static void test_strata_difference_matches_metafor(void **state)
{
	double y[2][6], v[2][6], mu[2], se[2], q, p;
	size_t n[2] = { 0 };
	struct meta_result r;

	(void)state;
	for (size_t i = 0; i < N_ELEMENTS(strata_group); i++) {
		int g = strata_group[i] - 1;

		y[g][n[g]] = hetero_y[i];
		v[g][n[g]++] = hetero_v[i];
	}
	for (int g = 0; g < 2; g++) {
		assert_int_equal(meta_random_effects(y[g], v[g], n[g], &r), 0);
		assert_4_digits(r.mu, strata_mu[g], "stratum mu", "strata");
		assert_4_digits(r.se_z, strata_se_z[g], "stratum se", "strata");
		mu[g] = r.mu;
		se[g] = r.se_z;
	}
	assert_int_equal(meta_q_between(mu, se, 2, &q, &p), 0);
	assert_4_digits(q, strata_q_between, "Q between", "strata");
	assert_4_digits(p, strata_q_between_p, "Q between p", "strata");
}

/* The log ratio's delta-method variance, by hand. */
static void test_log_ratio(void **state)
{
	double y, var;

	(void)state;
	assert_int_equal(meta_log_ratio(100, 110, 4, 9, 0, &y, &var), 0);
	assert_4_digits(y, log(1.1), "y", "log ratio");
	assert_4_digits(var, 4.0 / 10000 + 9.0 / 12100, "var", "log ratio");
	/* a positive covariance (pairing) takes variance away */
	assert_int_equal(meta_log_ratio(100, 110, 4, 9, 5, &y, &var), 0);
	assert_4_digits(var, 4.0 / 10000 + 9.0 / 12100 - 10.0 / 11000, "var",
			"paired log ratio");
	assert_int_equal(meta_log_ratio(0, 110, 4, 9, 0, &y, &var), -EDOM);
	assert_int_equal(meta_log_ratio(100, -1, 4, 9, 0, &y, &var), -EDOM);
}

static void test_degenerate_input(void **state)
{
	const double y[] = { 0.01, 0.02 }, v[] = { 1e-4, 0 };
	const double se_bad[] = { 0.1, 0 };
	struct meta_result r;
	double q, p;

	(void)state;
	assert_int_equal(meta_random_effects(y, v, 1, &r), -EINVAL);
	assert_int_equal(meta_random_effects(y, v, 2, &r), -EINVAL);
	assert_int_equal(meta_q_between(y, se_bad, 2, &q, &p), -EINVAL);
	assert_int_equal(meta_q_between(y, se_bad, 1, &q, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_metafor),
		cmocka_unit_test(test_strata_difference_matches_metafor),
		cmocka_unit_test(test_log_ratio),
		cmocka_unit_test(test_degenerate_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
