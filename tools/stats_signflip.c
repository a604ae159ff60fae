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

/* The means of the flipped subsets of the sign vectors compared. */
struct flip_tally {
	double total;		/* sum d_i: the observed statistic */
	double *subset_means;
	size_t n_means;
};

static void tally(struct flip_tally *t, double flipped_sum, size_t flipped)
{
	if (flipped)
		t->subset_means[t->n_means++] = flipped_sum / (double)flipped;
}

int stats_signflip(const double *d, size_t n, unsigned long seed,
		   struct stats_signflip *out)
{
	bool exact = n <= STATS_SIGNFLIP_EXACT_MAX;
	size_t vectors = exact ? (size_t)1 << n : STATS_SIGNFLIP_DRAWS + 1;
	struct flip_tally t = { 0 };
	size_t k, below = 0, above = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		t.total += d[i];
	t.subset_means = malloc(vectors * sizeof(*t.subset_means));
	if (!t.subset_means)
		return -ENOMEM;
	if (exact) {
		for (size_t mask = 0; mask < vectors; mask++) {
			double flipped_sum = 0;
			size_t flipped = 0;

			for (size_t i = 0; i < n; i++) {
				if (mask >> i & 1) {
					flipped_sum += d[i];
					flipped++;
				}
			}
			tally(&t, flipped_sum, flipped);
		}
	} else {
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

		if (!rng) {
			free(t.subset_means);
			return -ENOMEM;
		}
		/*
		 * Not the seed itself: ab drew the pairs' order from MT19937
		 * with it, and the swaps must not repeat that order's bits.
		 */
		gsl_rng_set(rng, seed * 0x9e3779b97f4a7c15ul + 0x632be59bd9b4e019ul);
		tally(&t, 0, 0);	/* the identity: as observed */
		for (size_t v = 1; v < vectors; v++) {
			double flipped_sum = 0;
			size_t flipped = 0;

			/* MT19937 gives 32 random bits a call: one per pair */
			for (size_t i = 0; i < n; i += 32) {
				unsigned long bits = gsl_rng_get(rng);

				for (size_t j = i; j < n && j < i + 32; j++) {
					if (bits >> (j - i) & 1) {
						flipped_sum += d[j];
						flipped++;
					}
				}
			}
			tally(&t, flipped_sum, flipped);
		}
		gsl_rng_free(rng);
	}
	qsort(t.subset_means, t.n_means, sizeof(*t.subset_means), compare_doubles);
	for (size_t j = 0; j < t.n_means; j++) {
		below += t.subset_means[j] <= 0;
		above += t.subset_means[j] >= 0;
	}
	/* both one-sided counts include the identity */
	k = (size_t)ceil(STATS_ALPHA / 2 * (double)vectors) - 1;
	out->n = n;
	out->mean = t.total / (double)n;
	out->p = fmin(1.0, 2.0 * (double)(1 + (below < above ? below : above)) /
		      (double)vectors);
	out->exact = exact;
	out->vectors = vectors;
	if (k == 0 || k > t.n_means) {
		out->ci_lo = -INFINITY;
		out->ci_hi = INFINITY;
	} else {
		out->ci_lo = t.subset_means[k - 1];
		out->ci_hi = t.subset_means[t.n_means - k];
	}
	free(t.subset_means);
	return 0;
}
