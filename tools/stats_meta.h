/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random-effects meta-analysis of k effects y_i with known within-study
 * variances v_i (vmpctl ab merge: one A/B per host, y the log of B's mean
 * over A's). Methods, as R's metafor computes them for
 * rma(yi, vi, method = "REML", test = "knha") and predict():
 *  - tau^2, the between-study variance: REML by Fisher scoring,
 *    tau^2 += (Y'PPY - tr P) / tr PP with P = W - w w' / sum w and
 *    W = diag(1 / (v_i + tau^2)), halving a step that would make tau^2
 *    negative; started at the Hedges estimate, stopped when a step is
 *    below META_REML_TOLERANCE.
 *  - pooled effect mu = sum w y / sum w at that tau^2; its interval is
 *    Hartung-Knapp-Sidik-Jonkman's: se^2 = sum w (y - mu)^2 / ((k - 1)
 *    sum w), mu +- t(0.975, k - 1) se, and the t-test of mu = 0 with k - 1
 *    df. It keeps its coverage with few studies, where the normal
 *    interval is too narrow.
 *  - heterogeneity: Cochran's Q = sum (y - mu_FE)^2 / v with the
 *    fixed-effect mu_FE, its chi^2 p at k - 1 df; I^2 = tau^2 /
 *    (tau^2 + s^2) with the typical within variance
 *    s^2 = (k - 1) sum(1/v) / ((sum 1/v)^2 - sum(1/v^2)).
 *  - prediction interval for a new study: mu +- t(0.975, k - 1)
 *    sqrt(se^2 + tau^2) (metafor's df with test = "knha").
 *  - strata: each pooled by itself; the test of their difference is
 *    Cochran's Q over the strata's pooled effects with their REML
 *    standard errors 1 / sqrt(sum w) (no Knapp-Hartung), chi^2 at
 *    strata - 1 df; metafor: rma(b, sei = se, method = "FE") on the fits.
 */
#ifndef VMPCTL_STATS_META_H
#define VMPCTL_STATS_META_H

#include <stdbool.h>
#include <stddef.h>

#define META_REML_TOLERANCE 1e-12
#define META_REML_MAX_ITERATIONS 1000

struct meta_result {
	size_t k;
	double tau2;
	double tau;
	double mu;		/* pooled effect */
	double se;		/* Hartung-Knapp-Sidik-Jonkman */
	double se_z;		/* 1 / sqrt(sum w): the strata test's */
	double ci_lo;
	double ci_hi;
	double t;		/* mu / se, k - 1 df */
	double p;
	double q;		/* Cochran's Q */
	double q_p;
	double i2_pct;
	double pi_lo;		/* prediction interval for a new study */
	double pi_hi;
	bool converged;		/* REML (false: the last estimate) */
};

/*
 * Pools y[0..k-1] with variances v (each > 0). 0, or -EINVAL with k < 2
 * or a variance that is not positive and finite.
 */
int meta_random_effects(const double *y, const double *v, size_t k,
			struct meta_result *out);

/*
 * Cochran's Q of n estimates b with standard errors se against their
 * inverse-variance mean, and its chi^2 p at n - 1 df. 0, or -EINVAL with
 * n < 2 or an se not positive.
 */
int meta_q_between(const double *b, const double *se, size_t n, double *q,
		   double *p);

/*
 * The log of the ratio of two means ma and mb, and its variance by the
 * delta method from the means' variances and covariance:
 * va / ma^2 + vb / mb^2 - 2 cov / (ma mb). 0, or -EDOM when a mean is
 * not positive (no log ratio exists).
 */
int meta_log_ratio(double ma, double mb, double va, double vb, double cov,
		   double *y, double *var);

#endif
