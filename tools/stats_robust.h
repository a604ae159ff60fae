/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyses a verdict of vmpctl ab rests on, on log ratios
 * y = log(b / a): a percent 100 (exp(y) - 1) can never leave
 * (-100%, +inf), and a slow multiplicative change of the machine is a
 * shift of y that cancels in the contrasts below.
 *
 *  - Location of paired log ratios (interleaved slices): the
 *    Hodges-Lehmann estimate, the median of the n (n + 1) / 2 Walsh
 *    averages (y_i + y_j) / 2, i <= j. Its test is the Wilcoxon
 *    signed-rank test, itself a randomisation test (each pair's order
 *    drawn at random makes each y_i's sign as likely as the other under
 *    "B does nothing"); W(m) = the Walsh averages above m has the
 *    signed-rank null distribution F when m is the true shift (exact up
 *    to STATS_WILCOXON_EXACT_MAX pairs, else normal with continuity
 *    correction). p(m) = min(1, 2 F(min(W(m), N - W(m)))); p is p(0) and
 *    the CI is every m with p(m) >= alpha: the order statistics
 *    [w_(c+1), w_(N-c)] of the Walsh averages, c the largest count with
 *    2 F(c) < alpha. So p < alpha exactly when 0 is outside the CI (one
 *    inverted test), and one pair far out moves the estimate by at most
 *    one rank. Below STATS_SIGNED_RANK_MIN_PAIRS no p under alpha exists
 *    (the smallest is 2 / 2^n): not reachable, the CI is unbounded.
 *  - Order and drift (interleaved slices): a steady drift adds +delta
 *    to the pairs run A first (AB) and -delta to BA pairs, which an
 *    uneven split of orders does not cancel. delta is estimated as half
 *    the difference of the Hodges-Lehmann estimates of the AB and of
 *    the BA pairs (0 with fewer than 2 pairs of either), and the location
 *    above is taken of y_i - delta o_i (o_i = +1 for AB, -1 for BA): the
 *    robust equivalent of fitting y = effect + delta o.
 *  - Within-block contrast (whole runs in ABBA blocks): consecutive
 *    pairs of runs (AB then BA) form a block; its contrast
 *    (A1 + A2 - B1 - B2) / 2 on the log scale, the mean of its two pairs'
 *    y, cancels a linear drift inside the block. The test is Student's t
 *    over the blocks' contrasts (blocks - 1 df); p and CI come from the
 *    same t, the MDE from its df. An odd last pair is left out.
 *  - Power of the test used: mde(n) = (t(1 - alpha/2, df) + t(power,
 *    df)) sd / sqrt(n e), e the test's efficiency (3 / pi for the
 *    signed-rank test relative to t), in log units, as a percent
 *    100 (exp(mde) - 1); infinite where p < alpha is not reachable.
 */
#ifndef VMPCTL_STATS_ROBUST_H
#define VMPCTL_STATS_ROBUST_H

#include <stdbool.h>
#include <stddef.h>

/* the fewest pairs whose signed-rank p can be below 0.05: 2 / 2^6 */
#define STATS_SIGNED_RANK_MIN_PAIRS 6

struct stats_location {
	size_t n;
	double estimate;	/* Hodges-Lehmann, log units */
	double ci_lo;		/* -INFINITY / INFINITY when not reachable */
	double ci_hi;
	double p;		/* two-sided signed-rank p of the shift 0 */
	bool exact;
	bool reachable;		/* n >= STATS_SIGNED_RANK_MIN_PAIRS */
	double sd;		/* 1.4826 MAD of the values (their sd when
				   MAD is 0), log units: a pair far out
				   does not inflate it */
};

/* 0, -EINVAL without a value, or -ENOMEM. */
int stats_hodges_lehmann(const double *y, size_t n, struct stats_location *out);

struct stats_order_fit {
	size_t n_ab;		/* pairs with order +1 */
	size_t n_ba;
	double drift;		/* delta, log units */
	struct stats_location location;	/* of y_i - delta o_i */
};

/* order[i] is +1 (AB) or -1 (BA). 0, -EINVAL or -ENOMEM. */
int stats_order_adjusted(const double *y, const int *order, size_t n,
			 struct stats_order_fit *out);

struct stats_contrast {
	size_t blocks;
	double mean;		/* of the blocks' contrasts, log units */
	double sd;
	double t;
	double df;
	double p;
	double ci_lo;
	double ci_hi;
};

/*
 * The blocks of y[0..n-1] (pairs' log ratios in time order, two a
 * block). 0, or -EINVAL with fewer than 2 blocks.
 */
int stats_block_contrast(const double *y, size_t n, struct stats_contrast *out);

/* Which test an MDE is of. */
enum stats_test { STATS_TEST_T, STATS_TEST_SIGNED_RANK };

/*
 * The effect in percent the test detects with STATS_POWER at n (pairs or
 * blocks) with sd the spread of one in log units; INFINITY when p <
 * alpha is not reachable.
 */
double stats_log_mde_pct(double sd, size_t n, enum stats_test test);

/* The smallest n with stats_log_mde_pct() <= target_pct; STATS_RUNS_NEEDED_MAX when hopeless. */
size_t stats_log_needed(double sd, double target_pct, enum stats_test test);

/* 100 (exp(y) - 1): a log ratio as a percent change. */
double stats_log_pct(double y);

#endif
