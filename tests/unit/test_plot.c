// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab report --plot (tools/ab/plot_cairo.c) on a --save file that
 * make demo recorded in the 6.1 guest (fixtures/ab-save/demo-6.1.jsonl):
 * the PNG is read back with cairo and its pixels checked, the SVG's text
 * looked at; a whole-runs file and a bad suffix are refused. The axes'
 * round ticks and SI labels, and the SVGs' structure (a tick mark per
 * tick, a bar per slice, a square per host of the forest plot). The
 * forest plot's log-ratio axis, and with the fleet lane's two hosts (a
 * prediction interval to +1.9e9%): hosts far apart, arrow heads where
 * intervals run past the axis, every glyph inside the image.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab/load.h"
#include "ab/plot.h"
#include "commands.h"
#include "fileio.h"
#include "stats.h"

#define DEMO_SAVE "fixtures/ab-save/demo-6.1.jsonl"

struct plot_fixture {
	struct ab_saved saved;
	char dir[32];
	char png[64];
	char svg[64];
};

static int set_up(void **state)
{
	struct plot_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/vmpctl-plot.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->png, sizeof(f->png), "%s/out.png", f->dir);
	snprintf(f->svg, sizeof(f->svg), "%s/out.svg", f->dir);
	assert_int_equal(ab_saved_load(DEMO_SAVE, &f->saved), 0);
	assert_true(f->saved.interleaved);
	*state = f;
	return 0;
}

/* The demo's plot, with the verdict of its result, to path. */
static int plot_demo(struct plot_fixture *f, const char *path)
{
	struct il_report report;
	struct ab_result r;

	assert_int_equal(il_build_report(&f->saved.il, &f->saved.opts, &report), 0);
	assert_int_equal(il_count_losses(&f->saved.il, &report.losses), 0);
	ab_result_of_slices(&report, &r);
	return ab_plot_saved(&f->saved, &r, path);
}

static int tear_down(void **state)
{
	struct plot_fixture *f = *state;

	ab_saved_free(&f->saved);
	unlink(f->png);
	unlink(f->svg);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* Pixels of colour rgb in the rectangle x0..x1, y0..y1 of an RGB24 image. */
static size_t count_colour(cairo_surface_t *img, int x0, int y0, int x1, int y1,
			   unsigned int rgb)
{
	const unsigned char *data = cairo_image_surface_get_data(img);
	int stride = cairo_image_surface_get_stride(img);
	size_t n = 0;

	for (int y = y0; y < y1; y++) {
		const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);

		for (int x = x0; x < x1; x++)
			n += (row[x] & 0xffffff) == rgb;
	}
	return n;
}

static void png_shows_the_three_panels(void **state)
{
	struct plot_fixture *f = *state;
	cairo_surface_t *img;
	const int half_w = (PLOT_SLICES_X1 - PLOT_SLICES_X0) / 2;
	const int mid_x = PLOT_SLICES_X0 + half_w;
	size_t a, b, hist, effect[2], panel = (size_t)(PLOT_SLICES_X1 - PLOT_SLICES_X0) *
			     (PLOT_SLICES_Y1 - PLOT_SLICES_Y0);

	assert_int_equal(plot_demo(f, f->png), 0);
	img = cairo_image_surface_create_from_png(f->png);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(img), PLOT_WIDTH);
	assert_int_equal(cairo_image_surface_get_height(img), PLOT_HEIGHT);
	cairo_surface_flush(img);
	a = count_colour(img, PLOT_SLICES_X0, PLOT_SLICES_Y0, PLOT_SLICES_X1,
			 PLOT_SLICES_Y1, PLOT_COLOUR_A);
	b = count_colour(img, PLOT_SLICES_X0, PLOT_SLICES_Y0, PLOT_SLICES_X1,
			 PLOT_SLICES_Y1, PLOT_COLOUR_B);
	print_message("slices panel: %zu pixels of A, %zu of B of %zu\n", a, b, panel);
	/* the kept pairs are half A, half B: neither arm's bars are slivers */
	assert_true(a > panel / 20);
	assert_true(b > panel / 20);
	assert_true(a < 3 * b && b < 3 * a);
	/*
	 * the pairs' differences spread over several of the histogram's bins
	 * (its bars cover a good part of its bottom row), and both halves'
	 * effects are drawn with their intervals
	 */
	hist = count_colour(img, PLOT_SLICES_X0, PLOT_HIST_Y1 - 2, PLOT_SLICES_X1,
			    PLOT_HIST_Y1 - 1, PLOT_COLOUR_HIST);
	for (int h = 0; h < 2; h++) {
		effect[h] = count_colour(img, mid_x - (1 - h) * half_w, PLOT_EFFECT_Y0,
					 mid_x + h * half_w, PLOT_EFFECT_Y1,
					 PLOT_COLOUR_EFFECT);
	}
	print_message("histogram: %zu of %d columns; effects: %zu and %zu pixels\n",
		      hist, 2 * half_w, effect[0], effect[1]);
	assert_true(hist > (size_t)half_w / 2);
	/* a dot of radius 5 is some 80 pixels */
	assert_true(effect[0] > 50);
	assert_true(effect[1] > 50);
	/* the arms' colours are in the slices panel only */
	assert_int_equal(count_colour(img, 0, PLOT_SLICES_Y1 + 1, PLOT_WIDTH,
				      PLOT_HEIGHT, PLOT_COLOUR_A), 0);
	cairo_surface_destroy(img);
}

/*
 * Spaces dropped, and one form of a colour: cairo 1.16 (Debian 12) writes
 * style="fill:rgb(...)", 1.18 (Debian 13) fill="rgb(...)"; both become
 * fill:rgb(...).
 */
static void drop_spaces(char *text)
{
	char *to = text;

	for (; *text; text++) {
		if (*text == ' ')
			continue;
		if (strncmp(text, "=\"rgb(", 6) == 0) {
			*to++ = ':';
			text++;
			continue;
		}
		*to++ = *text;
	}
	*to = '\0';
}

static void svg_is_svg_with_the_panels(void **state)
{
	struct plot_fixture *f = *state;
	static char text[1 << 20];

	assert_int_equal(plot_demo(f, f->svg), 0);
	assert_int_equal(read_text_file(f->svg, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "width=\"1200\""));
	/*
	 * cairo draws text as glyphs: the panels show as their filled bars.
	 * cairo 1.18 writes "rgb(a%, b%, c%)", 1.16 without the spaces.
	 */
	drop_spaces(text);
	assert_non_null(strstr(text, "rgb(12.156863%,46.666667%,70.588235%)"));
	assert_non_null(strstr(text, "rgb(100%,49.803922%,5.490196%)"));
}

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* cairo's SVG colour of rgb, as drop_spaces() leaves it: "rgb(a%,b%,c%)". */
static void svg_colour(unsigned int rgb, const char *what, char *buf, size_t size)
{
	char part[3][16];

	for (int i = 0; i < 3; i++) {
		unsigned int c = (rgb >> (16 - 8 * i)) & 0xff;

		if (c == 0 || c == 255)
			snprintf(part[i], sizeof(part[i]), "%d%%", c ? 100 : 0);
		else
			snprintf(part[i], sizeof(part[i]), "%f%%", 100.0 * c / 255);
	}
	snprintf(buf, size, "%s:rgb(%s,%s,%s)", what, part[0], part[1], part[2]);
}

static void ticks_are_round_with_si_units(void **state)
{
	double ticks[PLOT_TICKS_MAX];
	char labels[PLOT_TICKS_MAX][32];
	size_t n;

	(void)state;
	/* today's labels were "2.232e+04" and "0.005225" at the ends */
	n = plot_ticks(0, 22320, ticks, PLOT_TICKS_MAX);
	assert_int_equal(n, 5);
	plot_tick_labels(ticks, n, "/s", labels);
	assert_string_equal(labels[0], "0 k/s");
	assert_string_equal(labels[1], "5 k/s");
	assert_string_equal(labels[4], "20 k/s");
	n = plot_ticks(0.0012, 0.005225, ticks, PLOT_TICKS_MAX);
	assert_true(n >= 4 && n <= 10);
	assert_true(ticks[0] >= 0.0012 && ticks[n - 1] <= 0.005225);
	plot_tick_labels(ticks, n, "s", labels);
	assert_string_equal(labels[0], "1.5 ms");
	assert_string_equal(labels[n - 1], "5.0 ms");
	/* percent and counts take no prefix; 0 is 0, not -0 */
	n = plot_ticks(-4.6, 10.2, ticks, PLOT_TICKS_MAX);
	plot_tick_labels(ticks, n, "%", labels);
	assert_string_equal(labels[0], "-4%");
	assert_string_equal(labels[2], "0%");
	assert_string_equal(labels[n - 1], "10%");
	n = plot_ticks(0, 1200, ticks, PLOT_TICKS_MAX);
	plot_tick_labels(ticks, n, "", labels);
	assert_string_equal(labels[n - 1], "1200");
	n = plot_ticks(1.5e9, 3.2e9, ticks, PLOT_TICKS_MAX);
	plot_tick_labels(ticks, n, "B", labels);
	assert_string_equal(labels[0], "1.6 GB");
	/* nothing to scale */
	assert_int_equal(plot_ticks(1, 1, ticks, PLOT_TICKS_MAX), 0);
}

/*
 * The forest's log-ratio axis: round ratios, labelled in percent with the
 * decimals each needs; a short axis gets round steps in percent.
 */
static void ratio_ticks_are_round_in_percent(void **state)
{
	double ticks[PLOT_TICKS_MAX];
	char labels[PLOT_TICKS_MAX][32];
	size_t n;

	(void)state;
	/* -50% and +100% are as far from 0: a ratio of a half and of two */
	assert_true(fabs(plot_log_ratio(-50) + plot_log_ratio(100)) < 1e-12);
	n = plot_ratio_ticks(log(0.5), log(2), ticks, PLOT_TICKS_MAX);
	plot_ratio_tick_labels(ticks, n, labels);
	assert_int_equal(n, 8);
	assert_string_equal(labels[0], "-50%");
	assert_string_equal(labels[3], "-20%");
	assert_string_equal(labels[4], "0%");
	assert_string_equal(labels[7], "100%");
	/* six decades: one tick each */
	n = plot_ratio_ticks(log(1e-4), log(100), ticks, PLOT_TICKS_MAX);
	plot_ratio_tick_labels(ticks, n, labels);
	assert_int_equal(n, 7);
	assert_string_equal(labels[0], "-99.99%");
	assert_string_equal(labels[1], "-99.9%");
	assert_string_equal(labels[4], "0%");
	assert_string_equal(labels[6], "9900%");
	/* a few percent: the steps of a linear axis, with its decimals */
	n = plot_ratio_ticks(log(0.999), log(1.004), ticks, PLOT_TICKS_MAX);
	plot_ratio_tick_labels(ticks, n, labels);
	assert_true(n >= 4 && n <= 10);
	assert_string_equal(labels[0], "-0.1%");
	assert_string_equal(labels[n - 1], "0.4%");
	assert_int_equal(plot_ratio_ticks(0, 0, ticks, PLOT_TICKS_MAX), 0);
}

/*
 * The forest's x range: the hosts' intervals whole, the pooled interval
 * and the prediction interval of two hosts not (fleet lane's numbers).
 */
static void forest_range_leaves_out_what_runs_away(void **state)
{
	const struct forest_row rows[] = {
		{ "fleet-1", 15.10, -13.57, 53.27 }, { "fleet-2", 397.04, 326.43, 479.35 },
	};
	const struct forest_plot plot = {
		.title = "", .metric = "", .rows = rows, .n_rows = 2,
		.pooled = { "pooled", 142.68, -99.98, 2513470.61 },
		.pi_lo_pct = -99.99996946, .pi_hi_pct = 1928487429.83,
	};
	double lo, hi;

	(void)state;
	plot_forest_range(&plot, &lo, &hi);
	print_message("the axis from %+.1f%% to %+.1f%%\n", expm1(lo) * 100, expm1(hi) * 100);
	assert_true(lo < plot_log_ratio(-13.57) && hi > plot_log_ratio(479.35));
	/* the hosts take at least half of it */
	assert_true(plot_log_ratio(479.35) - plot_log_ratio(-13.57) > (hi - lo) / 2);
}

/* The report's SVG: a bar per slice, a tick mark per tick, the legend. */
static void svg_has_ticks_and_a_bar_per_slice(void **state)
{
	struct plot_fixture *f = *state;
	static char text[1 << 20];
	size_t room = f->saved.il.n / 2 + 1, kept, finite = 0, ticks;
	double *a = malloc(room * sizeof(double)), *b = malloc(room * sizeof(double));
	char colour[3][80], tick[80];

	assert_non_null(a);
	assert_non_null(b);
	kept = il_kept_pairs(&f->saved.il, a, b);
	free(a);
	free(b);
	for (size_t k = 0; k < f->saved.il.n; k++)
		finite += isfinite(il_slice_rate(&f->saved.il.slices[k]));
	assert_int_equal(plot_demo(f, f->svg), 0);
	assert_int_equal(read_text_file(f->svg, text, sizeof(text)), 0);
	drop_spaces(text);
	svg_colour(PLOT_COLOUR_A, "fill", colour[0], sizeof(colour[0]));
	svg_colour(PLOT_COLOUR_B, "fill", colour[1], sizeof(colour[1]));
	svg_colour(PLOT_COLOUR_DROPPED, "fill", colour[2], sizeof(colour[2]));
	svg_colour(PLOT_COLOUR_TICK, "stroke", tick, sizeof(tick));
	/* each kept slice one bar, each arm one square in the legend */
	assert_int_equal(count_of(text, colour[0]), kept + 1);
	assert_int_equal(count_of(text, colour[1]), kept + 1);
	assert_int_equal(count_of(text, colour[2]), finite - 2 * kept + 1);
	/* three panels, each with at least 4 ticks on both axes */
	ticks = count_of(text, tick);
	print_message("%zu kept pairs, %zu slices, %zu tick marks\n", kept, finite, ticks);
	assert_true(ticks >= 3 * 2 * 4);
	assert_true(ticks <= 3 * 2 * PLOT_TICKS_MAX);
	svg_colour(PLOT_COLOUR_GRID, "stroke", tick, sizeof(tick));
	assert_int_equal(count_of(text, tick), ticks);
}

static void forest_svg_has_a_row_per_host(void **state)
{
	struct plot_fixture *f = *state;
	static char text[1 << 20];
	const struct forest_row rows[] = {
		{ "host-a", -3.1, -4.2, -2.0 }, { "host-b", -5.2, -6.9, -3.4 },
		{ "host-c", 1.2, -0.5, 2.9 }, { "host-d", -2.0, NAN, NAN },
	};
	const struct forest_plot plot = {
		.title = "knob: A=1 vs B=0 on 4 hosts: it depends on the host",
		.metric = "rate", .rows = rows, .n_rows = 4,
		.pooled = { "pooled", -2.3, -4.7, 0.1 },
		.pi_lo_pct = -7.7, .pi_hi_pct = 3.1,
	};
	char colour[4][80], labels[PLOT_TICKS_MAX][32];
	double ticks[PLOT_TICKS_MAX], lo, hi;
	size_t n, chars = 0;
	cairo_surface_t *img;

	assert_int_equal(ab_plot_forest(&plot, f->svg), 0);
	assert_int_equal(read_text_file(f->svg, text, sizeof(text)), 0);
	drop_spaces(text);
	svg_colour(PLOT_COLOUR_HOST, "fill", colour[0], sizeof(colour[0]));
	svg_colour(PLOT_COLOUR_HOST, "stroke", colour[1], sizeof(colour[1]));
	svg_colour(PLOT_COLOUR_POOLED, "fill", colour[2], sizeof(colour[2]));
	svg_colour(PLOT_COLOUR_PREDICTION, "stroke", colour[3], sizeof(colour[3]));
	/* a square per host and one in the legend; an interval per bounded one */
	assert_int_equal(count_of(text, colour[0]), 4 + 1);
	assert_int_equal(count_of(text, colour[1]), 3);
	/* the diamond and its legend; the prediction interval */
	assert_int_equal(count_of(text, colour[2]), 2);
	assert_int_equal(count_of(text, colour[3]), 1);
	svg_colour(PLOT_COLOUR_TICK, "stroke", colour[0], sizeof(colour[0]));
	plot_forest_range(&plot, &lo, &hi);
	n = plot_ratio_ticks(lo, hi, ticks, PLOT_TICKS_MAX);
	assert_int_equal(count_of(text, colour[0]), n);
	/*
	 * the tick labels: cairo draws each character as a glyph; on the
	 * labels' baseline there is one per character of "-8%", "-6%", ...
	 */
	plot_ratio_tick_labels(ticks, n, labels);
	for (size_t i = 0; i < n; i++)
		chars += strlen(labels[i]);
	snprintf(colour[0], sizeof(colour[0]), "y=\"%d\"/>",
		 (int)(70 + PLOT_FOREST_ROW * (4 + 3) + PLOT_TICK_LENGTH + PLOT_FONT_SIZE));
	print_message("%zu ticks, %zu characters in their labels\n", n, chars);
	assert_int_equal(count_of(text, colour[0]), chars);

	assert_int_equal(ab_plot_forest(&plot, f->png), 0);
	img = cairo_image_surface_create_from_png(f->png);
	assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(img), PLOT_FOREST_WIDTH);
	assert_int_equal(cairo_image_surface_get_height(img), PLOT_FOREST_HEIGHT(4));
	cairo_surface_flush(img);
	/* host-c's square sits right of host-a's, in its own row */
	assert_true(count_colour(img, 0, 70 + PLOT_FOREST_ROW * 3 - 6,
				 PLOT_FOREST_WIDTH, 70 + PLOT_FOREST_ROW * 3 + 6,
				 PLOT_COLOUR_HOST) > 60);
	cairo_surface_destroy(img);
}

/* A drawn shape's box: the extremes of the points of its path. */
struct mark {
	double x0, x1, y0, y1;
};

/* The box of the points in an SVG path's d="..." (cairo writes M, L, C, Z). */
static struct mark mark_of_path(const char *d)
{
	struct mark m = { INFINITY, -INFINITY, INFINITY, -INFINITY };
	size_t i = 0;

	while (*d && *d != '"') {
		char *next;
		double v;

		if (!strchr("-.0123456789", *d)) {
			d++;
			continue;
		}
		v = strtod(d, &next);
		if (i++ % 2) {
			m.y0 = fmin(m.y0, v);
			m.y1 = fmax(m.y1, v);
		} else {
			m.x0 = fmin(m.x0, v);
			m.x1 = fmax(m.x1, v);
		}
		d = next;
	}
	return m;
}

/*
 * The boxes of the paths of colour (as svg_colour() writes it) that lie
 * under y_min, in the order drawn; their number. The colour is looked for
 * in the attributes before d="...", with drop_spaces() applied to a copy.
 */
static size_t marks_of(const char *svg, const char *colour, double y_min,
		       struct mark *marks, size_t max)
{
	size_t n = 0;

	for (const char *at = strstr(svg, "<path"); at; at = strstr(at + 1, "<path")) {
		const char *d = strstr(at, " d=\"");
		char attrs[512];
		struct mark m;

		if (!d || (size_t)(d - at) >= sizeof(attrs))
			continue;
		memcpy(attrs, at, d - at);
		attrs[d - at] = '\0';
		drop_spaces(attrs);
		if (!strstr(attrs, colour))
			continue;
		m = mark_of_path(d + 4);
		if (m.y0 > y_min && n < max)
			marks[n++] = m;
	}
	return n;
}

/* The value of attribute name (as ' x="') in the element that starts at at. */
static double attribute(const char *at, const char *name)
{
	const char *end = strstr(at, "/>"), *v = strstr(at, name);

	assert_non_null(end);
	assert_true(v && v < end);
	return strtod(v + strlen(name), NULL);
}

/*
 * Every glyph cairo drew, where its ink is: cairo writes a glyph's outline
 * once (an id="glyph..." followed by its path) and places it with a
 * <use href="#glyph..." x= y=> per character, a space included. The ink's
 * left and right edge of every glyph used, and the number of those whose
 * baseline lies in [y0, y1).
 */
static size_t glyph_ink(const char *svg, double y0, double y1, double *left,
			double *right)
{
	static char ids[512][32];
	static struct mark outline[512];
	size_t n_ids = 0, in_band = 0;

	for (const char *at = strstr(svg, "id=\"glyph"); at && n_ids < 512;
	     at = strstr(at + 1, "id=\"glyph")) {
		const char *d = strstr(at, " d=\"");

		assert_non_null(d);
		sscanf(at + 4, "%31[^\"]", ids[n_ids]);
		outline[n_ids++] = mark_of_path(d + 4);
	}
	*left = INFINITY;
	*right = -INFINITY;
	for (const char *at = strstr(svg, "href=\"#glyph"); at;
	     at = strstr(at + 1, "href=\"#glyph")) {
		char id[32];
		double x = attribute(at, " x=\""), y = attribute(at, " y=\"");
		size_t i = 0;

		sscanf(at + 7, "%31[^\"]", id);
		while (i < n_ids && strcmp(ids[i], id))
			i++;
		assert_true(i < n_ids);
		/* a space has no outline */
		if (isfinite(outline[i].x0)) {
			*left = fmin(*left, x + outline[i].x0);
			*right = fmax(*right, x + outline[i].x1);
		}
		in_band += y >= y0 && y < y1;
	}
	return in_band;
}

/*
 * An interval that runs past the axis on both sides: body (its bar or
 * diamond) and, among heads, a mark beyond each of its ends.
 */
static void assert_heads_at_both_ends(const struct mark *body, const struct mark *heads,
				      size_t n)
{
	bool left = false, right = false;

	for (size_t i = 0; i < n; i++) {
		left |= heads[i].x1 <= body->x0 + 1 && heads[i].x1 - heads[i].x0 > 4;
		right |= heads[i].x0 >= body->x1 - 1 && heads[i].x1 - heads[i].x0 > 4;
	}
	assert_true(left);
	assert_true(right);
}

/*
 * The fleet lane's merge of two guests (tests/fleet/run): fleet-1 about
 * +15%, fleet-2 +397%. With two hosts the pooled interval and the new
 * host's prediction interval take a t with 1 df and run to +2.5e6% and
 * +1.9e9%. The plot must still tell the hosts apart, show that those
 * intervals go on past the axis, and keep every label inside the image.
 */
static void forest_reads_with_an_enormous_prediction_interval(void **state)
{
	struct plot_fixture *f = *state;
	static char text[1 << 20];
	const struct forest_row rows[] = {
		{ "fleet-1", 15.10, -13.57, 53.27 }, { "fleet-2", 397.04, 326.43, 479.35 },
	};
	const struct forest_plot plot = {
		.title = "--switch '/usr/local/sbin/fleet-arm': A=1 vs B=0 on 2 hosts: it depends on the host",
		.metric = "metric", .rows = rows, .n_rows = 2,
		.pooled = { "pooled", 142.68, -99.98, 2513470.61 },
		.pi_lo_pct = -99.99996946, .pi_hi_pct = 1928487429.83,
	};
	const char *pi_text = "+142.68%  [-100.00%, +1928487429.83%]";
	const double top = 70, pi_y = top + PLOT_FOREST_ROW * (2 + 2.5);
	struct mark hosts[4], bar[2], heads[4], diamond[4];
	size_t n, glyphs;
	char colour[80];
	double left, right, gap;

	assert_int_equal(ab_plot_forest(&plot, f->svg), 0);
	assert_int_equal(read_text_file(f->svg, text, sizeof(text)), 0);
	/* the hosts' squares (the legend's is above the plot) far apart */
	svg_colour(PLOT_COLOUR_HOST, "fill", colour, sizeof(colour));
	n = marks_of(text, colour, top, hosts, 4);
	assert_int_equal(n, 2);
	gap = (hosts[1].x0 + hosts[1].x1 - hosts[0].x0 - hosts[0].x1) / 2;
	print_message("the hosts' squares %.1f pixels apart\n", gap);
	assert_true(gap > PLOT_FOREST_WIDTH / 5.0);
	/* the prediction interval: its bar, and a head past each end */
	svg_colour(PLOT_COLOUR_PREDICTION, "stroke", colour, sizeof(colour));
	assert_int_equal(marks_of(text, colour, top, bar, 2), 1);
	svg_colour(PLOT_COLOUR_PREDICTION, "fill", colour, sizeof(colour));
	n = marks_of(text, colour, top, heads, 4);
	print_message("the prediction interval from %.1f to %.1f, %zu heads\n",
		      bar[0].x0, bar[0].x1, n);
	assert_heads_at_both_ends(&bar[0], heads, n);
	/* the pooled diamond, cut at the axis' ends, and its heads */
	svg_colour(PLOT_COLOUR_POOLED, "fill", colour, sizeof(colour));
	n = marks_of(text, colour, top, diamond, 4);
	assert_true(n >= 3);
	assert_heads_at_both_ends(&diamond[0], diamond + 1, n - 1);
	/* every label inside the image, the new host's figures all there */
	glyphs = glyph_ink(text, pi_y - PLOT_FOREST_ROW / 2.0, pi_y + PLOT_FOREST_ROW / 2.0,
			   &left, &right);
	print_message("text from x %.1f to %.1f; %zu glyphs in the new host's row\n",
		      left, right, glyphs);
	assert_true(left >= 0);
	assert_true(right <= PLOT_FOREST_WIDTH);
	assert_int_equal(glyphs, strlen("a new host") + strlen(pi_text));
}

static void refuses_what_it_cannot_draw(void **state)
{
	struct plot_fixture *f = *state;
	char gif[80];

	snprintf(gif, sizeof(gif), "%s/out.gif", f->dir);
	assert_int_equal(plot_demo(f, gif), EXIT_USAGE);
	assert_int_equal(access(gif, F_OK), -1);
	f->saved.interleaved = false;
	assert_int_equal(plot_demo(f, f->png), EXIT_USAGE);
	f->saved.interleaved = true;
	assert_int_equal(access(f->png, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(png_shows_the_three_panels,
						set_up, tear_down),
		cmocka_unit_test_setup_teardown(svg_is_svg_with_the_panels,
						set_up, tear_down),
		cmocka_unit_test_setup_teardown(refuses_what_it_cannot_draw,
						set_up, tear_down),
		cmocka_unit_test(ticks_are_round_with_si_units),
		cmocka_unit_test(ratio_ticks_are_round_in_percent),
		cmocka_unit_test(forest_range_leaves_out_what_runs_away),
		cmocka_unit_test_setup_teardown(svg_has_ticks_and_a_bar_per_slice,
						set_up, tear_down),
		cmocka_unit_test_setup_teardown(forest_svg_has_a_row_per_host,
						set_up, tear_down),
		cmocka_unit_test_setup_teardown(forest_reads_with_an_enormous_prediction_interval,
						set_up, tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
