/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One arm's summary (stats.h) as each of ab's reports shows it: a table
 * row, a JSON object, CSV numbers and a line of knob-change times. Both
 * designs' sections (report_runs.c, report_slices.c) and the outputs they
 * share (report.c) use these, so that the two read alike.
 */
#ifndef VMPCTL_AB_SUMMARY_H
#define VMPCTL_AB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ab.h"
#include "json.h"
#include "output.h"
#include "stats.h"

/* The table's headers (NULL-terminated) and right-aligned columns. */
extern const char *const ab_summary_headers[];

/* The other tables' headers: whole runs, blocks, slices, a saved run. */
extern const char *const ab_runs_headers[];
extern const char *const ab_blocks_headers[];
extern const char *const ab_slices_headers[];
extern const char *const ab_saved_headers[];

/* Every table ab and ab report print, for --output (table_format_columns()). */
extern const char *const *const ab_tables[];
#define AB_SUMMARY_RIGHT_ALIGNED 0x5fcU

/*
 * A table of ab_summary_headers whose default columns leave out min, max
 * and cover (--output names them). 0 or table_init()'s error.
 */
int ab_summary_table_init(struct table *t);

/*
 * How the tables print a metric's figures: four significant digits, what
 * a mean with a 95% interval of a few percent can claim, in at most ten
 * characters ("-1.235e+06"), so the columns fit TABLE_WIDTH.
 */
#define AB_FIGURE "%.4g"

/* value printed with fmt, or "-" when it is not a finite number. */
void ab_cell(char *buf, size_t size, const char *fmt, double value);

/* A 95% interval of a difference, "[lo%, hi%]", or "unbounded". */
void ab_ci_cell(char *buf, size_t size, double lo_pct, double hi_pct);

/*
 * Appends a row: metric, arm, then s. with_cov false prints "-" for the
 * coefficient of variation (of a difference near 0 it means nothing).
 */
void ab_add_summary_row(struct table *t, const char *metric, const char *arm,
			const struct stats_summary *s, bool with_cov);

/* "A->B 6, median 3.500 ms, max 6.000 ms", or "A->B none". */
void ab_print_knob_changes(FILE *out, const char *direction,
			   const struct stats_summary *s);

json_t *ab_summary_json(const struct stats_summary *s);

/* {"n", "median_s", "max_s"} of knob-change times, nulls when none. */
json_t *ab_knob_changes_json(const struct stats_summary *s);

/*
 * What both reports and the --save header say about the A/B's setup:
 * knob, a, b, order, seed (random order; else null), warmup, command.
 */
void ab_setup_json(json_t *doc, const struct ab_options *o, const char *knob,
		   unsigned long seed);

/*
 * target_pct, precision_pct (nulls when not asked), precision_reached and
 * out_of_time: how far the A/B went.
 */
void ab_progress_json(json_t *doc, const struct ab_options *o,
		      bool precision_reached, bool out_of_time);

/* {"a_to_b", "b_to_a"} of knob-change times (ab_knob_changes_json()). */
json_t *ab_toggles_json(const struct stats_summary *to_b,
			const struct stats_summary *to_a);

/* "WHAT (knob write + read-back, or --switch): A->B ...; B->A ...\n" */
void ab_print_knob_change_line(FILE *out, const char *what,
			       const struct stats_summary *to_b,
			       const struct stats_summary *to_a);

/* ",value" with every digit that matters, or "," when not finite. */
void ab_csv_number(FILE *out, double value);
/* ab_csv_number() of each value in turn. */
void ab_csv_numbers(FILE *out, const double *values, size_t n);

/*
 * The sanity checks' counts over the runs or slices (unit: "runs" or
 * "slices"): {"vmpressure_checks", "UNIT_without_reclaim",
 * "b_UNIT_not_skipped", "a_UNIT_skipped"}.
 */
json_t *ab_sanity_json(const struct ab_options *o, const char *unit,
		       size_t without_reclaim, size_t b_not_skipped,
		       size_t a_skipped);

#endif
