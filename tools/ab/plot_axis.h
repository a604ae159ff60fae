/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plots' axes (plot_cairo.c): tick values at round steps (1, 2 or 5
 * times a power of ten) and their labels with an SI prefix and the unit,
 * so that a reader sees "20 k/s" or "5 ms", not "2.232e+04".
 */
#ifndef VMPCTL_AB_PLOT_AXIS_H
#define VMPCTL_AB_PLOT_AXIS_H

#include <stddef.h>

#define PLOT_TICKS_MAX 12

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

#endif
