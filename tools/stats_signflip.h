/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sign-flip randomisation test of paired differences d_i: with each
 * pair's order (AB or BA) drawn at random, "B does nothing" means each d_i
 * was as likely to come out with the other sign, so the observed |sum d_i|
 * is compared with |sum s_i d_i| over sign vectors s. Its false-positive
 * rate is alpha by the design, whatever the distribution of the d_i
 * (drift, heavy tails, outliers): no normality is assumed.
 *  - p: the share of sign vectors with |sum s_i d_i| >= |sum d_i|. All
 *    2^n of them when n <= STATS_SIGNFLIP_EXACT_MAX (exact), else the
 *    identity and STATS_SIGNFLIP_DRAWS random ones from GSL's MT19937 with
 *    the given seed: p = (1 + hits) / (1 + draws), which keeps the test
 *    at or below alpha.
 *  - CI of the mean shift: the test inverted. A shift m is rejected on
 *    one side when sum (d_i - m) is the largest of the flipped sums, which
 *    happens exactly when m is below the mean of the d_i over the flipped
 *    subset; so the bounds are order statistics of the subset means
 *    (Hartigan 1969): with N equally likely vectors, the k-th smallest and
 *    k-th largest of the N - 1 non-empty subsets' means, k = floor(alpha/2
 *    N). Unbounded (infinite) when k is 0 (n < 6).
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

#endif
