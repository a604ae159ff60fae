/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab report FILE --plot OUT.png|OUT.svg: an interleaved A/B's
 * picture, drawn with cairo (plot_cairo.c). Three panels, top to bottom:
 * the slices over time coloured by arm, the histogram of the kept pairs'
 * differences, and the effect in each half of the slice after the flip.
 * A vmpctl built with PLOT=0 (the guests' static one: Debian ships no
 * static cairo) has plot_none.c, which says so.
 */
#ifndef VMPCTL_AB_PLOT_H
#define VMPCTL_AB_PLOT_H

#include "load.h"

#define PLOT_WIDTH 1200
#define PLOT_HEIGHT 1000
/* The slices panel's plotting area, in pixels of the image */
#define PLOT_SLICES_X0 90
#define PLOT_SLICES_Y0 70
#define PLOT_SLICES_X1 1170
#define PLOT_SLICES_Y1 330
/* The histogram's and the effect-by-time panel's, with the same x */
#define PLOT_HIST_Y0 400
#define PLOT_HIST_Y1 640
#define PLOT_EFFECT_Y0 710
#define PLOT_EFFECT_Y1 950

/* The arms' colours (RGB), and the colour of slices not compared */
#define PLOT_COLOUR_A 0x1f77b4
#define PLOT_COLOUR_B 0xff7f0e
#define PLOT_COLOUR_DROPPED 0xbbbbbb
/* The histogram's bars; the mean difference and the per-half effects */
#define PLOT_COLOUR_HIST 0x555555
#define PLOT_COLOUR_EFFECT 0xd62728

/*
 * Draws saved (an interleaved A/B) to path, a PNG or an SVG by its
 * suffix. 0, or the exit status with the reason printed.
 */
int ab_plot_saved(const struct ab_saved *saved, const char *path);

#endif
