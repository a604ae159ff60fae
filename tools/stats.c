// SPDX-License-Identifier: GPL-2.0
/* Statistics for A/B comparisons; the methods are described in stats.h. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static double *sorted_copy(const double *x, size_t n)
{
	double *copy = malloc(n * sizeof(*copy));

	if (!copy)
		return NULL;
	memcpy(copy, x, n * sizeof(*copy));
	gsl_sort(copy, 1, n);
	return copy;
}

void stats_median_ci(const double *sorted, size_t n, double *lo, double *hi,
		     double *coverage)
{
	/* k is 1-based; k = 1 ([min, max]) when nothing better fits */
	size_t k = 1;

	while (k < (n + 1) / 2 &&
	       gsl_cdf_binomial_P((unsigned int)k, 0.5, (unsigned int)n) <=
	       STATS_ALPHA / 2)
		k++;
	*lo = sorted[k - 1];
	*hi = sorted[n - k];
	*coverage = 1.0 - 2.0 * gsl_cdf_binomial_P((unsigned int)(k - 1), 0.5,
						   (unsigned int)n);
}

int stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	double *sorted;

	if (n == 0)
		return -EINVAL;
	sorted = sorted_copy(x, n);
	if (!sorted)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->mean = gsl_stats_mean(x, 1, n);
	out->stddev = n < 2 ? NAN : gsl_stats_sd_m(x, 1, n, out->mean);
	out->cov_pct = 100.0 * out->stddev / out->mean;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	stats_median_ci(sorted, n, &out->median_ci_lo, &out->median_ci_hi,
			&out->median_ci_coverage);
	free(sorted);
	return 0;
}

static int compare_ranked(const void *l, const void *r)
{
	double a = ((const struct stats_ranked *)l)->value;
	double b = ((const struct stats_ranked *)r)->value;

	return (a > b) - (a < b);
}

double stats_rank(struct stats_ranked *items, size_t n)
{
	double tie_term = 0;
	size_t i, j;

	qsort(items, n, sizeof(*items), compare_ranked);
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && items[j].value == items[i].value; j++)
			;
		rank = (double)(i + 1 + j) / 2.0;	/* mean of i+1 .. j */
		t = (double)(j - i);
		tie_term += t * t * t - t;
		for (size_t k = i; k < j; k++)
			items[k].rank = rank;
	}
	return tie_term;
}

/*
 * P(U <= u) under H0 without ties: the counts of U are the coefficients of
 * the Gaussian binomial [m + n choose m]_q = prod_i (1 - q^(n+i)) / (1 - q^i),
 * built one factor at a time, truncated at degree m n (a coefficient only
 * depends on lower ones). Every intermediate is an integer below 2^53 for
 * m, n <= STATS_MWU_EXACT_MAX, so doubles hold them exactly.
 */
static double mwu_exact_cdf(size_t m, size_t n, size_t u)
{
	size_t top = m * n, i, j;
	double *count = calloc(top + 1, sizeof(*count));
	double below = 0, total = 0;

	if (!count)
		return NAN;
	count[0] = 1;
	for (i = 1; i <= m; i++) {
		for (j = top; j >= n + i && j <= top; j--)
			count[j] -= count[j - (n + i)];
		for (j = i; j <= top; j++)
			count[j] += count[j - i];
	}
	for (j = 0; j <= top; j++) {
		total += count[j];
		if (j <= u)
			below += count[j];
	}
	free(count);
	return below / total;
}

int stats_mann_whitney(const double *x, size_t n_x, const double *y,
		       size_t n_y, double *u, double *p, bool *exact)
{
	size_t n = n_x + n_y, i;
	struct stats_ranked *all;
	double rank_sum_x = 0, tie_term, u_x, mu, sigma, z;
	bool ties;

	if (n_x == 0 || n_y == 0)
		return -EINVAL;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < n_x; i++)
		all[i] = (struct stats_ranked){ .value = x[i], .group = 0 };
	for (i = 0; i < n_y; i++)
		all[n_x + i] = (struct stats_ranked){ .value = y[i], .group = 1 };
	tie_term = stats_rank(all, n);
	ties = tie_term > 0;
	for (i = 0; i < n; i++)
		if (all[i].group == 0)
			rank_sum_x += all[i].rank;
	free(all);

	u_x = rank_sum_x - (double)n_x * (double)(n_x + 1) / 2.0;
	*u = u_x;
	mu = (double)n_x * (double)n_y / 2.0;
	*exact = !ties && n_x <= STATS_MWU_EXACT_MAX &&
		n_y <= STATS_MWU_EXACT_MAX;
	if (*exact) {
		double u_min = fmin(u_x, (double)n_x * n_y - u_x);

		*p = 2.0 * mwu_exact_cdf(n_x, n_y, (size_t)llround(u_min));
	} else {
		sigma = sqrt((double)n_x * n_y / 12.0 *
			     ((double)(n + 1) - tie_term / ((double)n * (n - 1))));
		if (sigma == 0) {
			*p = 1.0;
			return 0;
		}
		z = (fabs(u_x - mu) - 0.5) / sigma;
		*p = 2.0 * gsl_cdf_ugaussian_Q(z);
	}
	if (*p > 1.0)
		*p = 1.0;
	return 0;
}

/*
 * How many observations one difference is made of: two independent means
 * (each with n - 1 df), or the mean of n paired differences.
 */
static unsigned int samples_per_difference(enum stats_design design)
{
	return design == STATS_UNPAIRED ? 2 : 1;
}

double stats_mde_pct(double noise_pct, size_t n, enum stats_design design)
{
	double k = samples_per_difference(design);
	double df = k * ((double)n - 1.0);

	if (n < 2)
		return INFINITY;
	return (gsl_cdf_tdist_Pinv(1.0 - STATS_ALPHA / 2.0, df) +
		gsl_cdf_tdist_Pinv(STATS_POWER, df)) * noise_pct *
		sqrt(k / (double)n);
}

size_t stats_runs_needed(double noise_pct, double target_pct,
			 enum stats_design design)
{
	double z = gsl_cdf_ugaussian_Pinv(1.0 - STATS_ALPHA / 2.0) +
		gsl_cdf_ugaussian_Pinv(STATS_POWER);
	double estimate;
	size_t n;

	target_pct = fabs(target_pct);
	if (!(target_pct > 0) || !isfinite(noise_pct))
		return STATS_RUNS_NEEDED_MAX;
	/* the normal approximation is a lower bound: start there, step up */
	estimate = samples_per_difference(design) *
		pow(z * noise_pct / target_pct, 2);
	if (estimate >= STATS_RUNS_NEEDED_MAX)
		return STATS_RUNS_NEEDED_MAX;
	n = estimate < 2 ? 2 : (size_t)floor(estimate);
	while (n < STATS_RUNS_NEEDED_MAX &&
	       stats_mde_pct(noise_pct, n, design) > target_pct)
		n++;
	return n;
}

int stats_fieller(double mean_a, double mean_b, double v_aa, double v_bb,
		  double v_ab, double t, double *lo, double *hi)
{
	/* q r^2 - 2 h r + c <= 0 */
	double q = mean_a * mean_a - t * t * v_aa;
	double h = mean_a * mean_b - t * t * v_ab;
	double c = mean_b * mean_b - t * t * v_bb;
	double half;

	*lo = *hi = NAN;
	if (!(q > 0))
		return -ERANGE;
	/* at r = mean_b / mean_a the left side is <= 0: real roots */
	half = sqrt(fmax(0.0, h * h - q * c));
	*lo = (h - half) / q;
	*hi = (h + half) / q;
	return 0;
}

struct ranked_p {
	double p;
	size_t index;
};

static int compare_p(const void *l, const void *r)
{
	double a = ((const struct ranked_p *)l)->p;
	double b = ((const struct ranked_p *)r)->p;

	return (a > b) - (a < b);
}

void stats_holm(const double *p, size_t n, double *adjusted)
{
	struct ranked_p sorted[16], *order = n <= 16 ? sorted :
		malloc(n * sizeof(*order));
	double running = 0;

	if (!order) {
		/* out of memory: Bonferroni, never less strict than Holm */
		for (size_t i = 0; i < n; i++)
			adjusted[i] = fmin(1.0, (double)n * p[i]);
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (struct ranked_p){ p[i], i };
	qsort(order, n, sizeof(*order), compare_p);
	for (size_t i = 0; i < n; i++) {
		running = fmax(running, fmin(1.0, (double)(n - i) * order[i].p));
		adjusted[order[i].index] = running;
	}
	if (order != sorted)
		free(order);
}

int stats_compare(const double *a, size_t n_a, const double *b, size_t n_b,
		  struct stats_comparison *out)
{
	double var_a, var_b, se2, diff, t;
	int err;

	if (n_a < 2 || n_b < 2)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	err = stats_summarize(a, n_a, &out->a);
	if (!err)
		err = stats_summarize(b, n_b, &out->b);
	if (!err)
		err = stats_mann_whitney(a, n_a, b, n_b, &out->mwu_u,
					 &out->mwu_p, &out->mwu_exact);
	if (err)
		return err;

	var_a = out->a.stddev * out->a.stddev / (double)n_a;
	var_b = out->b.stddev * out->b.stddev / (double)n_b;
	se2 = var_a + var_b;
	diff = out->b.mean - out->a.mean;
	out->diff_pct = 100.0 * diff / out->a.mean;
	out->ratio = out->b.mean / out->a.mean;
	if (se2 > 0) {
		out->welch_t = diff / sqrt(se2);
		out->welch_df = se2 * se2 /
			(var_a * var_a / (double)(n_a - 1) +
			 var_b * var_b / (double)(n_b - 1));
		out->welch_p = 2.0 * gsl_cdf_tdist_Q(fabs(out->welch_t),
						     out->welch_df);
	} else {
		/* no noise at all: any difference is certain, none is none */
		out->welch_t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->welch_df = (double)(n_a + n_b - 2);
		out->welch_p = diff == 0 ? 1.0 : 0.0;
	}
	t = gsl_cdf_tdist_Pinv(1.0 - STATS_ALPHA / 2.0, out->welch_df);
	stats_fieller(out->a.mean, out->b.mean, var_a, var_b, 0, t,
		      &out->ratio_ci_lo, &out->ratio_ci_hi);
	out->diff_ci_lo_pct = 100.0 * (out->ratio_ci_lo - 1.0);
	out->diff_ci_hi_pct = 100.0 * (out->ratio_ci_hi - 1.0);
	out->significant = out->welch_p < STATS_ALPHA;
	out->noise_pct = 100.0 *
		sqrt((out->a.stddev * out->a.stddev +
		      out->b.stddev * out->b.stddev) / 2.0) /
		fabs(out->a.mean);
	out->mde_pct = stats_mde_pct(out->noise_pct, n_a < n_b ? n_a : n_b,
				     STATS_UNPAIRED);
	return 0;
}

int stats_format_marker(char *buf, size_t len, double diff_pct,
			bool significant)
{
	if (!isfinite(diff_pct))
		return snprintf(buf, len, "(   n/a)");
	if (significant)
		return snprintf(buf, len, "*%.2f%%*", diff_pct);
	return snprintf(buf, len, "(%6.2f%%)", diff_pct);
}

void stats_wilson(size_t k, size_t n, double *lo, double *hi)
{
	double z = gsl_cdf_ugaussian_Pinv(1.0 - STATS_ALPHA / 2.0);
	double p = (double)k / (double)n, z2n = z * z / (double)n;
	double centre = (p + z2n / 2) / (1 + z2n);
	double half = z / (1 + z2n) * sqrt(p * (1 - p) / (double)n +
					   z2n / (4 * (double)n));

	*lo = fmax(0, centre - half);
	*hi = fmin(1, centre + half);
}

double stats_fair_coin_p(size_t k, size_t n)
{
	double below, above;

	if (!n)
		return 1;
	below = gsl_cdf_binomial_P((unsigned int)k, 0.5, (unsigned int)n);
	above = k ? gsl_cdf_binomial_Q((unsigned int)k - 1, 0.5, (unsigned int)n) : 1;
	return fmin(1, 2 * fmin(below, above));
}
