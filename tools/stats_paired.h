/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics of paired observations (a_i, b_i): the interleaved A/B pairs
 * two slices adjacent in time, so what drifts slowly is in both and
 * cancels in b_i - a_i. The same questions as stats.h, paired:
 *  - difference: 100 (mean_b - mean_a) / mean_a. Its CI is Fieller's
 *    interval for the ratio of two correlated means: the r with
 *    (mean_b - r mean_a)^2 <= t^2 (v_bb - 2 r v_ab + r^2 v_aa), where
 *    v = (co)variance / n and t the two-sided 1 - alpha quantile at
 *    n - 1 df. At r = 1 this is the paired t-test, so a bounded CI
 *    excludes 0% exactly when the paired p < alpha; unbounded (NaN) when
 *    mean_a^2 <= t^2 v_aa.
 *  - paired t-test on d_i = b_i - a_i (two-sided, n - 1 df).
 *  - Wilcoxon signed-rank test (two-sided) on the d_i, zeros dropped:
 *    exact null distribution when no |d_i| tie and at most
 *    STATS_WILCOXON_EXACT_MAX remain, else the normal approximation with
 *    tie and continuity correction. W = min(W+, W-).
 *  - noise: 100 sd(d) / mean_a, the spread of one pair's difference;
 *    mde(n) = (t(1 - alpha/2, n - 1) + t(power, n - 1)) noise / sqrt(n),
 *    pairs needed for d = smallest n >= 2 with mde(n) <= d (stats.h's
 *    stats_mde_pct() and stats_runs_needed() with STATS_PAIRED).
 *  - correlation: Pearson's r of a and b across the pairs; how much of
 *    each arm's spread the pairing removed (unpaired, the same slices
 *    would have the noise of stats_compare()).
 */
#ifndef VMPCTL_STATS_PAIRED_H
#define VMPCTL_STATS_PAIRED_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

#define STATS_WILCOXON_EXACT_MAX 50

struct stats_paired {
	size_t n;
	struct stats_summary a;
	struct stats_summary b;
	struct stats_summary d;	/* b_i - a_i */
	double correlation;	/* NaN when an arm has no spread */
	double diff_pct;	/* 100 (mean_b - mean_a) / mean_a */
	double diff_ci_lo_pct;	/* 100 (ratio CI - 1); NaN when unbounded */
	double diff_ci_hi_pct;
	double ratio;
	double ratio_ci_lo;
	double ratio_ci_hi;
	double t;
	double df;
	double p;
	double wilcoxon_w;
	double wilcoxon_p;
	bool wilcoxon_exact;
	bool significant;	/* p < STATS_ALPHA */
	double noise_pct;	/* 100 sd(d) / mean_a */
	double mde_pct;		/* at n pairs */
};

/* 0, or -EINVAL with fewer than 2 pairs. */
int stats_compare_paired(const double *a, const double *b, size_t n,
			 struct stats_paired *out);

/*
 * Two-sided Wilcoxon signed-rank test of d[0..n-1] against 0, zeros
 * dropped. 0, or -EINVAL when no d is non-zero (then w = 0, p = 1).
 */
int stats_wilcoxon(const double *d, size_t n, double *w, double *p,
		   bool *exact);

/*
 * P(W+ <= w) under H0 for m ranks 1..m without ties (exact; m at most
 * STATS_WILCOXON_EXACT_MAX); NaN when out of memory.
 */
double stats_signed_rank_cdf(size_t m, size_t w);

#endif
