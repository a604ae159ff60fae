/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plots' axes (plot_cairo.c): tick values at round steps (1, 2 or 5
 * times a power of ten) and their labels with an SI prefix and the unit,
 * so that a reader sees "20 k/s" or "5 ms", not "2.232e+04". The forest
 * plot's data lives here, below plot.h, because its x range is the axis's.
 */
#ifndef VMPCTL_AB_PLOT_AXIS_H
#define VMPCTL_AB_PLOT_AXIS_H

#include <math.h>
#include <stddef.h>

#define PLOT_TICKS_MAX 12

/* vmpctl ab merge --plot: one row of the forest plot, in percent. */
struct forest_row {
	const char *label;
	double effect_pct;
	double lo_pct;
	double hi_pct;
};

/*
 * A forest plot: a row per host, its effect and interval; at the bottom
 * the pooled effect as a diamond over its interval and the prediction
 * interval for a new host as a bar under it.
 */
struct forest_plot {
	const char *title;	/* knob, arms, verdict */
	const char *metric;	/* what the percentages are of */
	const struct forest_row *rows;
	size_t n_rows;
	struct forest_row pooled;
	double pi_lo_pct;
	double pi_hi_pct;
};

/*
 * The round values from lo to hi (lo < hi) at a step giving 4 to 10 of
 * them, at most max; the number written to ticks.
 */
size_t plot_ticks(double lo, double hi, double *ticks, size_t max);

/*
 * Every tick's label: value in the SI prefix that suits the largest |tick|
 * (n, µ, m, none, k, M, G), with as many decimals as the step needs, then
 * the unit ("s", "/s"; "%" and "" take no prefix: a percent or a count is
 * printed as it is).
 */
void plot_tick_labels(const double *ticks, size_t n, const char *unit,
		      char labels[][32]);

/*
 * The forest plot's x axis is in log ratios, ln(B/A), labelled as the
 * change in percent: the merge pools log ratios, so a host's interval is
 * symmetric about its square there, -50% and +100% lie as far from 0, and
 * a host at +400% does not squeeze one at +5% onto 0 as on a linear axis.
 */
static inline double plot_log_ratio(double pct)
{
	return log1p(pct / 100);
}

/*
 * The ticks of an axis of log ratios from lo to hi, as the changes in
 * percent they stand for: the ratios at round values per decade (1, 2, 5
 * times a power of ten, or finer: round in percent too, and evenly spread
 * on the axis), 4 to 8 of them; an axis too short for 4 gets round steps
 * in percent (plot_ticks()), which it spreads nearly evenly. The number
 * written to ticks (room for max).
 */
size_t plot_ratio_ticks(double lo, double hi, double *ticks, size_t max);

/*
 * The labels of plot_ratio_ticks(): round ratios each with the decimals it
 * needs ("-99.9%", "-90%", "900%": one count of decimals for all would
 * print "900.0%"); round steps in percent as plot_tick_labels() has them.
 */
void plot_ratio_tick_labels(const double *ticks, size_t n, char labels[][32]);

/*
 * The forest plot's x range, in log ratios: 0, every host and the pooled
 * effect, with the hosts' and the pooled intervals as far as they reach
 * (see plot_axis.c), and a margin. Not the prediction interval: with few
 * hosts it runs to millions of percent. What runs further is drawn to the
 * edge with an arrow head.
 */
void plot_forest_range(const struct forest_plot *f, double *lo, double *hi);

#endif
