/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sign-flip randomisation test of paired differences d_i: with each
 * pair's order (AB or BA) drawn at random, "B does nothing" means each d_i
 * was as likely to come out with the other sign, so the observed |sum d_i|
 * is compared with |sum s_i d_i| over sign vectors s. Its false-positive
 * rate is alpha by the design, whatever the distribution of the d_i
 * (drift, heavy tails, outliers): no normality is assumed.
 *  - The sign vectors: all 2^n when n <= STATS_SIGNFLIP_EXACT_MAX
 *    (exact), else the identity and STATS_SIGNFLIP_DRAWS random ones from
 *    GSL's MT19937 with the given seed; N in all.
 *  - One test for p and CI (so they never disagree): a flipped sum of
 *    d_i - m is at least the observed one exactly when the flipped
 *    subset's mean is at most m (Hartigan 1969). One-sided p(m) =
 *    (1 + subsets with mean <= m) / N above, (1 + those >= m) / N below
 *    (the identity counted: valid for random draws too), two-sided p(m)
 *    = min(1, 2 min of the two); p = p(0). The CI is every m with p(m) >=
 *    alpha: the k-th smallest and k-th largest of the N - 1 non-empty
 *    subsets' means, k = ceil(alpha/2 N) - 1. Unbounded (infinite) when
 *    k is 0 (n < 6).
 */
#ifndef VMPCTL_STATS_SIGNFLIP_H
#define VMPCTL_STATS_SIGNFLIP_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_SIGNFLIP_EXACT_MAX 16
#define STATS_SIGNFLIP_DRAWS 19999

struct stats_signflip {
	size_t n;
	double mean;		/* of the d_i */
	double p;		/* two-sided */
	double ci_lo;		/* of the mean; -INFINITY when unbounded */
	double ci_hi;
	bool exact;
	size_t vectors;		/* sign vectors compared, the identity included */
};

/* 0, -EINVAL with no pair, or -ENOMEM. */
int stats_signflip(const double *d, size_t n, unsigned long seed,
		   struct stats_signflip *out);

/*
 * The same for the order-adjusted mean of y (order[i] +1 for AB, -1 for
 * BA): (mean of the AB pairs + mean of the BA pairs) / 2, the intercept
 * of y = effect + drift order, so a steady drift cancels however uneven
 * the orders drawn (the plain mean when all are one order). A sign
 * vector swaps the pair's order and its sign together, as the draw of
 * the order would have; the statistic under it minus a shift m is
 * A - m B (weights from the swapped orders' group sizes, B < 1 but for
 * the identity), so the shifts where it is at least the observed one
 * start at (estimate - A) / (1 - B): p and CI from those thresholds as
 * above, one test, exact under the randomisation of orders.
 */
int stats_signflip_order_adjusted(const double *y, const int *order, size_t n,
				  unsigned long seed, struct stats_signflip *out);

#endif
