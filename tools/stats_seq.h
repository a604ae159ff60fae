/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sequential (always-valid) inference on interleaved A/B pairs: an answer
 * may be read after every pair, and the run stopped as soon as it is
 * clear, without raising the false-positive rate that peeking at a
 * fixed-sample p does.
 *
 * Each pair gives d = log(b) - log(a), o = +1 when B ran second (AB) and
 * -1 when it ran first (BA). The effect mu is the mean of d, a ratio
 * exp(mu) of B to A. With the order drawn at random, d - mu = o * g where
 * g (the second slice against the first, less the effect) does not depend
 * on o: d - mu is symmetric given the past, whatever the noise (drift,
 * heavy tails, a period, a different spread per arm). For such
 * increments exp(l S - l^2 V / 2), S = sum (d_i - mu), V = sum (d_i -
 * mu)^2, is a supermartingale for every l (de la Pena 1999), and so is
 * its mixture over l ~ N(0, 1 / rho):
 *	M = sqrt(rho / (V + rho)) exp(S^2 / (2 (V + rho))).
 * By Ville's inequality M ever reaches 1 / alpha with chance at most
 * alpha; the mu where it has not are a confidence sequence, valid at
 * every pair at once (Robbins 1970; Howard et al. 2021). The variance is
 * no estimate: V, the sum of squares itself, scales the test.
 *  - Mixing: at the intrinsic time m = V the boundary on |S| is
 *    sqrt((m + rho) (2 log(1/a) + log(1 + m / rho))), a the mixture's
 *    level below; rho = k m with the k that makes it smallest (k solves
 *    2 log(1/a) + log(1 + 1/k) = 1/k: 0.122 at a = 0.05). m = n sigma^2
 *    for the n pairs at which the interval's half-width comes to 3/4 of
 *    --target, sigma^2 the
 *    sample variance of d over the first STATS_SEQ_TUNING_PAIRS pairs;
 *    those only tune (rho, the regression below) and the test counts
 *    from the pair after them.
 *  - Interval: the mixture's confidence set is a central interval around
 *    the mean and, while few pairs are in, far tails where V outgrows S
 *    (the boundary gives up on huge mu). Beside it runs a one-sign
 *    e-process: K = 2^(n-1) while every d - mu has had the same sign (a
 *    fair coin each), else 0. The test is their average E = (1 - w) M +
 *    w K, w = STATS_SEQ_SIGN_WEIGHT, an e-process too, rejected at E >=
 *    1 / alpha; so the mixture's set is taken at 1 / ((1 - w) alpha),
 *    and once w 2^(n-1) >= 1 / alpha (9 pairs at alpha 0.05) it is cut
 *    to the range of the d. The printed interval is the hull of what is
 *    left (infinite while a far tail is in); p_always = min(1, 1 / max E
 *    at mu = 0).
 *  - Variance reduction, with the same guarantee: d is adjusted by
 *    d' = d - f, f = b1 o + b2 o g_prev + b3 dc, fitted by least squares
 *    (exponential forgetting, half-life STATS_SEQ_HALF_LIFE pairs) on the
 *    past pairs only, so d' - mu = o (g - b1 - b2 g_prev) - b3 (dc - ...)
 *    is still symmetric given the past. The adjustment is made only while
 *    it has predicted the past pairs' d better than their mean did (an
 *    adjustment that does not fit, in noise without drift, adds its
 *    fitting error to each d). b1 takes the order and a linear
 *    drift (the second slice of a pair runs later), b2 the previous
 *    pair's gap g_prev = o_prev d_prev (a slow drift, a period), b3 a
 *    per-slice covariate the knob cannot change (CUPED): dc = log(c_b) -
 *    log(c_a). A covariate the knob does change would bias d' by b3
 *    times its shift, so its own dc goes through the same always-valid
 *    test of balance; once that rejects, the covariate is refused and
 *    the answer is the one adjusted for order and drift alone (that
 *    adjustment runs beside it from the first pair).
 *  - Null model: the guarantee is exact when B multiplies A's rate by a
 *    constant and the order is random (the sharp null for A/A).
 */
#ifndef VMPCTL_STATS_SEQ_H
#define VMPCTL_STATS_SEQ_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_SEQ_TUNING_PAIRS 4
#define STATS_SEQ_HALF_LIFE 64.0
#define STATS_SEQ_SIGN_WEIGHT 0.125

enum stats_seq_verdict {
	STATS_SEQ_RUNNING,
	STATS_SEQ_EFFECT,		/* the interval excludes 0 */
	STATS_SEQ_WITHIN_TARGET,	/* the interval is inside +-target */
};

enum stats_seq_adjust {
	STATS_SEQ_RAW,			/* d as measured */
	STATS_SEQ_ORDER,		/* for order and drift */
	STATS_SEQ_COVARIATE,		/* ... and the covariate */
	STATS_SEQ_ADJUSTMENTS,
};

struct stats_seq_pair {
	double a, b;		/* the arms' rates, > 0 */
	bool b_second;		/* the pair ran A then B */
	double cov_a, cov_b;	/* the covariate per slice, > 0, if any */
};

/* One always-valid test of the mean of d, adjusted one way. */
struct stats_seq_test {
	enum stats_seq_adjust adjust;
	double xtx[4][4];	/* the adjustment's regression, forgetting */
	double xty[4];
	size_t seen;		/* pairs, the tuning ones included */
	double seen_sum;	/* of d */
	double sse_raw;		/* each d against the mean before it */
	double sse_adjusted;	/* ... less the adjustment fitted before it */
	size_t n;		/* pairs tested (after the tuning ones) */
	double sum;		/* of the adjusted d */
	double sum_sq;
	double log_e_max;	/* largest log E at mu = 0 so far */
	double min;		/* of the adjusted d */
	double max;
	double estimate;	/* mean adjusted d, log ratio */
	double lo;		/* the interval, log ratio; +-INFINITY: unbounded */
	double hi;
};

struct stats_seq {
	double alpha;
	double target_lo;	/* log(1 - T), log(1 + T) */
	double target_hi;
	double rho;		/* the mixing of the tests of d */
	double balance_rho;	/* ... and of the balance test of dc */
	bool have_covariate;
	bool covariate_refused;
	size_t pairs;		/* all pairs, the tuning ones included */
	double prev_gap;
	double tuning_sum;	/* of d over the tuning pairs */
	double tuning_sum_sq;
	double cov_tuning_sum;
	double cov_tuning_sum_sq;
	struct stats_seq_test tests[STATS_SEQ_ADJUSTMENTS];
	struct stats_seq_test balance;	/* of dc, when a covariate is given */
	enum stats_seq_adjust reported;	/* the test the answer comes from */
	enum stats_seq_verdict verdict;
};

/*
 * target_pct in (0, 100), alpha in (0, 1); adjust: the most the answer
 * may use (STATS_SEQ_COVARIATE: every pair gives cov_a and cov_b).
 * 0 or -EINVAL.
 */
int stats_seq_init(struct stats_seq *s, double target_pct, double alpha,
		   enum stats_seq_adjust adjust);

/* One kept pair; the verdict after it. -EINVAL for a rate <= 0. */
int stats_seq_add(struct stats_seq *s, const struct stats_seq_pair *p);

/*
 * The reported test: estimate and interval as percent differences (-100
 * and INFINITY where unbounded), p_always = min(1, 1 / max M at mu = 0).
 */
void stats_seq_result(const struct stats_seq *s, double *diff_pct,
		      double *lo_pct, double *hi_pct, double *p_always);

/* The same of the test adjusted one way (which may not be the reported). */
void stats_seq_test_result(const struct stats_seq *s, enum stats_seq_adjust adjust,
			   double *diff_pct, double *lo_pct, double *hi_pct,
			   double *p_always);

/* The covariate's B vs A, by the always-valid test of its balance. */
void stats_seq_balance_result(const struct stats_seq *s, double *diff_pct,
			      double *lo_pct, double *hi_pct, double *p_always);

/*
 * 1 - var(adjusted d) / var(raw d) over the tested pairs: the share of
 * the variance the adjustment removed. NaN below 2 tested pairs.
 */
double stats_seq_variance_reduction(const struct stats_seq *s);

/* The same for the test adjusted one way. */
double stats_seq_test_variance_reduction(const struct stats_seq *s,
					 enum stats_seq_adjust adjust);

/* "effect", "no difference larger than target", or "running" */
const char *stats_seq_verdict_name(enum stats_seq_verdict v);

#endif
