/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One arm's summary (stats.h) as each of ab's reports shows it: a table
 * row, a JSON object, CSV numbers and a line of knob-change times. Both
 * the whole-run report (ab_report.c) and the interleaved one
 * (ab_interleave_report.c) use these, so that the two read alike.
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
 * --export-markdown: a line naming the knob, the arms and the command,
 * then a Markdown table with one row per metric.
 */
#define AB_MARKDOWN_COLUMNS 7
extern const char *const ab_markdown_headers[AB_MARKDOWN_COLUMNS];
void ab_markdown_head(FILE *out, const struct ab_options *o, const char *knob);
void ab_markdown_row(FILE *out, const char *metric, double mean_a, double mean_b,
		     double diff_pct, double lo_pct, double hi_pct, double p,
		     const char *verdict);

/* ",value" with every digit that matters, or "," when not finite. */
void ab_csv_number(FILE *out, double value);

#endif
