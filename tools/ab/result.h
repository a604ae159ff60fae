/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an A/B found, whichever design ran it: the set-up, each metric's
 * headline (both arms, B vs A with its interval, p and verdict) and the
 * design's own figures (the runs and their ABBA blocks, or the slices with
 * their balance, losses and carry-over). Each design's analysis fills it
 * (ab_result_of_runs() in analysis_runs.c, ab_result_of_slices() in
 * analysis_slices.c); every output renders it (report.c): the table,
 * --json, --csv, the --export-* files, benchstat, --save's last line and
 * ab report. Only a design's own sections (report_runs.c,
 * report_slices.c) look at which design ran.
 */
#ifndef VMPCTL_AB_RESULT_H
#define VMPCTL_AB_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ab.h"
#include "json.h"
#include "slices.h"

enum ab_design { AB_DESIGN_RUNS, AB_DESIGN_SLICES };

/* One metric's headline, by the design's own analysis. */
struct ab_estimate {
	const char *name;
	bool higher_is_better;
	const struct stats_summary *a;		/* each arm's values */
	const struct stats_summary *b;
	const struct stats_summary *b_minus_a;	/* pairs' differences; NULL: unpaired */
	const char *test;	/* the design's test behind every figure below */
	double diff_pct;	/* B vs A */
	double ci_lo_pct;
	double ci_hi_pct;
	double p_test;		/* that test's p */
	double p;		/* Holm-adjusted across the metrics with a verdict */
	const char *verdict;
	/* power, of the same test */
	double noise_pct;	/* the spread of what it compares, % of mean A */
	double mde_pct;		/* the smallest effect it detects with power 0.8 */
	size_t needed;		/* runs, or pairs, for --target; 0: not asked */
};

struct ab_result {
	enum ab_design design;
	/* the set-up and how the A/B ended */
	const struct ab_options *opts;
	const char *knob_path;
	unsigned long seed;
	double elapsed_s;
	size_t n_metrics;
	struct ab_estimate metrics[4];	/* [0] is the primary */
	/* the design's own figures: exactly one is set */
	const struct ab_report *runs;
	const struct il_report *slices;
};

/* The set-up both designs' results begin with, the rest zero. */
static inline void ab_result_init(struct ab_result *r, enum ab_design design,
				  const struct ab_options *opts,
				  const char *knob_path, unsigned long seed,
				  double elapsed_s)
{
	*r = (struct ab_result){
		.design = design, .opts = opts, .knob_path = knob_path,
		.seed = seed, .elapsed_s = elapsed_s,
	};
}

/*
 * Each design's analysis as the result; the report's knob_path, seed and
 * elapsed_s set, and kept as long as r is used.
 */
void ab_result_of_runs(const struct ab_report *report, struct ab_result *r);
void ab_result_of_slices(const struct il_report *report, struct ab_result *r);

/*
 * The sections only one design has, in each output (report_runs.c,
 * report_slices.c); report.c prints what both share around them.
 */
struct ab_design_sections {
	/*
	 * the first line after "A=... B=..." (NULL: nothing), and the
	 * metric's description
	 */
	void (*table_setup)(FILE *out, const struct ab_result *r);
	void (*table_metric)(FILE *out, const struct ab_result *r);
	/* everything after the arms' summary table */
	void (*table)(FILE *out, const struct ab_result *r);
	/* the document's members, in order */
	void (*json)(json_t *doc, const struct ab_result *r);
	void (*csv)(FILE *out, const struct ab_result *r);
	/* after the Markdown table; NULL: nothing */
	void (*markdown_note)(FILE *out, const struct ab_result *r);
};

extern const struct ab_design_sections ab_runs_sections;
extern const struct ab_design_sections ab_slices_sections;

void ab_result_print_table(FILE *out, const struct ab_result *r);
/* One line; 0 or -errno (json_print_line()). */
int ab_result_print_json(FILE *out, const struct ab_result *r);
void ab_result_print_csv(FILE *out, const struct ab_result *r);
void ab_result_print_markdown(FILE *out, const struct ab_result *r);
/* In format; 0 or -errno (JSON). */
int ab_result_print_as(FILE *out, const struct ab_result *r,
		       enum ab_format format);

/*
 * The report as JSON to save (NULL: not saved), then on stdout in the
 * options' format; 0 or -errno (JSON).
 */
int ab_result_report(const struct ab_result *r, FILE *save);

#endif
