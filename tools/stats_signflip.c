// SPDX-License-Identifier: GPL-2.0
/* The sign-flip randomisation test and its inverted interval (see the header). */
#include "stats_signflip.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * The shift at and above which one sign vector's statistic is at least
 * the observed one (flip[i]: pair i's sign flipped); false when it is at
 * least the observed one at every shift (the identity).
 */
typedef bool (*threshold_fn)(const void *ctx, const unsigned char *flip,
			     double *threshold);

struct plain_ctx {
	const double *d;
	size_t n;
};

/* The mean: its flipped sum beats the observed one above the subset's mean. */
static bool subset_mean(const void *ctx, const unsigned char *flip,
			double *threshold)
{
	const struct plain_ctx *c = ctx;
	double sum = 0;
	size_t flipped = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (flip[i]) {
			sum += c->d[i];
			flipped++;
		}
	}
	if (!flipped)
		return false;
	*threshold = sum / (double)flipped;
	return true;
}

/*
 * Every sign vector's threshold (all 2^n, or the identity and
 * STATS_SIGNFLIP_DRAWS drawn), then p and the CI from them; out->mean
 * is the caller's.
 */
static int invert(size_t n, unsigned long seed, threshold_fn threshold,
		  const void *ctx, struct stats_signflip *out)
{
	bool exact = n <= STATS_SIGNFLIP_EXACT_MAX;
	size_t vectors = exact ? (size_t)1 << n : STATS_SIGNFLIP_DRAWS + 1;
	double *thresholds = malloc(vectors * sizeof(*thresholds));
	unsigned char *flip = calloc(n, 1);
	size_t k, m = 0, below = 0, above = 0;
	gsl_rng *rng = NULL;

	if (!exact)
		rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!thresholds || !flip || (!exact && !rng)) {
		free(thresholds);
		free(flip);
		if (rng)
			gsl_rng_free(rng);
		return -ENOMEM;
	}
	/*
	 * Not the seed itself: ab drew the pairs' order from MT19937 with
	 * it, and the swaps must not repeat that order's bits.
	 */
	if (rng)
		gsl_rng_set(rng, seed * 0x9e3779b97f4a7c15ul + 0x632be59bd9b4e019ul);
	for (size_t v = 0; v < vectors; v++) {
		if (exact) {
			for (size_t i = 0; i < n; i++)
				flip[i] = v >> i & 1;
		} else if (v > 0) {
			/* MT19937 gives 32 random bits a call: one per pair */
			for (size_t i = 0; i < n; i += 32) {
				unsigned long bits = gsl_rng_get(rng);

				for (size_t j = i; j < n && j < i + 32; j++)
					flip[j] = bits >> (j - i) & 1;
			}
		}
		/* v == 0 drawn: the identity, as observed */
		if (threshold(ctx, flip, &thresholds[m]))
			m++;
	}
	if (rng)
		gsl_rng_free(rng);
	free(flip);
	qsort(thresholds, m, sizeof(*thresholds), compare_doubles);
	for (size_t j = 0; j < m; j++) {
		below += thresholds[j] <= 0;
		above += thresholds[j] >= 0;
	}
	/* both one-sided counts include the identity */
	k = (size_t)ceil(STATS_ALPHA / 2 * (double)vectors) - 1;
	out->n = n;
	out->p = fmin(1.0, 2.0 * (double)(1 + (below < above ? below : above)) /
		      (double)vectors);
	out->exact = exact;
	out->vectors = vectors;
	if (k == 0 || k > m) {
		out->ci_lo = -INFINITY;
		out->ci_hi = INFINITY;
	} else {
		out->ci_lo = thresholds[k - 1];
		out->ci_hi = thresholds[m - k];
	}
	free(thresholds);
	return 0;
}

int stats_signflip(const double *d, size_t n, unsigned long seed,
		   struct stats_signflip *out)
{
	struct plain_ctx ctx = { d, n };
	double total = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		total += d[i];
	err = invert(n, seed, subset_mean, &ctx, out);
	out->mean = total / (double)n;
	return err;
}

struct adjusted_ctx {
	const double *y;
	const int *order;
	size_t n;
	double estimate;	/* observed */
};

/*
 * The order-adjusted mean of y under a sign vector s (orders s o, values
 * s (y - m) + m) minus m is A - m B, weights w_i from the flipped orders'
 * group sizes; it beats the observed estimate - m where m >= (estimate -
 * A) / (1 - B). B < 1 but for the identity.
 */
static bool adjusted_threshold(const void *ctx, const unsigned char *flip,
			       double *threshold)
{
	const struct adjusted_ctx *c = ctx;
	size_t n_ab = 0;
	double a = 0, b = 0;

	for (size_t i = 0; i < c->n; i++)
		n_ab += (flip[i] ? -c->order[i] : c->order[i]) > 0;
	for (size_t i = 0; i < c->n; i++) {
		int s = flip[i] ? -1 : 1;
		bool ab = s * c->order[i] > 0;
		double w = n_ab == 0 || n_ab == c->n ? 1.0 / (double)c->n :
			1.0 / (2.0 * (double)(ab ? n_ab : c->n - n_ab));

		a += w * s * c->y[i];
		b += w * s;
	}
	if (b >= 1 - 1e-12)
		return false;
	*threshold = (c->estimate - a) / (1 - b);
	return true;
}

int stats_signflip_order_adjusted(const double *y, const int *order, size_t n,
				  unsigned long seed, struct stats_signflip *out)
{
	struct adjusted_ctx ctx = { y, order, n, 0 };
	size_t n_ab = 0;
	double sum_ab = 0, sum_ba = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (order[i] > 0) {
			sum_ab += y[i];
			n_ab++;
		} else {
			sum_ba += y[i];
		}
	}
	ctx.estimate = n_ab == 0 || n_ab == n ? (sum_ab + sum_ba) / (double)n :
		(sum_ab / (double)n_ab + sum_ba / (double)(n - n_ab)) / 2;
	err = invert(n, seed, adjusted_threshold, &ctx, out);
	out->mean = ctx.estimate;
	return err;
}
