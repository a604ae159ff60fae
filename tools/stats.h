/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for comparing two arms of an A/B benchmark.
 *
 * Distributions come from GSL. Methods (each chosen so that a reader can
 * reproduce it with any statistics package):
 *  - stddev is the sample standard deviation (n - 1); CoV = stddev / mean.
 *  - median CI: distribution-free order-statistic interval [x(k), x(n-k+1)]
 *    where k is the largest rank with P(Bin(n, 1/2) <= k - 1) <= alpha/2; its
 *    coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is reported because ranks are
 *    discrete. For n <= 5 no such k exists: the interval is [min, max] and
 *    its coverage is below 95% (93.75% at n = 5).
 *  - difference: 100 (mean_b - mean_a) / mean_a = 100 (ratio - 1), with
 *    ratio = mean_b / mean_a. Its CI is Fieller's interval for the ratio
 *    of two independent means, which does not treat mean_a as known: the
 *    ratios r with (mean_b - r mean_a)^2 <= t^2 (v_b + r^2 v_a), where
 *    v = s^2 / n per arm and t the two-sided 1 - alpha quantile at
 *    Welch's df. Solved as a quadratic; when mean_a^2 <= t^2 v_a (mean_a
 *    is not told apart from 0) the set is unbounded and the CI is NaN.
 *    At r = 1 the inequality is Welch's test itself, so a bounded CI
 *    excludes 0% exactly when Welch's p < alpha.
 *  - Welch's two-sided t-test (gsl_cdf_tdist_Q).
 *  - Mann-Whitney U (two-sided): exact null distribution when there are no
 *    ties and both arms have at most STATS_MWU_EXACT_MAX runs, else the
 *    normal approximation with tie and continuity correction.
 *  - significant means Welch's p < alpha (0.05) for this comparison alone;
 *    stats_holm() adjusts a family of p-values (Holm's step-down method)
 *    for a verdict over several metrics.
 *  - power (0.8 at alpha 0.05, two-sided, equal runs per arm, noise as the
 *    pooled CoV c = sqrt((sd_a^2 + sd_b^2) / 2) / mean_a):
 *    mde(n) = (t(1 - alpha/2, 2n - 2) + t(power, 2n - 2)) * c * sqrt(2 / n)
 *    runs_needed(d) = smallest n >= 2 with mde(n) <= d. The paired
 *    design's (stats_paired.h) is the same with n - 1 df and sqrt(1 / n).
 */
#ifndef VMPCTL_STATS_H
#define VMPCTL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_ALPHA 0.05
#define STATS_POWER 0.8
#define STATS_MWU_EXACT_MAX 20
/* runs_needed() gives up above this and returns it */
#define STATS_RUNS_NEEDED_MAX 1000000

struct stats_summary {
	size_t n;
	double mean;
	double stddev;		/* NaN when n < 2 */
	double cov_pct;		/* 100 stddev / mean */
	double min;
	double max;
	double median;
	double median_ci_lo;
	double median_ci_hi;
	double median_ci_coverage;	/* achieved, 0..1 */
};

struct stats_comparison {
	struct stats_summary a;
	struct stats_summary b;
	double diff_pct;	/* 100 (mean_b - mean_a) / mean_a */
	double diff_ci_lo_pct;	/* 100 (ratio CI - 1); NaN when unbounded */
	double diff_ci_hi_pct;
	double ratio;		/* mean_b / mean_a */
	double ratio_ci_lo;	/* Fieller; NaN when unbounded */
	double ratio_ci_hi;
	double welch_t;
	double welch_df;
	double welch_p;
	double mwu_u;		/* U of arm a: pairs a > b, ties count 1/2 */
	double mwu_p;
	bool mwu_exact;
	bool significant;	/* welch_p < STATS_ALPHA */
	double noise_pct;	/* pooled CoV used for power */
	double mde_pct;		/* at min(n_a, n_b) runs per arm */
};

/* 0, or -EINVAL when n == 0. */
int stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* 0, or -EINVAL when either arm has fewer than 2 values. */
int stats_compare(const double *a, size_t n_a, const double *b, size_t n_b,
		  struct stats_comparison *out);

/*
 * Fieller's 1 - alpha interval for mean_b / mean_a: the r with
 * (mean_b - r mean_a)^2 <= t^2 (v_bb - 2 r v_ab + r^2 v_aa), where v_aa
 * and v_bb are the squared standard errors of the means (s^2 / n) and
 * v_ab their covariance (0 for independent arms). 0, or -ERANGE when it
 * is unbounded (mean_a^2 <= t^2 v_aa), with lo and hi NaN.
 */
int stats_fieller(double mean_a, double mean_b, double v_aa, double v_bb,
		  double v_ab, double t, double *lo, double *hi);

/*
 * Holm's step-down adjustment of n p-values: sorted ascending, the i-th
 * (from 0) becomes max over j <= i of min(1, (n - j) p_j). A hypothesis is
 * rejected at family-wise level alpha when its adjusted p < alpha.
 */
void stats_holm(const double *p, size_t n, double *adjusted);

/* Two-sided Mann-Whitney U test; *u is U of x. 0 or -EINVAL (empty arm). */
int stats_mann_whitney(const double *x, size_t n_x, const double *y,
		       size_t n_y, double *u, double *p, bool *exact);

/* Order-statistic CI of the median of sorted[0..n-1]. */
void stats_median_ci(const double *sorted, size_t n, double *lo, double *hi,
		     double *coverage);

/*
 * The design a difference comes from: two independent arms of n runs
 * each (noise: the pooled CoV), or n pairs (noise: the CoV of one pair's
 * difference, stats_paired.h).
 */
enum stats_design { STATS_UNPAIRED, STATS_PAIRED };

/* Minimum detectable effect in percent at noise_pct and n runs per arm (pairs). */
double stats_mde_pct(double noise_pct, size_t n, enum stats_design design);

/* Two-sided exact binomial test of k heads in n fair coin tosses (1 for n 0). */
double stats_fair_coin_p(size_t k, size_t n);

/*
 * Runs per arm (pairs) to detect target_pct; STATS_RUNS_NEEDED_MAX when
 * hopeless.
 */
size_t stats_runs_needed(double noise_pct, double target_pct,
			 enum stats_design design);

/*
 * Ranks for the rank tests: a value and which sample (or sign) it
 * belongs to; stats_rank() sorts items by value and gives each its rank,
 * 1-based, ties sharing the mean of their ranks. Returns the tie term,
 * the sum over groups of t tied values of t^3 - t (0: no ties).
 */
struct stats_ranked {
	double value;
	int group;
	double rank;
};

double stats_rank(struct stats_ranked *items, size_t n);

/*
 * mmtests-style marker: "*-6.10%*" when significant, "( -1.43%)" when not,
 * "(   n/a)" for a non-finite difference. Returns snprintf's result.
 */
int stats_format_marker(char *buf, size_t len, double diff_pct,
			bool significant);

/*
 * Wilson's 95% score interval for a proportion of k in n (n > 0): how
 * well a counted rate (an A/A's false positives) is known.
 */
void stats_wilson(size_t k, size_t n, double *lo, double *hi);

#endif
