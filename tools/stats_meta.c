// SPDX-License-Identifier: GPL-2.0
/* Random-effects meta-analysis; the methods are described in stats_meta.h. */
#include "stats_meta.h"

#include <errno.h>
#include <math.h>

#include <gsl/gsl_cdf.h>

/* Sums over the studies with weights w_i = 1 / (v_i + tau2). */
struct weighted_sums {
	double w;		/* sum w */
	double w2;		/* sum w^2 */
	double w3;		/* sum w^3 */
	double mu;		/* sum w y / sum w */
	double wr2;		/* sum w (y - mu)^2 */
	double w2r2;		/* sum w^2 (y - mu)^2 */
};

static void weigh(const double *y, const double *v, size_t k, double tau2,
		  struct weighted_sums *s)
{
	double wy = 0;

	*s = (struct weighted_sums){ 0 };
	for (size_t i = 0; i < k; i++) {
		double w = 1.0 / (v[i] + tau2);

		s->w += w;
		s->w2 += w * w;
		s->w3 += w * w * w;
		wy += w * y[i];
	}
	s->mu = wy / s->w;
	for (size_t i = 0; i < k; i++) {
		double w = 1.0 / (v[i] + tau2), r2 = (y[i] - s->mu) * (y[i] - s->mu);

		s->wr2 += w * r2;
		s->w2r2 += w * w * r2;
	}
}

/* REML's tau^2 by Fisher scoring; false when it did not converge. */
static bool reml_tau2(const double *y, const double *v, size_t k, double *tau2)
{
	double mean_y = 0, mean_v = 0, var_y = 0, t = 0;

	for (size_t i = 0; i < k; i++) {
		mean_y += y[i] / (double)k;
		mean_v += v[i] / (double)k;
	}
	for (size_t i = 0; i < k; i++)
		var_y += (y[i] - mean_y) * (y[i] - mean_y) / (double)(k - 1);
	t = fmax(0.0, var_y - mean_v);	/* Hedges' estimate */
	for (int iter = 0; iter < META_REML_MAX_ITERATIONS; iter++) {
		struct weighted_sums s;
		double trace_p, trace_pp, next, step;
		int halvings = 0;

		weigh(y, v, k, t, &s);
		/* P = W - w w' / sum w; PY = w (y - mu) */
		trace_p = s.w - s.w2 / s.w;
		trace_pp = s.w2 - 2.0 * s.w3 / s.w + s.w2 * s.w2 / (s.w * s.w);
		step = (s.w2r2 - trace_p) / trace_pp;
		while (t + step < 0 && halvings++ < 100)
			step /= 2;
		next = fmax(0.0, t + step);
		if (fabs(next - t) < META_REML_TOLERANCE) {
			*tau2 = next;
			return true;
		}
		t = next;
	}
	*tau2 = t;
	return false;
}

int meta_random_effects(const double *y, const double *v, size_t k,
			struct meta_result *out)
{
	struct weighted_sums s, fe;
	double df = (double)k - 1, crit, s2, pi_se;

	if (k < 2)
		return -EINVAL;
	for (size_t i = 0; i < k; i++)
		if (!(v[i] > 0) || !isfinite(v[i]) || !isfinite(y[i]))
			return -EINVAL;
	*out = (struct meta_result){ .k = k };
	out->converged = reml_tau2(y, v, k, &out->tau2);
	out->tau = sqrt(out->tau2);
	weigh(y, v, k, out->tau2, &s);
	out->mu = s.mu;
	out->se_z = 1.0 / sqrt(s.w);
	out->se = sqrt(s.wr2 / (df * s.w));
	crit = gsl_cdf_tdist_Qinv(0.025, df);
	out->ci_lo = out->mu - crit * out->se;
	out->ci_hi = out->mu + crit * out->se;
	out->t = out->mu / out->se;
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(out->t), df);

	weigh(y, v, k, 0.0, &fe);
	out->q = fe.wr2;
	out->q_p = gsl_cdf_chisq_Q(out->q, df);
	s2 = df * fe.w / (fe.w * fe.w - fe.w2);
	out->i2_pct = 100.0 * out->tau2 / (out->tau2 + s2);

	pi_se = sqrt(out->se * out->se + out->tau2);
	out->pi_lo = out->mu - crit * pi_se;
	out->pi_hi = out->mu + crit * pi_se;
	return 0;
}

int meta_q_between(const double *b, const double *se, size_t n, double *q,
		   double *p)
{
	double sw = 0, swb = 0, mean;

	if (n < 2)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!(se[i] > 0) || !isfinite(se[i]))
			return -EINVAL;
		sw += 1.0 / (se[i] * se[i]);
		swb += b[i] / (se[i] * se[i]);
	}
	mean = swb / sw;
	*q = 0;
	for (size_t i = 0; i < n; i++)
		*q += (b[i] - mean) * (b[i] - mean) / (se[i] * se[i]);
	*p = gsl_cdf_chisq_Q(*q, (double)n - 1);
	return 0;
}

int meta_log_ratio(double ma, double mb, double va, double vb, double cov,
		   double *y, double *var)
{
	if (!(ma > 0) || !(mb > 0))
		return -EDOM;
	*y = log(mb / ma);
	*var = va / (ma * ma) + vb / (mb * mb) - 2.0 * cov / (ma * mb);
	return 0;
}
