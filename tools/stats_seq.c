// SPDX-License-Identifier: GPL-2.0
/* Always-valid tests on interleaved pairs (see the header). */
#include "stats_seq.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

/* the regression's columns: the mean, o, o g_prev, dc */
#define COLUMNS 4
/* shrinks each coefficient of the adjustment toward 0 by this much */
#define RIDGE 0.1
/* pairs per column before an adjustment may be used: fewer fit noise */
#define FIT_PAIRS_PER_COLUMN 4

/* 2 log(1/alpha) + log(1 + 1/k) = 1/k, by bisection (the left side minus
 * the right rises with k). */
static double mixing_k(double alpha)
{
	double c = 2 * log(1 / alpha), lo = 1e-6, hi = 10;

	for (int i = 0; i < 100; i++) {
		double k = (lo + hi) / 2;

		if (c + log1p(1 / k) - 1 / k > 0)
			hi = k;
		else
			lo = k;
	}
	return (lo + hi) / 2;
}

/* rho for a per-pair variance var and a target half-width (log ratio) */
static double mixing_rho(double alpha, double var, double half_width)
{
	double k = mixing_k(alpha), c = 2 * log(1 / alpha);
	double pairs = (1 + k) * (c + log1p(1 / k)) * var /
		(half_width * half_width);

	return k * pairs * var;
}

/*
 * The boundary in u = n (mu - mean)^2, with A = V(mean) + rho:
 * R(u) = n u - (A + u) (c + log((A + u) / rho)); mu is rejected where
 * R >= 0. R is concave in u and R(0) < 0.
 */
static double boundary(double n, double a, double rho, double c, double u)
{
	return n * u - (a + u) * (c + log((a + u) / rho));
}

/* The u > peak where R comes back to 0 (R falls there); INFINITY past 1e300. */
static double far_root(double n, double a, double rho, double c, double peak)
{
	double lo = peak, hi = 2 * peak + a;

	while (boundary(n, a, rho, c, hi) >= 0) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (boundary(n, a, rho, c, mid) >= 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Whether the one-sign e-process alone can reach 1 / alpha: 2^(n-1) w big. */
static bool sign_rule_on(size_t n, double alpha)
{
	return n && (double)(n - 1) * log(2) + log(STATS_SEQ_SIGN_WEIGHT) >=
		log(1 / alpha);
}

/*
 * The hull of the confidence set of mu: the mixture's set at 1 / (alpha
 * w), w = 1 - STATS_SEQ_SIGN_WEIGHT (a central interval, and far tails
 * where V outgrows S) and, once the one-sign rule is on, within the range
 * of the adjusted d.
 */
static void confidence_hull(struct stats_seq_test *t, double rho, double alpha)
{
	double n = (double)t->n;
	double c = 2 * log(1 / (alpha * (1 - STATS_SEQ_SIGN_WEIGHT)));
	double mean = t->sum / n;
	double a = fmax(t->sum_sq - t->sum * mean, 0) + rho;
	/* R is largest where A + u = rho exp(n - 1 - c), R = u - (n - 1) A */
	double log_peak = log(rho) + n - 1 - c, peak, lo, hi;
	double half = INFINITY, far = INFINITY;	/* from the mean */
	bool ranged = sign_rule_on(t->n, alpha);

	t->estimate = mean;
	peak = log_peak > 690 ? INFINITY : exp(log_peak) - a;
	if (peak > 0 && (isinf(peak) || peak - (n - 1) * a > 0)) {
		lo = 0;
		hi = isinf(peak) ? a : fmin(a, peak);
		while (boundary(n, a, rho, c, hi) < 0) {
			lo = hi;
			hi = isinf(peak) ? 2 * hi : fmin(2 * hi, peak);
		}
		for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
			double mid = (lo + hi) / 2;

			if (boundary(n, a, rho, c, mid) < 0)
				lo = mid;
			else
				hi = mid;
		}
		half = sqrt(lo / n);
		if (!isinf(peak))
			far = sqrt(far_root(n, a, rho, c, peak) / n);
	}
	if (!ranged) {
		t->lo = isinf(far) ? mean - half : -INFINITY;
		t->hi = isinf(far) ? mean + half : INFINITY;
		return;
	}
	/* a far tail that starts inside the range keeps the range's end */
	t->lo = isfinite(far) && mean - far > t->min ? t->min :
		fmax(mean - half, t->min);
	t->hi = isfinite(far) && mean + far < t->max ? t->max :
		fmin(mean + half, t->max);
}

static void test_init(struct stats_seq_test *t, enum stats_seq_adjust adjust)
{
	memset(t, 0, sizeof(*t));
	t->adjust = adjust;
	t->estimate = NAN;
	t->lo = -INFINITY;
	t->hi = INFINITY;
}

static size_t columns(enum stats_seq_adjust adjust)
{
	return adjust == STATS_SEQ_RAW ? 1 :
		adjust == STATS_SEQ_ORDER ? 3 : COLUMNS;
}

/* The adjustment f from the pairs before this one (0 while unfitted). */
static double adjustment(const struct stats_seq_test *t, const double *x)
{
	size_t k = columns(t->adjust);
	double m[COLUMNS * COLUMNS], beta[COLUMNS], f = 0;
	gsl_matrix_view mv = gsl_matrix_view_array(m, k, k);
	gsl_vector_view bv = gsl_vector_view_array(beta, k);
	gsl_vector_const_view yv = gsl_vector_const_view_array(t->xty, k);
	int err;

	if (k == 1 || t->xtx[0][0] < 2)
		return 0;
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < k; j++)
			m[i * k + j] = t->xtx[i][j] +
				(i == j ? RIDGE * t->xtx[i][i] + 1e-12 : 0);
	gsl_set_error_handler_off();
	err = gsl_linalg_cholesky_decomp1(&mv.matrix);
	if (!err)
		err = gsl_linalg_cholesky_solve(&mv.matrix, &yv.vector, &bv.vector);
	if (err)
		return 0;
	for (size_t i = 1; i < k; i++)
		f += beta[i] * x[i];
	return f;
}

static void fit(struct stats_seq_test *t, const double *x, double d)
{
	size_t k = columns(t->adjust);
	double keep = exp2(-1 / STATS_SEQ_HALF_LIFE);

	for (size_t i = 0; i < k; i++) {
		for (size_t j = 0; j < k; j++)
			t->xtx[i][j] = keep * t->xtx[i][j] + x[i] * x[j];
		t->xty[i] = keep * t->xty[i] + x[i] * d;
	}
}

static void test_add(struct stats_seq_test *t, const double *x, double d,
		     bool tuning, double rho, double alpha)
{
	double f = adjustment(t, x), adjusted, log_m, log_e;
	double past_mean = t->seen ? t->seen_sum / (double)t->seen : 0;

	/* adjust only while the fit has predicted the past pairs better */
	adjusted = t->seen >= FIT_PAIRS_PER_COLUMN * columns(t->adjust) &&
		t->sse_adjusted < t->sse_raw ? d - f : d;
	t->sse_raw += (d - past_mean) * (d - past_mean);
	t->sse_adjusted += (d - f - past_mean) * (d - f - past_mean);
	t->seen++;
	t->seen_sum += d;
	fit(t, x, d);
	if (tuning)
		return;
	t->min = t->n ? fmin(t->min, adjusted) : adjusted;
	t->max = t->n ? fmax(t->max, adjusted) : adjusted;
	t->n++;
	t->sum += adjusted;
	t->sum_sq += adjusted * adjusted;
	log_m = 0.5 * log(rho / (t->sum_sq + rho)) +
		t->sum * t->sum / (2 * (t->sum_sq + rho));
	log_e = log1p(-STATS_SEQ_SIGN_WEIGHT) + log_m;
	if (t->min > 0 || t->max < 0) {	/* every adjusted d on one side of 0 */
		double log_k = log(STATS_SEQ_SIGN_WEIGHT) + (double)(t->n - 1) * log(2);

		log_e = fmax(log_e, log_k) + log1p(exp(-fabs(log_e - log_k)));
	}
	t->log_e_max = fmax(t->log_e_max, log_e);
	confidence_hull(t, rho, alpha);
}

int stats_seq_init(struct stats_seq *s, double target_pct, double alpha,
		   enum stats_seq_adjust adjust)
{
	memset(s, 0, sizeof(*s));
	if (!(target_pct > 0 && target_pct < 100 && alpha > 0 && alpha < 1) ||
	    adjust >= STATS_SEQ_ADJUSTMENTS)
		return -EINVAL;
	s->alpha = alpha;
	s->target_lo = log1p(-target_pct / 100);
	s->target_hi = log1p(target_pct / 100);
	s->have_covariate = adjust == STATS_SEQ_COVARIATE;
	s->reported = adjust;
	for (int i = 0; i < STATS_SEQ_ADJUSTMENTS; i++)
		test_init(&s->tests[i], i);
	test_init(&s->balance, STATS_SEQ_RAW);
	return 0;
}

static double tuning_variance(double sum, double sum_sq)
{
	double n = STATS_SEQ_TUNING_PAIRS;

	return fmax((sum_sq - sum * sum / n) / (n - 1), 1e-12);
}

int stats_seq_add(struct stats_seq *s, const struct stats_seq_pair *p)
{
	double o = p->b_second ? 1 : -1, d, dc = 0, x[COLUMNS];
	bool tuning = s->pairs < STATS_SEQ_TUNING_PAIRS;
	double half = 0.75 * s->target_hi;
	double mixture_alpha = s->alpha * (1 - STATS_SEQ_SIGN_WEIGHT);
	const struct stats_seq_test *r;

	if (!(p->a > 0 && p->b > 0) ||
	    (s->have_covariate && !(p->cov_a > 0 && p->cov_b > 0)))
		return -EINVAL;
	d = log(p->b / p->a);
	if (s->have_covariate)
		dc = log(p->cov_b / p->cov_a);
	x[0] = 1;
	x[1] = o;
	x[2] = o * s->prev_gap;
	x[3] = dc;
	if (tuning) {
		s->tuning_sum += d;
		s->tuning_sum_sq += d * d;
		s->cov_tuning_sum += dc;
		s->cov_tuning_sum_sq += dc * dc;
	}
	s->pairs++;
	if (s->pairs == STATS_SEQ_TUNING_PAIRS + 1) {
		s->rho = mixing_rho(mixture_alpha, tuning_variance(s->tuning_sum,
							      s->tuning_sum_sq),
				    half);
		s->balance_rho = mixing_rho(mixture_alpha,
					    tuning_variance(s->cov_tuning_sum,
							    s->cov_tuning_sum_sq),
					    half);
	}
	for (int i = 0; i < STATS_SEQ_ADJUSTMENTS; i++)
		if (i != STATS_SEQ_COVARIATE || s->have_covariate)
			test_add(&s->tests[i], x, d, tuning, s->rho, s->alpha);
	if (s->have_covariate) {
		test_add(&s->balance, x, dc, tuning, s->balance_rho, s->alpha);
		if (s->balance.lo > 0 || s->balance.hi < 0) {
			s->covariate_refused = true;
			s->reported = STATS_SEQ_ORDER;
		}
	}
	s->prev_gap = o * d;
	r = &s->tests[s->reported];
	s->verdict = r->lo > 0 || r->hi < 0 ? STATS_SEQ_EFFECT :
		r->lo > s->target_lo && r->hi < s->target_hi ?
		STATS_SEQ_WITHIN_TARGET : STATS_SEQ_RUNNING;
	return 0;
}

static double to_pct(double log_ratio)
{
	return 100 * expm1(log_ratio);
}

static void test_result(const struct stats_seq_test *r, double *diff_pct,
			double *lo_pct, double *hi_pct, double *p_always)
{
	*diff_pct = to_pct(r->estimate);
	*lo_pct = to_pct(r->lo);
	*hi_pct = to_pct(r->hi);
	*p_always = fmin(1, exp(-r->log_e_max));
}

void stats_seq_result(const struct stats_seq *s, double *diff_pct,
		      double *lo_pct, double *hi_pct, double *p_always)
{
	test_result(&s->tests[s->reported], diff_pct, lo_pct, hi_pct, p_always);
}

void stats_seq_test_result(const struct stats_seq *s, enum stats_seq_adjust adjust,
			   double *diff_pct, double *lo_pct, double *hi_pct,
			   double *p_always)
{
	test_result(&s->tests[adjust], diff_pct, lo_pct, hi_pct, p_always);
}

void stats_seq_balance_result(const struct stats_seq *s, double *diff_pct,
			      double *lo_pct, double *hi_pct, double *p_always)
{
	test_result(&s->balance, diff_pct, lo_pct, hi_pct, p_always);
}

double stats_seq_variance_reduction(const struct stats_seq *s)
{
	return stats_seq_test_variance_reduction(s, s->reported);
}

double stats_seq_test_variance_reduction(const struct stats_seq *s,
					 enum stats_seq_adjust adjust)
{
	const struct stats_seq_test *raw = &s->tests[STATS_SEQ_RAW];
	const struct stats_seq_test *r = &s->tests[adjust];
	double n = (double)raw->n;

	if (raw->n < 2)
		return NAN;
	return 1 - (r->sum_sq - r->sum * r->sum / n) /
		(raw->sum_sq - raw->sum * raw->sum / n);
}

const char *stats_seq_verdict_name(enum stats_seq_verdict v)
{
	switch (v) {
	case STATS_SEQ_EFFECT:
		return "effect";
	case STATS_SEQ_WITHIN_TARGET:
		return "no difference larger than target";
	default:
		return "running";
	}
}
