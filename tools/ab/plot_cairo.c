// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab report --plot: the picture of an interleaved A/B (plot.h). */
#include "plot.h"
#include "commands.h"
#include "output.h"
#include "stats.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FONT_SIZE 14.0

struct panel {
	double x0, y0, x1, y1;	/* pixels */
	double lo_x, hi_x, lo_y, hi_y;	/* data */
};

static double panel_x(const struct panel *p, double x)
{
	return p->x0 + (x - p->lo_x) / (p->hi_x - p->lo_x) * (p->x1 - p->x0);
}

static double panel_y(const struct panel *p, double y)
{
	return p->y1 - (y - p->lo_y) / (p->hi_y - p->lo_y) * (p->y1 - p->y0);
}

static void set_colour(cairo_t *cr, unsigned int rgb)
{
	cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0,
			     ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

static void text_at(cairo_t *cr, double x, double y, const char *text)
{
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, text);
}

/* Widens a range that is empty (one value) so that it can be scaled. */
static void widen(double *lo, double *hi)
{
	double pad = (*hi - *lo) * 0.05;

	if (!(pad > 0))
		pad = fabs(*lo) > 0 ? fabs(*lo) * 0.05 : 1;
	*lo -= pad;
	*hi += pad;
}

/* The frame, title, x label and the extremes of both axes. */
static void draw_axes(cairo_t *cr, const struct panel *p, const char *title,
		      const char *x_label)
{
	char num[32];

	set_colour(cr, 0x000000);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, p->x0, p->y0, p->x1 - p->x0, p->y1 - p->y0);
	cairo_stroke(cr);
	text_at(cr, p->x0, p->y0 - 10, title);
	text_at(cr, (p->x0 + p->x1) / 2 - 60, p->y1 + 36, x_label);
	snprintf(num, sizeof(num), "%.4g", p->lo_x);
	text_at(cr, p->x0, p->y1 + 18, num);
	snprintf(num, sizeof(num), "%.4g", p->hi_x);
	text_at(cr, p->x1 - 40, p->y1 + 18, num);
	snprintf(num, sizeof(num), "%.4g", p->hi_y);
	text_at(cr, 8, p->y0 + FONT_SIZE, num);
	snprintf(num, sizeof(num), "%.4g", p->lo_y);
	text_at(cr, 8, p->y1, num);
}

/* A horizontal line at data value y, when it is inside the panel. */
static void draw_level(cairo_t *cr, const struct panel *p, double y, unsigned int rgb)
{
	if (y < p->lo_y || y > p->hi_y)
		return;
	set_colour(cr, rgb);
	cairo_move_to(cr, p->x0, panel_y(p, y));
	cairo_line_to(cr, p->x1, panel_y(p, y));
	cairo_stroke(cr);
}

/* Every final slice as a bar of its rate, coloured by arm (grey: not kept). */
static void draw_slices(cairo_t *cr, const struct interleave *il, const char *metric)
{
	struct panel p = { PLOT_SLICES_X0, PLOT_SLICES_Y0, PLOT_SLICES_X1, PLOT_SLICES_Y1,
			   0, 0, 0, 0 };
	char label[160];

	for (size_t k = 0; k < il->n; k++) {
		double rate = il_slice_rate(&il->slices[k]);

		if (!isfinite(rate))
			continue;
		p.hi_y = fmax(p.hi_y, rate);
		p.hi_x = fmax(p.hi_x, il->slices[k].flip_started + il_slice_length(il, k));
	}
	/* bars from 0: a cut axis would make small differences look large */
	p.lo_x = il->n ? il->slices[0].flip_started : 0;
	if (!(p.hi_y > 0))
		p.hi_y = 1;
	widen(&p.lo_y, &p.hi_y);
	p.lo_y = 0;
	if (!(p.hi_x > p.lo_x))
		p.hi_x = p.lo_x + 1;
	for (size_t k = 0; k < il->n; k++) {
		const struct il_slice *s = &il->slices[k];
		double rate = il_slice_rate(s), x0, x1;

		if (!isfinite(rate))
			continue;
		if (il_slice_fate_paired(il, k) != IL_KEPT)
			set_colour(cr, PLOT_COLOUR_DROPPED);
		else
			set_colour(cr, s->arm == AB_ARM_A ? PLOT_COLOUR_A : PLOT_COLOUR_B);
		x0 = panel_x(&p, s->start);
		x1 = panel_x(&p, s->flip_started + il_slice_length(il, k));
		cairo_rectangle(cr, x0, panel_y(&p, rate), fmax(x1 - x0 - 1, 1),
				p.y1 - panel_y(&p, rate));
		cairo_fill(cr);
	}
	snprintf(label, sizeof(label), "slices over time: %s of A (blue) and B (orange), grey not compared",
		 metric);
	draw_axes(cr, &p, label, "seconds since the start");
}

/*
 * The kept pairs' differences in per cent of A's mean rate, as the
 * report's B vs A (whose mean they have).
 */
static size_t pair_diffs(const struct interleave *il, double *diff, double *mean_a)
{
	size_t n, room = il->n / 2 + 1, kept = 0;
	struct stats_summary sum_a;
	double *a = malloc(room * sizeof(double)), *b = malloc(room * sizeof(double));

	*mean_a = NAN;
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	n = il_kept_pairs(il, a, b);
	*mean_a = stats_summarize(a, n, &sum_a) ? NAN : sum_a.mean;
	for (size_t i = 0; *mean_a > 0 && i < n; i++)
		diff[kept++] = 100 * (b[i] - a[i]) / *mean_a;
	free(a);
	free(b);
	return kept;
}

static void draw_histogram(cairo_t *cr, const double *diff, size_t n)
{
	struct panel p = { PLOT_SLICES_X0, PLOT_HIST_Y0, PLOT_SLICES_X1, PLOT_HIST_Y1,
			   INFINITY, -INFINITY, 0, 1 };
	size_t bins = (size_t)ceil(2 * sqrt((double)n)), *count, top = 1;
	double width, mean = 0;
	char label[160];

	bins = bins < 5 ? 5 : bins > 60 ? 60 : bins;
	count = calloc(bins, sizeof(*count));
	if (!count)
		return;
	for (size_t i = 0; i < n; i++) {
		p.lo_x = fmin(p.lo_x, diff[i]);
		p.hi_x = fmax(p.hi_x, diff[i]);
		mean += diff[i] / n;
	}
	if (!n) {
		p.lo_x = -1;
		p.hi_x = 1;
	}
	widen(&p.lo_x, &p.hi_x);
	width = (p.hi_x - p.lo_x) / bins;
	for (size_t i = 0; i < n; i++) {
		size_t bin = (size_t)((diff[i] - p.lo_x) / width);

		count[bin < bins ? bin : bins - 1]++;
	}
	for (size_t i = 0; i < bins; i++)
		top = count[i] > top ? count[i] : top;
	p.hi_y = top;
	set_colour(cr, PLOT_COLOUR_HIST);
	for (size_t i = 0; i < bins; i++) {
		double x0 = panel_x(&p, p.lo_x + i * width);
		double x1 = panel_x(&p, p.lo_x + (i + 1) * width);

		cairo_rectangle(cr, x0, panel_y(&p, count[i]), x1 - x0 - 1,
				p.y1 - panel_y(&p, count[i]));
		cairo_fill(cr);
	}
	free(count);
	if (n) {
		set_colour(cr, PLOT_COLOUR_EFFECT);
		cairo_move_to(cr, panel_x(&p, mean), p.y0);
		cairo_line_to(cr, panel_x(&p, mean), p.y1);
		cairo_stroke(cr);
	}
	if (p.lo_x < 0 && p.hi_x > 0) {
		set_colour(cr, 0x000000);
		cairo_move_to(cr, panel_x(&p, 0), p.y0);
		cairo_line_to(cr, panel_x(&p, 0), p.y1);
		cairo_stroke(cr);
	}
	snprintf(label, sizeof(label), "%zu kept pairs: B vs A, histogram of the pairs' differences (red: their mean %+.2f%%)",
		 n, mean);
	draw_axes(cr, &p, label, "B - A, % of A's mean rate");
}

/*
 * The mean pair difference in each half of the slice after the flip, with
 * its 95% interval: an effect that fades (or grows) after a flip shows as
 * a difference between the halves. The pairs with both halves of both
 * slices, in per cent of A's mean rate: the report's carry-over figures.
 */
static void draw_effect_by_time(cairo_t *cr, const struct interleave *il, double mean_a,
				size_t pairs)
{
	struct panel p = { PLOT_SLICES_X0, PLOT_EFFECT_Y0, PLOT_SLICES_X1, PLOT_EFFECT_Y1,
			   0, il->slice_s, INFINITY, -INFINITY };
	double mean[2] = { 0 }, half_ci[2] = { 0 };
	double *diff[2] = { malloc((pairs + 1) * sizeof(double)),
			    malloc((pairs + 1) * sizeof(double)) };
	struct stats_summary sum;
	size_t n = 0;

	for (size_t k = il->warmup; diff[0] && diff[1] && k + 1 < il->n; k += 2) {
		const struct il_slice *s0 = &il->slices[k], *s1 = &il->slices[k + 1];
		const struct il_slice *a = s0->arm == AB_ARM_A ? s0 : s1;
		const struct il_slice *b = a == s0 ? s1 : s0;

		if (il_slice_fate_paired(il, k) != IL_KEPT || n >= pairs ||
		    !(a->half_time_s[0] > 0) || !(a->half_time_s[1] > 0) ||
		    !(b->half_time_s[0] > 0) || !(b->half_time_s[1] > 0))
			continue;
		for (int h = 0; h < 2; h++)
			diff[h][n] = 100 / mean_a * (b->half_count[h] / b->half_time_s[h] -
						     a->half_count[h] / a->half_time_s[h]);
		n++;
	}
	for (int h = 0; n >= 2 && mean_a > 0 && h < 2; h++) {
		if (stats_summarize(diff[h], n, &sum))
			continue;
		mean[h] = sum.mean;
		half_ci[h] = 1.96 * sum.stddev / sqrt((double)n);
		p.lo_y = fmin(p.lo_y, mean[h] - half_ci[h]);
		p.hi_y = fmax(p.hi_y, mean[h] + half_ci[h]);
	}
	free(diff[0]);
	free(diff[1]);
	if (!isfinite(p.lo_y)) {
		p.lo_y = -1;
		p.hi_y = 1;
	}
	p.lo_y = fmin(p.lo_y, 0);
	p.hi_y = fmax(p.hi_y, 0);
	widen(&p.lo_y, &p.hi_y);
	if (!(p.hi_x > 0))
		p.hi_x = 1;
	draw_level(cr, &p, 0, 0x000000);
	for (int h = 0; h < 2; h++) {
		double x = panel_x(&p, p.hi_x * (h ? 0.75 : 0.25));

		if (n < 2 || !(mean_a > 0))
			continue;
		set_colour(cr, PLOT_COLOUR_EFFECT);
		cairo_set_line_width(cr, 2);
		cairo_move_to(cr, x, panel_y(&p, mean[h] - half_ci[h]));
		cairo_line_to(cr, x, panel_y(&p, mean[h] + half_ci[h]));
		cairo_stroke(cr);
		cairo_arc(cr, x, panel_y(&p, mean[h]), 5, 0, 2 * M_PI);
		cairo_fill(cr);
	}
	draw_axes(cr, &p, n >= 2 ? "effect by time since the flip: B vs A (%) per half slice, 95% CI"
				    : "effect by time since the flip: no halves of slices saved",
		  "seconds since the flip");
}

static void draw(cairo_t *cr, const struct ab_saved *saved, const double *diff, size_t n,
		 double mean_a)
{
	char title[256];
	const char *name = strrchr(saved->path, '/');

	set_colour(cr, 0xffffff);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, FONT_SIZE);
	set_colour(cr, 0x000000);
	snprintf(title, sizeof(title), "vmpctl ab --interleave %gs: %s (%s is better), %s",
		 saved->opts.interleave_s, saved->opts.metric_name,
		 saved->opts.higher_is_better ? "higher" : "lower",
		 name ? name + 1 : saved->path);
	text_at(cr, PLOT_SLICES_X0, 24, title);
	draw_slices(cr, &saved->il, saved->opts.metric_name);
	draw_histogram(cr, diff, n);
	draw_effect_by_time(cr, &saved->il, mean_a, n);
}

static bool has_suffix(const char *path, const char *suffix)
{
	size_t len = strlen(path), slen = strlen(suffix);

	return len > slen && !strcasecmp(path + len - slen, suffix);
}

int ab_plot_saved(const struct ab_saved *saved, const char *path)
{
	bool svg = has_suffix(path, ".svg");
	cairo_surface_t *surface;
	cairo_status_t status;
	double *diff, mean_a;
	size_t n;
	cairo_t *cr;

	if (!svg && !has_suffix(path, ".png")) {
		vmpctl_error("ab report: --plot %s: the name must end in .png or .svg", path);
		return EXIT_USAGE;
	}
	if (!saved->interleaved) {
		vmpctl_error("ab report: --plot: %s holds whole runs; the plot is of an interleaved A/B's slices",
			     saved->path);
		return EXIT_USAGE;
	}
	diff = malloc((saved->il.n / 2 + 1) * sizeof(double));
	if (!diff) {
		vmpctl_error("ab report: --plot: %s", strerror(ENOMEM));
		return EXIT_CHECK_FAILED;
	}
	n = pair_diffs(&saved->il, diff, &mean_a);
	if (svg)
		surface = cairo_svg_surface_create(path, PLOT_WIDTH, PLOT_HEIGHT);
	else
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_WIDTH, PLOT_HEIGHT);
	cr = cairo_create(surface);
	draw(cr, saved, diff, n, mean_a);
	free(diff);
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (!status && !svg)
		status = cairo_surface_write_to_png(surface, path);
	cairo_surface_finish(surface);
	if (!status)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	if (status) {
		vmpctl_error("ab report: --plot %s: %s", path, cairo_status_to_string(status));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}
