// SPDX-License-Identifier: GPL-2.0
/* Paired statistics; the methods are described in stats_paired.h. */
#include "stats_paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/*
 * Every subset of ranks is equally likely; count[s] = subsets summing to
 * s, built one rank at a time. Counts stay below 2^50 for m <= 50: exact
 * in doubles.
 */
double stats_signed_rank_cdf(size_t m, size_t w)
{
	size_t top = m * (m + 1) / 2;
	double *count = calloc(top + 1, sizeof(*count));
	double below = 0;

	if (!count)
		return NAN;
	count[0] = 1;
	for (size_t rank = 1; rank <= m; rank++)
		for (size_t s = top; s >= rank; s--)
			count[s] += count[s - rank];
	for (size_t s = 0; s <= w && s <= top; s++)
		below += count[s];
	free(count);
	return below / ldexp(1.0, (int)m);
}

int stats_wilcoxon(const double *d, size_t n, double *w, double *p,
		   bool *exact)
{
	struct stats_ranked *all = malloc((n ? n : 1) * sizeof(*all));
	double w_plus = 0, w_minus = 0, tie_term, mean, var, z;
	bool ties;
	size_t m = 0, i;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			all[m++] = (struct stats_ranked){ .value = fabs(d[i]),
							  .group = d[i] > 0 };
	*w = 0;
	*p = 1;
	*exact = false;
	if (m == 0) {
		free(all);
		return -EINVAL;
	}
	tie_term = stats_rank(all, m);
	ties = tie_term > 0;
	for (i = 0; i < m; i++) {
		if (all[i].group)
			w_plus += all[i].rank;
		else
			w_minus += all[i].rank;
	}
	free(all);
	*w = fmin(w_plus, w_minus);
	*exact = !ties && m == n && m <= STATS_WILCOXON_EXACT_MAX;
	if (*exact) {
		*p = 2.0 * stats_signed_rank_cdf(m, (size_t)llround(*w));
	} else {
		mean = (double)m * (double)(m + 1) / 4.0;
		var = (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24.0 -
			tie_term / 48.0;
		if (!(var > 0))
			return 0;
		/* W <= mean: the continuity correction moves it up by 1/2 */
		z = (*w - mean + (*w < mean ? 0.5 : 0.0)) / sqrt(var);
		*p = 2.0 * gsl_cdf_ugaussian_Q(fabs(z));
	}
	if (*p > 1.0)
		*p = 1.0;
	return 0;
}

int stats_compare_paired(const double *a, const double *b, size_t n,
			 struct stats_paired *out)
{
	double *d, v_aa, v_bb, v_ab, se, t_crit;
	int err;

	if (n < 2)
		return -EINVAL;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	memset(out, 0, sizeof(*out));
	out->n = n;
	err = stats_summarize(a, n, &out->a);
	if (!err)
		err = stats_summarize(b, n, &out->b);
	if (!err)
		err = stats_summarize(d, n, &out->d);
	if (!err)
		err = stats_wilcoxon(d, n, &out->wilcoxon_w, &out->wilcoxon_p,
				     &out->wilcoxon_exact);
	free(d);
	if (err && err != -EINVAL)
		return err;

	out->correlation = out->a.stddev > 0 && out->b.stddev > 0 ?
		gsl_stats_correlation(a, 1, b, 1, n) : NAN;
	v_aa = out->a.stddev * out->a.stddev / (double)n;
	v_bb = out->b.stddev * out->b.stddev / (double)n;
	v_ab = gsl_stats_covariance_m(a, 1, b, 1, n, out->a.mean, out->b.mean) /
		(double)n;
	se = out->d.stddev / sqrt((double)n);
	out->df = (double)n - 1.0;
	out->diff_pct = 100.0 * out->d.mean / out->a.mean;
	out->ratio = out->b.mean / out->a.mean;
	if (se > 0) {
		out->t = out->d.mean / se;
		out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	} else {
		/* every pair differs by the same: certain, or nothing */
		out->t = out->d.mean == 0 ? 0 : copysign(INFINITY, out->d.mean);
		out->p = out->d.mean == 0 ? 1.0 : 0.0;
	}
	t_crit = gsl_cdf_tdist_Pinv(1.0 - STATS_ALPHA / 2.0, out->df);
	stats_fieller(out->a.mean, out->b.mean, v_aa, v_bb, v_ab, t_crit,
		      &out->ratio_ci_lo, &out->ratio_ci_hi);
	out->diff_ci_lo_pct = 100.0 * (out->ratio_ci_lo - 1.0);
	out->diff_ci_hi_pct = 100.0 * (out->ratio_ci_hi - 1.0);
	out->significant = out->p < STATS_ALPHA;
	out->noise_pct = 100.0 * out->d.stddev / fabs(out->a.mean);
	out->mde_pct = stats_mde_pct(out->noise_pct, n, STATS_PAIRED);
	return 0;
}
