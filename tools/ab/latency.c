// SPDX-License-Identifier: GPL-2.0
/* Latency per slice and its paired comparison (see latency.h). */
#include "latency.h"
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ab_latency_add(struct ab_latency *lat, const struct interleave *il,
		   const struct ab_sample *sample)
{
	double begin = sample->iv.t - sample->iv.interval_s;
	struct ab_slice_latency *s;
	size_t k;

	if (!il->n || (isnan(sample->lat_mean_ms) && isnan(sample->lat_pct_ms)))
		return 0;
	if (il->allocated > lat->allocated) {
		s = realloc(lat->slices, il->allocated * sizeof(*s));
		if (!s)
			return -ENOMEM;
		memset(s + lat->allocated, 0,
		       (il->allocated - lat->allocated) * sizeof(*s));
		lat->slices = s;
		lat->allocated = il->allocated;
	}
	/* the slice il_add_interval() chose: the last begun by then */
	for (k = il->n - 1; k && il->slices[k].start > begin; k--)
		;
	s = &lat->slices[k];
	if (!isnan(sample->lat_mean_ms)) {
		s->mean_sum += sample->lat_mean_ms * sample->iv.interval_s;
		s->mean_time_s += sample->iv.interval_s;
	}
	if (!isnan(sample->lat_pct_ms)) {
		s->pct_sum += sample->lat_pct_ms * sample->iv.interval_s;
		s->pct_time_s += sample->iv.interval_s;
		lat->pct = sample->lat_pct;
	}
	return 0;
}

void ab_latency_free(struct ab_latency *lat)
{
	free(lat->slices);
	memset(lat, 0, sizeof(*lat));
}

/* A slice's figure: the mean or the percentile; NaN without one. */
static double slice_figure(const struct ab_latency *lat, size_t k, bool pct)
{
	const struct ab_slice_latency *s;

	if (k >= lat->allocated)
		return NAN;
	s = &lat->slices[k];
	if (pct)
		return s->pct_time_s > 0 ? s->pct_sum / s->pct_time_s : NAN;
	return s->mean_time_s > 0 ? s->mean_sum / s->mean_time_s : NAN;
}

static int compare(const struct ab_latency *lat, const struct interleave *il,
		   bool pct, unsigned long seed, struct ab_latency_cmp *c)
{
	size_t room = il->n / 2 + 1, n = 0;
	double *a = malloc(room * sizeof(*a)), *b = malloc(room * sizeof(*b));
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!a || !b) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = il->warmup; k + 1 < il->n; k += 2) {
		size_t ka = il->slices[k].arm == AB_ARM_A ? k : k + 1;
		double x, y;

		if (il_slice_fate_paired(il, k) != IL_KEPT)
			continue;
		x = slice_figure(lat, ka, pct);
		y = slice_figure(lat, ka == k ? k + 1 : k, pct);
		if (isnan(x) || isnan(y))
			continue;
		a[n] = x;
		b[n++] = y;
	}
	if (n < 2 || stats_compare_paired(a, b, n, &c->cmp))
		goto out;
	for (size_t i = 0; i < n; i++)
		b[i] = 100 * (b[i] - a[i]) / c->cmp.a.mean;
	err = stats_signflip(b, n, seed, &c->test);
	c->compared = !err;
out:
	free(a);
	free(b);
	return err;
}

int ab_latency_build(const struct ab_latency *lat, const struct interleave *il,
		     unsigned long seed, struct ab_latency_report *r)
{
	int err = compare(lat, il, false, seed, &r->mean);

	if (!err)
		err = compare(lat, il, true, seed, &r->pct);
	r->pct_level = lat->pct;
	return err;
}

static void print_one(FILE *out, const char *what, const struct ab_latency_cmp *c)
{
	if (!c->compared)
		return;
	fprintf(out, "latency %s: A %.4g ms, B %.4g ms, B vs A %+.2f%% (95%% CI %+.2f%% to %+.2f%%, sign-flip p %.3g, %zu pairs; a figure, not a verdict)\n",
		what, c->cmp.a.mean, c->cmp.b.mean, c->test.mean, c->test.ci_lo,
		c->test.ci_hi, c->test.p, c->cmp.n);
}

void ab_latency_print_table(FILE *out, const struct ab_latency_report *r)
{
	char what[32];

	print_one(out, "mean", &r->mean);
	snprintf(what, sizeof(what), "p%g", r->pct_level);
	print_one(out, what, &r->pct);
}

static json_t *cmp_json(const struct ab_latency_cmp *c)
{
	json_t *o;

	if (!c->compared)
		return json_null();
	o = json_object();
	json_put(o, "pairs", json_count(c->cmp.n));
	json_put(o, "a", json_real_or_null(c->cmp.a.mean));
	json_put(o, "b", json_real_or_null(c->cmp.b.mean));
	json_put(o, "diff_pct", json_real_or_null(c->test.mean));
	json_put(o, "diff_ci_pct", json_pair(c->test.ci_lo, c->test.ci_hi));
	json_put(o, "signflip_p", json_real_or_null(c->test.p));
	return o;
}

json_t *ab_latency_json(const struct ab_latency_report *r)
{
	json_t *o;

	if (!r->mean.compared && !r->pct.compared)
		return NULL;
	o = json_object();
	json_put(o, "mean_ms", cmp_json(&r->mean));
	json_put(o, "pct", json_real_or_null(r->pct_level));
	json_put(o, "pct_ms", cmp_json(&r->pct));
	return o;
}
