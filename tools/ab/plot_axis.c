// SPDX-License-Identifier: GPL-2.0
/* Tick values and their labels for the plots (plot_axis.h). */
#include "plot_axis.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

/* 1, 2 or 5 times a power of ten, the smallest step giving <= 10 ticks. */
static double round_step(double span)
{
	double base = pow(10, floor(log10(span / 10)));
	static const double factors[] = { 1, 2, 5, 10 };

	for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); i++)
		if (span / (base * factors[i]) <= 10)
			return base * factors[i];
	return base * 10;
}

size_t plot_ticks(double lo, double hi, double *ticks, size_t max)
{
	double step, first;
	size_t n = 0;

	if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
		return 0;
	step = round_step(hi - lo);
	first = ceil(lo / step - 1e-9) * step;
	for (double v = first; v <= hi + step * 1e-9 && n < max; v = first + step * (double)n) {
		/* -0 and 1e-17 print as 0 */
		ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

void plot_tick_labels(const double *ticks, size_t n, const char *unit,
		      char labels[][32])
{
	static const char *const prefixes[] = { "n", "µ", "m", "", "k", "M", "G" };
	bool scaled = strcmp(unit, "%") && *unit;
	double top = 0, step = n > 1 ? fabs(ticks[1] - ticks[0]) : fabs(ticks[0]);
	int power = 0, decimals;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fabs(ticks[i]));
	if (scaled && top > 0) {
		power = (int)floor(log10(top) / 3) * 3;
		power = power < -9 ? -9 : power > 9 ? 9 : power;
	}
	step /= pow(10, power);
	decimals = step > 0 ? (int)ceil(-log10(step) - 1e-9) : 0;
	decimals = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	for (size_t i = 0; i < n; i++)
		snprintf(labels[i], 32, "%.*f%s%s%s", decimals,
			 ticks[i] / pow(10, power), scaled ? " " : "",
			 scaled ? prefixes[power / 3 + 3] : "", unit);
}

/* At most this many ticks on a log axis: its labels crowd where it is dense. */
#define RATIO_TICKS_MAX 8

/*
 * The ratios m * 10^d from e^lo to e^hi, in percent, for the m of rungs
 * and every d that is a multiple of every (so that 1, 0%, is one of them
 * when in range); their number, or cap + 1 when there are more.
 */
static size_t ratio_rungs(double lo, double hi, const double *rungs, size_t n_rungs,
			  long every, double *ticks, size_t cap)
{
	long first = (long)floor(lo / M_LN10), last = (long)floor(hi / M_LN10);
	size_t n = 0;

	for (long d = first; d <= last; d++) {
		if (d % every)
			continue;
		for (size_t i = 0; i < n_rungs; i++) {
			double ratio = rungs[i] * pow(10, (double)d), v = log(ratio);

			if (v < lo - 1e-9 || v > hi + 1e-9)
				continue;
			if (n == cap)
				return cap + 1;
			ticks[n++] = (ratio - 1) * 100;
		}
	}
	return n;
}

size_t plot_ratio_ticks(double lo, double hi, double *ticks, size_t max)
{
	/* per decade, finest first; each is round in percent both ways */
	static const double rungs[][11] = {
		{ 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8 },
		{ 1, 1.5, 2, 3, 5, 7 },
		{ 1, 2, 5 },
		{ 1 },
	};
	static const size_t n_rungs[] = { 11, 6, 3, 1 };
	const size_t ladders = sizeof(n_rungs) / sizeof(n_rungs[0]);
	size_t cap = max < RATIO_TICKS_MAX ? max : RATIO_TICKS_MAX, n = 0;

	if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
		return 0;
	for (size_t l = 0; l < ladders; l++) {
		long decades = (long)floor(hi / M_LN10) - (long)floor(lo / M_LN10) + 1;
		/* the coarsest: every few decades, as many as fit */
		long every = l + 1 < ladders ? 1 : (decades + (long)cap - 1) / (long)cap;

		n = ratio_rungs(lo, hi, rungs[l], n_rungs[l], every, ticks, cap);
		if (n <= cap)
			break;
	}
	if (n < 4 || n > cap)
		return plot_ticks(expm1(lo) * 100, expm1(hi) * 100, ticks, max);
	return n;
}

void plot_ratio_tick_labels(const double *ticks, size_t n, char labels[][32])
{
	bool even = n > 2;

	for (size_t i = 1; even && i + 1 < n; i++)
		even = fabs(ticks[i + 1] - ticks[i] - (ticks[1] - ticks[0])) <
		       1e-9 * fabs(ticks[1] - ticks[0]);
	if (even) {
		plot_tick_labels(ticks, n, "%", labels);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int decimals = 0;

		while (decimals < 6 &&
		       fabs(ticks[i] - round(ticks[i] * pow(10, decimals)) / pow(10, decimals)) >
		       1e-9 * fmax(1, fabs(ticks[i])))
			decimals++;
		snprintf(labels[i], 32, "%.*f%%", decimals, ticks[i]);
	}
}

/* A row's interval's width in log ratios: infinite to -100%, NaN without one. */
static double interval_width(const struct forest_row *r)
{
	return plot_log_ratio(r->hi_pct) - plot_log_ratio(r->lo_pct);
}

/*
 * The upper median of the hosts' interval widths (the middle one, or the
 * wider of the two middle ones); 0 without any, or without memory for
 * them: the axis then takes the effects' span alone.
 */
static double median_width(const struct forest_plot *f)
{
	double *widths = malloc(f->n_rows * sizeof(*widths)), median = 0;
	size_t n = 0;

	if (!widths)
		return 0;
	for (size_t i = 0; i < f->n_rows; i++) {
		double w = interval_width(&f->rows[i]);

		if (!isnan(w))
			widths[n++] = w;
	}
	if (n) {
		gsl_sort(widths, 1, n);
		median = widths[n / 2];
	}
	free(widths);
	return median;
}

/*
 * The effects (and 0) are always on the axis. The intervals take it
 * further by half the effects' span, or by the hosts' median interval if
 * that is wider: the hosts' usual intervals fit whole, while one huge
 * interval (a host with few pairs; the pooled one of two hosts, on a t
 * with 1 df) cannot squeeze the others into a few pixels.
 */
void plot_forest_range(const struct forest_plot *f, double *lo, double *hi)
{
	double centre_lo = 0, centre_hi = 0, reach, pad;

	for (size_t i = 0; i <= f->n_rows; i++) {
		const struct forest_row *r = i < f->n_rows ? &f->rows[i] : &f->pooled;
		double v = plot_log_ratio(r->effect_pct);

		if (isfinite(v)) {
			centre_lo = fmin(centre_lo, v);
			centre_hi = fmax(centre_hi, v);
		}
	}
	reach = fmax((centre_hi - centre_lo) / 2, median_width(f));
	*lo = centre_lo;
	*hi = centre_hi;
	for (size_t i = 0; i <= f->n_rows; i++) {
		const struct forest_row *r = i < f->n_rows ? &f->rows[i] : &f->pooled;
		double v_lo = plot_log_ratio(r->lo_pct), v_hi = plot_log_ratio(r->hi_pct);

		if (isfinite(v_lo))
			*lo = fmin(*lo, fmax(v_lo, centre_lo - reach));
		if (isfinite(v_hi))
			*hi = fmax(*hi, fmin(v_hi, centre_hi + reach));
	}
	pad = (*hi - *lo) * 0.05;
	/* nothing to scale by (one host at 0, no interval): +-5% */
	if (!(pad > 0))
		pad = plot_log_ratio(5);
	*lo -= pad;
	*hi += pad;
}
