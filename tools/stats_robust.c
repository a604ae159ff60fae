// SPDX-License-Identifier: GPL-2.0
/* Robust and design-aware analyses on log ratios; methods in stats_robust.h. */
#include "stats_robust.h"
#include "stats.h"
#include "stats_paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

double stats_log_pct(double y)
{
	return 100.0 * expm1(y);
}

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* P(W+ <= w) of the signed-rank statistic of n values without ties. */
static double signed_rank_cdf(size_t n, double w)
{
	double mean, sd;

	if (w < 0)
		return 0;
	if (n <= STATS_WILCOXON_EXACT_MAX)
		return stats_signed_rank_cdf(n, (size_t)floor(w));
	mean = (double)n * (double)(n + 1) / 4.0;
	sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24.0);
	return gsl_cdf_ugaussian_P((floor(w) + 0.5 - mean) / sd);
}

/* The n (n + 1) / 2 Walsh averages of y, sorted; NULL when out of memory. */
static double *walsh_averages(const double *y, size_t n, size_t *count)
{
	double *w = malloc(n * (n + 1) / 2 * sizeof(*w));
	size_t k = 0;

	if (!w)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (y[i] + y[j]) / 2.0;
	qsort(w, k, sizeof(*w), compare_doubles);
	*count = k;
	return w;
}

static double sorted_median(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
}

int stats_hodges_lehmann(const double *y, size_t n, struct stats_location *out)
{
	size_t count, c = 0;
	double above = 0;
	double *w;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	w = walsh_averages(y, n, &count);
	if (!w)
		return -ENOMEM;
	out->n = n;
	out->estimate = sorted_median(w, count);
	out->exact = n <= STATS_WILCOXON_EXACT_MAX;
	/* a Walsh average at 0 is half above, half below */
	for (size_t i = 0; i < count; i++)
		above += w[i] > 0 ? 1.0 : w[i] == 0 ? 0.5 : 0.0;
	out->p = fmin(1.0, 2.0 * signed_rank_cdf(n, fmin(above,
							 (double)count - above)));
	/* c: the largest count whose two-sided p is below alpha */
	out->reachable = 2.0 * signed_rank_cdf(n, 0) < STATS_ALPHA;
	if (out->reachable) {
		while (2.0 * signed_rank_cdf(n, (double)(c + 1)) < STATS_ALPHA)
			c++;
		out->ci_lo = w[c];
		out->ci_hi = w[count - c - 1];
	} else {
		out->ci_lo = -INFINITY;
		out->ci_hi = INFINITY;
	}
	out->sd = n > 1 ? gsl_stats_sd(y, 1, n) : NAN;
	if (n > 2) {
		/* the Walsh averages are no longer needed: 2 n <= count slots */
		double mad = gsl_stats_mad(y, 1, n, w);	/* 1.4826 MAD */

		if (mad > 0)
			out->sd = mad;
	}
	free(w);
	return 0;
}

/* The Hodges-Lehmann estimate of the y_i whose order[i] is sign. */
static int group_estimate(const double *y, const int *order, size_t n,
			  int sign, double *estimate, size_t *count)
{
	double *g = malloc(n * sizeof(*g));
	struct stats_location loc;
	int err = 0;

	if (!g)
		return -ENOMEM;
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (order[i] == sign)
			g[(*count)++] = y[i];
	*estimate = 0;
	if (*count)
		err = stats_hodges_lehmann(g, *count, &loc);
	if (*count && !err)
		*estimate = loc.estimate;
	free(g);
	return err;
}

int stats_order_adjusted(const double *y, const int *order, size_t n,
			 struct stats_order_fit *out)
{
	double ab, ba, *z;
	int err;

	memset(out, 0, sizeof(*out));
	if (!n)
		return -EINVAL;
	err = group_estimate(y, order, n, 1, &ab, &out->n_ab);
	if (!err)
		err = group_estimate(y, order, n, -1, &ba, &out->n_ba);
	if (err)
		return err;
	if (out->n_ab >= 2 && out->n_ba >= 2)
		out->drift = (ab - ba) / 2.0;
	z = malloc(n * sizeof(*z));
	if (!z)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		z[i] = y[i] - out->drift * order[i];
	err = stats_hodges_lehmann(z, n, &out->location);
	free(z);
	return err;
}

int stats_block_contrast(const double *y, size_t n, struct stats_contrast *out)
{
	size_t blocks = n / 2;
	double *c, se, t_crit;

	memset(out, 0, sizeof(*out));
	if (blocks < 2)
		return -EINVAL;
	c = malloc(blocks * sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (size_t k = 0; k < blocks; k++)
		c[k] = (y[2 * k] + y[2 * k + 1]) / 2.0;
	out->blocks = blocks;
	out->mean = gsl_stats_mean(c, 1, blocks);
	out->sd = gsl_stats_sd_m(c, 1, blocks, out->mean);
	free(c);
	out->df = (double)blocks - 1.0;
	se = out->sd / sqrt((double)blocks);
	t_crit = gsl_cdf_tdist_Pinv(1.0 - STATS_ALPHA / 2.0, out->df);
	if (se > 0) {
		out->t = out->mean / se;
		out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	} else {
		/* every block's contrast is the same: certain, or nothing */
		out->t = out->mean == 0 ? 0 : copysign(INFINITY, out->mean);
		out->p = out->mean == 0 ? 1.0 : 0.0;
	}
	out->ci_lo = out->mean - t_crit * se;
	out->ci_hi = out->mean + t_crit * se;
	return 0;
}

double stats_log_mde_pct(double sd, size_t n, enum stats_test test)
{
	/* asymptotic relative efficiency to t under normal noise */
	double efficiency = test == STATS_TEST_SIGNED_RANK ? 3.0 / M_PI : 1.0;
	double df = (double)n - 1.0;

	if (n < 2 || (test == STATS_TEST_SIGNED_RANK &&
		      n < STATS_SIGNED_RANK_MIN_PAIRS) || !isfinite(sd))
		return INFINITY;
	return stats_log_pct((gsl_cdf_tdist_Pinv(1.0 - STATS_ALPHA / 2.0, df) +
			      gsl_cdf_tdist_Pinv(STATS_POWER, df)) * sd /
			     sqrt((double)n * efficiency));
}

size_t stats_log_needed(double sd, double target_pct, enum stats_test test)
{
	size_t n = test == STATS_TEST_SIGNED_RANK ? STATS_SIGNED_RANK_MIN_PAIRS : 2;

	target_pct = fabs(target_pct);
	if (!(target_pct > 0) || !isfinite(sd))
		return STATS_RUNS_NEEDED_MAX;
	while (n < STATS_RUNS_NEEDED_MAX && stats_log_mde_pct(sd, n, test) > target_pct)
		n = n < 1024 ? n + 1 : n + n / 64;
	return n < STATS_RUNS_NEEDED_MAX ? n : STATS_RUNS_NEEDED_MAX;
}
