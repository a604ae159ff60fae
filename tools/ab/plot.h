/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab report FILE --plot OUT.png|OUT.svg: an interleaved A/B's
 * picture, drawn with cairo (plot_cairo.c). Three panels, top to bottom:
 * the slices over time coloured by arm, the histogram of the kept pairs'
 * differences, and the effect in each half of the slice after the flip.
 * Every panel has round ticks with SI prefixes and units, gridlines and
 * a title line with the knob, arms and verdict; the slices panel a legend
 * of the arms. vmpctl ab merge --plot draws a forest plot (below).
 * A vmpctl built with PLOT=0 (the guests' static one: Debian ships no
 * static cairo) has plot_none.c, which says so.
 */
#ifndef VMPCTL_AB_PLOT_H
#define VMPCTL_AB_PLOT_H

#include "load.h"
#include "result.h"
#include "plot_axis.h"

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
/* Every panel's gridlines and tick marks (one stroke per tick) */
#define PLOT_COLOUR_GRID 0xe0e0e0
#define PLOT_COLOUR_TICK 0x404040
#define PLOT_TICK_LENGTH 6
/* The labels' size; an x tick's label sits one size under its mark */
#define PLOT_FONT_SIZE 14.0

/* The forest plot: its width, a row's height */
#define PLOT_FOREST_WIDTH 1100
#define PLOT_FOREST_ROW 34
#define PLOT_FOREST_HEIGHT(rows) (70 + PLOT_FOREST_ROW * ((rows) + 3) + 60)
/*
 * The margin at the image's edges; the gap between the plotting area and
 * the rows' names and figures (room for an arrow head); the least width
 * the names and figures leave the plotting area (longer ones are smaller).
 */
#define PLOT_FOREST_MARGIN 20
#define PLOT_FOREST_GAP 16
#define PLOT_FOREST_MIN_AREA 480
/* An arrow head where an interval goes on past the axis */
#define PLOT_ARROW_LENGTH 9
#define PLOT_ARROW_HALF 6
/* a host's square and interval; the pooled diamond; the new host's bar */
#define PLOT_COLOUR_HOST 0x1f77b4
#define PLOT_COLOUR_POOLED 0xd62728
#define PLOT_COLOUR_PREDICTION 0x9467bd

/*
 * Draws saved (an interleaved A/B) with its result's verdict (r, of
 * saved's slices) to path, a PNG or an SVG by its suffix. 0, or the exit
 * status with the reason printed.
 */
int ab_plot_saved(const struct ab_saved *saved, const struct ab_result *r,
		  const char *path);

/* Draws f to path, a PNG or an SVG by its suffix. 0, or the exit status. */
int ab_plot_forest(const struct forest_plot *f, const char *path);

#endif
