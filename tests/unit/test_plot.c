// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab report --plot (tools/ab/plot_cairo.c) on a --save file that
 * make demo recorded in the 6.1 guest (fixtures/ab-save/demo-6.1.jsonl):
 * the PNG is read back with cairo and its pixels checked, the SVG's text
 * looked at; a whole-runs file and a bad suffix are refused. The axes'
 * round ticks and SI labels, and the SVGs' structure (a tick mark per
 * tick, a bar per slice, a square per host of the forest plot).
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
	double ticks[PLOT_TICKS_MAX];
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
	n = plot_ticks(-7.7 - 0.54, 3.1 + 0.54, ticks, PLOT_TICKS_MAX);
	assert_int_equal(count_of(text, colour[0]), n);
	/*
	 * the tick labels: cairo draws each character as a glyph; on the
	 * labels' baseline there is one per character of "-8%", "-6%", ...
	 */
	plot_tick_labels(ticks, n, "%", labels);
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
	assert_true(count_colour(img, PLOT_FOREST_X0, 70 + PLOT_FOREST_ROW * 3 - 6,
				 PLOT_FOREST_X1, 70 + PLOT_FOREST_ROW * 3 + 6,
				 PLOT_COLOUR_HOST) > 60);
	cairo_surface_destroy(img);
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
		cmocka_unit_test_setup_teardown(svg_has_ticks_and_a_bar_per_slice,
						set_up, tear_down),
		cmocka_unit_test_setup_teardown(forest_svg_has_a_row_per_host,
						set_up, tear_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
