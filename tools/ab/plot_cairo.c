// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab report --plot: the picture of an interleaved A/B (plot.h). */
#include "plot.h"
#include "exit_codes.h"
#include "output.h"
#include "stats.h"

#include <cairo.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct panel {
	double x0, y0, x1, y1;	/* pixels */
	double lo_x, hi_x, lo_y, hi_y;	/* data */
	bool ratio_x;	/* x in log ratios, its ticks in percent (the forest's) */
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

/* A short line in colour rgb, stroked alone (one SVG path each). */
static void stroke_line(cairo_t *cr, double x0, double y0, double x1, double y1,
			unsigned int rgb)
{
	set_colour(cr, rgb);
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
}

static void text_right_at(cairo_t *cr, double x, double y, const char *text)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, text, &e);
	text_at(cr, x - e.x_advance, y, text);
}

static void text_centred_at(cairo_t *cr, double x, double y, const char *text)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, text, &e);
	text_at(cr, x - e.x_advance / 2, y, text);
}

/* The x axis' round values, in the unit of its labels. */
static size_t x_ticks(const struct panel *p, double *ticks)
{
	if (p->ratio_x)
		return plot_ratio_ticks(p->lo_x, p->hi_x, ticks, PLOT_TICKS_MAX);
	return plot_ticks(p->lo_x, p->hi_x, ticks, PLOT_TICKS_MAX);
}

/* Where an x tick of x_ticks() goes, in pixels. */
static double tick_x(const struct panel *p, double tick)
{
	return panel_x(p, p->ratio_x ? plot_log_ratio(tick) : tick);
}

/* Gridlines at the round values of both axes, under what is drawn next. */
static void draw_grid(cairo_t *cr, const struct panel *p, bool with_y)
{
	double ticks[PLOT_TICKS_MAX];
	size_t n;

	cairo_set_line_width(cr, 1);
	n = x_ticks(p, ticks);
	for (size_t i = 0; i < n; i++)
		stroke_line(cr, tick_x(p, ticks[i]), p->y0, tick_x(p, ticks[i]),
			    p->y1, PLOT_COLOUR_GRID);
	n = with_y ? plot_ticks(p->lo_y, p->hi_y, ticks, PLOT_TICKS_MAX) : 0;
	for (size_t i = 0; i < n; i++)
		stroke_line(cr, p->x0, panel_y(p, ticks[i]), p->x1,
			    panel_y(p, ticks[i]), PLOT_COLOUR_GRID);
}

/* The x axis' ticks and labels (in unit, or percent) under the panel's bottom edge. */
static void draw_x_ticks(cairo_t *cr, const struct panel *p, const char *unit)
{
	double ticks[PLOT_TICKS_MAX];
	char labels[PLOT_TICKS_MAX][32];
	size_t n = x_ticks(p, ticks);

	if (p->ratio_x)
		plot_ratio_tick_labels(ticks, n, labels);
	else
		plot_tick_labels(ticks, n, unit, labels);
	cairo_set_line_width(cr, 1);
	for (size_t i = 0; i < n; i++) {
		double x = tick_x(p, ticks[i]);

		stroke_line(cr, x, p->y1, x, p->y1 + PLOT_TICK_LENGTH, PLOT_COLOUR_TICK);
		set_colour(cr, 0x000000);
		text_centred_at(cr, x, p->y1 + PLOT_TICK_LENGTH + PLOT_FONT_SIZE, labels[i]);
	}
}

/*
 * The frame, ticks with their labels (x_unit, y_unit), the panel's title
 * and the x axis' label.
 */
static void draw_axes(cairo_t *cr, const struct panel *p, const char *title,
		      const char *x_label, const char *x_unit, const char *y_unit)
{
	double ticks[PLOT_TICKS_MAX];
	char labels[PLOT_TICKS_MAX][32];
	size_t n;

	draw_x_ticks(cr, p, x_unit);
	n = plot_ticks(p->lo_y, p->hi_y, ticks, PLOT_TICKS_MAX);
	plot_tick_labels(ticks, n, y_unit, labels);
	for (size_t i = 0; i < n; i++) {
		double y = panel_y(p, ticks[i]);

		stroke_line(cr, p->x0 - PLOT_TICK_LENGTH, y, p->x0, y, PLOT_COLOUR_TICK);
		set_colour(cr, 0x000000);
		text_right_at(cr, p->x0 - PLOT_TICK_LENGTH - 3, y + PLOT_FONT_SIZE / 3, labels[i]);
	}
	set_colour(cr, 0x000000);
	cairo_rectangle(cr, p->x0, p->y0, p->x1 - p->x0, p->y1 - p->y0);
	cairo_stroke(cr);
	text_at(cr, p->x0, p->y0 - 10, title);
	text_centred_at(cr, (p->x0 + p->x1) / 2, p->y1 + PLOT_TICK_LENGTH + 2.3 * PLOT_FONT_SIZE,
			x_label);
}

/* A row of coloured squares with their names, right-aligned at x. */
static void draw_legend(cairo_t *cr, double x, double y, const unsigned int *rgb,
			const char *const *names, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		cairo_text_extents_t e;

		cairo_text_extents(cr, names[i], &e);
		x -= e.x_advance;
		set_colour(cr, 0x000000);
		text_at(cr, x, y, names[i]);
		x -= PLOT_FONT_SIZE + 4;
		set_colour(cr, rgb[i]);
		cairo_rectangle(cr, x, y - PLOT_FONT_SIZE + 3, PLOT_FONT_SIZE - 2, PLOT_FONT_SIZE - 2);
		cairo_fill(cr);
		x -= 18;
	}
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
static void draw_slices(cairo_t *cr, const struct interleave *il,
			const struct ab_options *o)
{
	static const unsigned int legend_rgb[] = {
		PLOT_COLOUR_A, PLOT_COLOUR_B, PLOT_COLOUR_DROPPED
	};
	char arm_a[64], arm_b[64];
	const char *legend[] = { arm_a, arm_b, "not compared" };
	struct panel p = { PLOT_SLICES_X0, PLOT_SLICES_Y0, PLOT_SLICES_X1, PLOT_SLICES_Y1,
			   0, 0, 0, 0, false };
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
	draw_grid(cr, &p, true);
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
	snprintf(label, sizeof(label), "slices over time: %s of each slice", o->metric_name);
	draw_axes(cr, &p, label, "time since the start", "s", "/s");
	snprintf(arm_a, sizeof(arm_a), "A = %s", o->value_a);
	snprintf(arm_b, sizeof(arm_b), "B = %s", o->value_b);
	draw_legend(cr, p.x1, p.y0 - 10, legend_rgb, legend, 3);
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
			   INFINITY, -INFINITY, 0, 1, false };
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
	draw_grid(cr, &p, true);
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
	draw_axes(cr, &p, label, "B - A, in % of A's mean rate", "%", "");
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
			   0, il->slice_s, INFINITY, -INFINITY, false };
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
	draw_grid(cr, &p, true);
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
		  "time since the flip", "s", "%");
}

/*
 * White page, the font, and the title line at the top left, x from the
 * left edge of a page width wide; a title too long for it (a long knob)
 * smaller, not cut at the edge.
 */
static void start_page(cairo_t *cr, double x, double width, const char *title)
{
	cairo_text_extents_t e;

	set_colour(cr, 0xffffff);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, PLOT_FONT_SIZE + 2);
	cairo_text_extents(cr, title, &e);
	if (x + e.x_bearing + e.width > width - x)
		cairo_set_font_size(cr, (PLOT_FONT_SIZE + 2) * (width - 2 * x) /
					(e.x_bearing + e.width));
	set_colour(cr, 0x000000);
	text_at(cr, x, 26, title);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, PLOT_FONT_SIZE);
}

static void draw(cairo_t *cr, const struct ab_saved *saved, const double *diff, size_t n,
		 double mean_a, const char *verdict)
{
	const struct ab_options *o = &saved->opts;
	const char *name = strrchr(saved->path, '/');
	char title[512];

	snprintf(title, sizeof(title), "%s: A=%s vs B=%s, %s (%s is better), slices of %gs: %s  [%s]",
		 saved->knob_label ? saved->knob_label : "knob", o->value_a, o->value_b,
		 o->metric_name, o->higher_is_better ? "higher" : "lower",
		 o->interleave_s, verdict, name ? name + 1 : saved->path);
	start_page(cr, PLOT_SLICES_X0, PLOT_WIDTH, title);
	draw_slices(cr, &saved->il, o);
	draw_histogram(cr, diff, n);
	draw_effect_by_time(cr, &saved->il, mean_a, n);
}

static bool has_suffix(const char *path, const char *suffix)
{
	size_t len = strlen(path), slen = strlen(suffix);

	return len > slen && !strcasecmp(path + len - slen, suffix);
}

typedef void (*paint_fn)(cairo_t *cr, const void *what);

/* A PNG or SVG of width by height painted by paint; 0 or the exit status. */
static int write_picture(const char *cmd, const char *path, int width, int height,
			 paint_fn paint, const void *what)
{
	bool svg = has_suffix(path, ".svg");
	cairo_surface_t *surface;
	cairo_status_t status;
	cairo_t *cr;

	if (svg)
		surface = cairo_svg_surface_create(path, width, height);
	else
		surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
	cr = cairo_create(surface);
	paint(cr, what);
	status = cairo_status(cr);
	cairo_destroy(cr);
	if (!status && !svg)
		status = cairo_surface_write_to_png(surface, path);
	cairo_surface_finish(surface);
	if (!status)
		status = cairo_surface_status(surface);
	cairo_surface_destroy(surface);
	if (status) {
		vmpctl_error("%s: --plot %s: %s", cmd, path, cairo_status_to_string(status));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

static bool picture_name(const char *cmd, const char *path)
{
	if (has_suffix(path, ".svg") || has_suffix(path, ".png"))
		return true;
	vmpctl_error("%s: --plot %s: the name must end in .png or .svg", cmd, path);
	return false;
}

struct saved_picture {
	const struct ab_saved *saved;
	const double *diff;
	size_t n;
	double mean_a;
	const char *verdict;
};

static void paint_saved(cairo_t *cr, const void *what)
{
	const struct saved_picture *p = what;

	draw(cr, p->saved, p->diff, p->n, p->mean_a, p->verdict);
}

int ab_plot_saved(const struct ab_saved *saved, const struct ab_result *r,
		  const char *path)
{
	struct saved_picture picture = { .saved = saved, .verdict = r->metrics[0].verdict };
	double *diff;
	int rc;

	if (!picture_name("ab report", path))
		return EXIT_USAGE;
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
	if (strcmp(picture.verdict, "~") == 0)
		picture.verdict = "no significant difference";
	picture.n = pair_diffs(&saved->il, diff, &picture.mean_a);
	picture.diff = diff;
	rc = write_picture("ab report", path, PLOT_WIDTH, PLOT_HEIGHT, paint_saved,
			   &picture);
	free(diff);
	return rc;
}

/*
 * A change in percent as the merge's table has it, but past 1e12% (a
 * prediction interval of two hosts can reach 1e300%) in 3 digits: a
 * label a line long, not a page.
 */
static void pct_text(char *text, size_t size, double pct)
{
	if (fabs(pct) < 1e12)
		snprintf(text, size, "%+.2f%%", pct);
	else
		snprintf(text, size, "%+.3g%%", pct);
}

/* "-2.31%  [-4.58%, +0.06%]": a row's figures, at its right. */
static void interval_label(char *text, size_t size, double effect, double lo, double hi)
{
	char figures[3][24];

	pct_text(figures[0], sizeof(figures[0]), effect);
	pct_text(figures[1], sizeof(figures[1]), lo);
	pct_text(figures[2], sizeof(figures[2]), hi);
	if (isfinite(lo) && isfinite(hi))
		snprintf(text, size, "%s  [%s, %s]", figures[0], figures[1], figures[2]);
	else
		snprintf(text, size, "%s  unbounded", figures[0]);
}

/* How far text's ink reaches right of where it is drawn, in the current font. */
static double text_width(cairo_t *cr, const char *text)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, text, &e);
	return fmax(e.x_advance, e.x_bearing + e.width);
}

/* The widest row name and the widest row figures, in the current font. */
static void forest_label_widths(cairo_t *cr, const struct forest_plot *f, double *names,
				double *figures)
{
	char text[96];

	*names = fmax(text_width(cr, "pooled"), text_width(cr, "a new host"));
	interval_label(text, sizeof(text), f->pooled.effect_pct, f->pooled.lo_pct,
		       f->pooled.hi_pct);
	*figures = text_width(cr, text);
	interval_label(text, sizeof(text), f->pooled.effect_pct, f->pi_lo_pct, f->pi_hi_pct);
	*figures = fmax(*figures, text_width(cr, text));
	for (size_t i = 0; i < f->n_rows; i++) {
		const struct forest_row *r = &f->rows[i];

		interval_label(text, sizeof(text), r->effect_pct, r->lo_pct, r->hi_pct);
		*names = fmax(*names, text_width(cr, r->label));
		*figures = fmax(*figures, text_width(cr, text));
	}
}

/*
 * The rows' font size, and the plot's x between the names at its left and
 * the figures at its right: both are measured, so that no label is cut at
 * the image's edge however long its numbers; labels that would leave the
 * plot narrower than PLOT_FOREST_MIN_AREA are drawn smaller.
 */
static double forest_layout(cairo_t *cr, const struct forest_plot *f, struct panel *p)
{
	const double room = PLOT_FOREST_WIDTH - 2 * PLOT_FOREST_MARGIN -
			    2 * PLOT_FOREST_GAP - PLOT_FOREST_MIN_AREA;
	double size = PLOT_FONT_SIZE, names, figures;

	forest_label_widths(cr, f, &names, &figures);
	if (names + figures > room) {
		size *= room / (names + figures);
		cairo_set_font_size(cr, size);
		/* measured again: hinted text does not quite scale with its size */
		forest_label_widths(cr, f, &names, &figures);
		cairo_set_font_size(cr, PLOT_FONT_SIZE);
	}
	p->x0 = PLOT_FOREST_MARGIN + names + PLOT_FOREST_GAP;
	p->x1 = PLOT_FOREST_WIDTH - PLOT_FOREST_MARGIN - figures - PLOT_FOREST_GAP;
	return size;
}

/* A row's name left of the plot and its figures right of it, at size. */
static void row_labels(cairo_t *cr, const struct panel *p, double y, double size,
		       const char *name, double effect, double lo, double hi)
{
	char text[96];

	interval_label(text, sizeof(text), effect, lo, hi);
	cairo_set_font_size(cr, size);
	set_colour(cr, 0x000000);
	text_right_at(cr, p->x0 - PLOT_FOREST_GAP, y + size / 3, name);
	text_at(cr, p->x1 + PLOT_FOREST_GAP, y + size / 3, text);
	cairo_set_font_size(cr, PLOT_FONT_SIZE);
}

/* A change in percent on the forest's axis, in pixels, held to its edges. */
static double forest_x(const struct panel *p, double pct)
{
	return panel_x(p, fmin(fmax(plot_log_ratio(pct), p->lo_x), p->hi_x));
}

/*
 * An arrow head at the plot's edge x, outside the frame, pointing out
 * (dir -1 left, 1 right): the interval there goes on past the axis.
 */
static void draw_head(cairo_t *cr, double x, double y, int dir, unsigned int rgb)
{
	set_colour(cr, rgb);
	cairo_move_to(cr, x, y - PLOT_ARROW_HALF);
	cairo_line_to(cr, x + dir * PLOT_ARROW_LENGTH, y);
	cairo_line_to(cr, x, y + PLOT_ARROW_HALF);
	cairo_close_path(cr);
	cairo_fill(cr);
}

/* A head at each end of lo..hi (percent) that lies past the axis. */
static void draw_heads(cairo_t *cr, const struct panel *p, double y, double lo,
		       double hi, unsigned int rgb)
{
	if (plot_log_ratio(lo) < p->lo_x)
		draw_head(cr, p->x0, y, -1, rgb);
	if (plot_log_ratio(hi) > p->hi_x)
		draw_head(cr, p->x1, y, 1, rgb);
}

/* An interval lo..hi (percent) at y, to the plot's edges at most. */
static void draw_interval(cairo_t *cr, const struct panel *p, double y, double lo,
			  double hi, double width, unsigned int rgb)
{
	if (isnan(lo) || isnan(hi))
		return;
	cairo_set_line_width(cr, width);
	stroke_line(cr, forest_x(p, lo), y, forest_x(p, hi), y, rgb);
	cairo_set_line_width(cr, 1);
	draw_heads(cr, p, y, lo, hi, rgb);
}

/*
 * Half the diamond's height where the axis' edge cuts it, between its tip
 * and its centre (log ratios); a tip at -100% is infinitely far.
 */
static double cut_height(double half, double tip, double edge, double centre)
{
	return isfinite(tip) ? half * (edge - tip) / (centre - tip) : half;
}

/*
 * The pooled diamond: its centre at the effect, its tips at the interval's
 * ends. A tip past the axis is cut off at the edge, where the diamond is
 * still that high, and an arrow head is drawn beyond.
 */
static void draw_diamond(cairo_t *cr, const struct panel *p, double y,
			 const struct forest_row *r)
{
	const double half = PLOT_FOREST_ROW / 4.0;
	double lo = plot_log_ratio(r->lo_pct), hi = plot_log_ratio(r->hi_pct);
	double centre = plot_log_ratio(r->effect_pct), x = forest_x(p, r->effect_pct);

	if (isnan(lo) || isnan(hi))
		return;
	set_colour(cr, PLOT_COLOUR_POOLED);
	if (lo >= p->lo_x) {
		cairo_move_to(cr, panel_x(p, lo), y);
	} else {
		double h = cut_height(half, lo, p->lo_x, centre);

		cairo_move_to(cr, p->x0, y + h);
		cairo_line_to(cr, p->x0, y - h);
	}
	cairo_line_to(cr, x, y - half);
	if (hi <= p->hi_x) {
		cairo_line_to(cr, panel_x(p, hi), y);
	} else {
		double h = cut_height(half, hi, p->hi_x, centre);

		cairo_line_to(cr, p->x1, y - h);
		cairo_line_to(cr, p->x1, y + h);
	}
	cairo_line_to(cr, x, y + half);
	cairo_close_path(cr);
	cairo_fill(cr);
	draw_heads(cr, p, y, r->lo_pct, r->hi_pct, PLOT_COLOUR_POOLED);
}

static void paint_forest(cairo_t *cr, const void *what)
{
	static const unsigned int legend_rgb[] = {
		PLOT_COLOUR_HOST, PLOT_COLOUR_POOLED, PLOT_COLOUR_PREDICTION
	};
	static const char *const legend[] = {
		"host: effect, 95% CI", "pooled: 95% CI (Hartung-Knapp)",
		"a new host: 95% prediction interval"
	};
	const struct forest_plot *f = what;
	struct panel p = { 0, 70, 0, 70 + PLOT_FOREST_ROW * (f->n_rows + 3), 0, 0, 0, 1, true };
	double y, size;
	char label[160];

	plot_forest_range(f, &p.lo_x, &p.hi_x);
	start_page(cr, PLOT_FOREST_MARGIN, PLOT_FOREST_WIDTH, f->title);
	size = forest_layout(cr, f, &p);
	draw_grid(cr, &p, false);
	/* no effect: a dashed line at 0 */
	cairo_set_dash(cr, (const double[]){ 4, 4 }, 2, 0);
	stroke_line(cr, panel_x(&p, 0), p.y0, panel_x(&p, 0), p.y1, 0x000000);
	cairo_set_dash(cr, NULL, 0, 0);
	for (size_t i = 0; i < f->n_rows; i++) {
		const struct forest_row *r = &f->rows[i];

		y = p.y0 + PLOT_FOREST_ROW * (i + 1);
		draw_interval(cr, &p, y, r->lo_pct, r->hi_pct, 2, PLOT_COLOUR_HOST);
		set_colour(cr, PLOT_COLOUR_HOST);
		cairo_rectangle(cr, forest_x(&p, r->effect_pct) - 5, y - 5, 10, 10);
		cairo_fill(cr);
		row_labels(cr, &p, y, size, r->label, r->effect_pct, r->lo_pct, r->hi_pct);
	}
	y = p.y0 + PLOT_FOREST_ROW * (f->n_rows + 1.5);
	draw_diamond(cr, &p, y, &f->pooled);
	row_labels(cr, &p, y, size, "pooled", f->pooled.effect_pct, f->pooled.lo_pct,
		   f->pooled.hi_pct);
	y += PLOT_FOREST_ROW;
	draw_interval(cr, &p, y, f->pi_lo_pct, f->pi_hi_pct, 6, PLOT_COLOUR_PREDICTION);
	row_labels(cr, &p, y, size, "a new host", f->pooled.effect_pct, f->pi_lo_pct,
		   f->pi_hi_pct);
	snprintf(label, sizeof(label), "B vs A: change of %s (log scale)", f->metric);
	draw_x_ticks(cr, &p, "%");
	set_colour(cr, 0x000000);
	cairo_rectangle(cr, p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
	cairo_stroke(cr);
	text_centred_at(cr, (p.x0 + p.x1) / 2, p.y1 + PLOT_TICK_LENGTH + 2.3 * PLOT_FONT_SIZE,
			label);
	draw_legend(cr, PLOT_FOREST_WIDTH - PLOT_FOREST_MARGIN, p.y0 - 14, legend_rgb, legend, 3);
}

int ab_plot_forest(const struct forest_plot *f, const char *path)
{
	if (!picture_name("ab merge", path))
		return EXIT_USAGE;
	return write_picture("ab merge", path, PLOT_FOREST_WIDTH,
			     PLOT_FOREST_HEIGHT(f->n_rows), paint_forest, f);
}
