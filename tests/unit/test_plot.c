// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab report --plot (tools/ab/plot_cairo.c) on a --save file that
 * make demo recorded in the 6.1 guest (fixtures/ab-save/demo-6.1.jsonl):
 * the PNG is read back with cairo and its pixels checked, the SVG's text
 * looked at; a whole-runs file and a bad suffix are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab/load.h"
#include "ab/plot.h"
#include "commands.h"
#include "fileio.h"

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

	assert_int_equal(ab_plot_saved(&f->saved, f->png), 0);
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

static void drop_spaces(char *text)
{
	char *to = text;

	for (; *text; text++)
		if (*text != ' ')
			*to++ = *text;
	*to = '\0';
}

static void svg_is_svg_with_the_panels(void **state)
{
	struct plot_fixture *f = *state;
	static char text[1 << 20];

	assert_int_equal(ab_plot_saved(&f->saved, f->svg), 0);
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

static void refuses_what_it_cannot_draw(void **state)
{
	struct plot_fixture *f = *state;
	char gif[80];

	snprintf(gif, sizeof(gif), "%s/out.gif", f->dir);
	assert_int_equal(ab_plot_saved(&f->saved, gif), EXIT_USAGE);
	assert_int_equal(access(gif, F_OK), -1);
	f->saved.interleaved = false;
	assert_int_equal(ab_plot_saved(&f->saved, f->png), EXIT_USAGE);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
