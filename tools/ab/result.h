/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an A/B found, whichever design ran it: the set-up, each metric's
 * headline (both arms, B vs A with its interval, p, verdict and power, all
 * from the design's test), the losses by arm, the knob's changes, the
 * sanity counts, and the design's own figures (the runs and their ABBA
 * blocks, or the slices with their balance and carry-over). Each design's analysis fills it
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
	bool significant;	/* p below STATS_ALPHA */
	const char *verdict;
	/* power, of the same test */
	double noise_pct;	/* the spread of what it compares, % of mean A */
	double mde_pct;		/* the smallest effect it detects with power 0.8 */
	size_t needed;		/* runs, or pairs, for --target; 0: not asked */
};

/* The sanity checks' counts over the runs or slices (ab_sanity_json()). */
struct ab_sanity {
	const char *unit;	/* "runs" or "slices" */
	size_t without_reclaim;
	size_t b_not_skipped;
	size_t a_skipped;
};

struct ab_result {
	enum ab_design design;
	/* the set-up and how the A/B ended */
	const struct ab_options *opts;
	const char *knob_path;
	unsigned long seed;
	double elapsed_s;
	bool precision_reached;
	bool out_of_time;
	size_t n_metrics;
	struct ab_estimate metrics[4];	/* [0] is the primary */
	/* every run, pair or slice lost, by arm; NULL: not counted */
	const struct ab_losses *losses;
	/* the knob's change times, each way */
	const struct stats_summary *to_b;
	const struct stats_summary *to_a;
	struct ab_sanity sanity;
	/* the design's own figures: exactly one is set */
	const struct ab_report *runs;
	const struct il_report *slices;
};

/* One sample benchstat compares: a whole run's figures, or a kept slice's. */
struct ab_benchstat_sample {
	enum ab_arm arm;
	size_t n;
	double values[4];
	const char *units[4];	/* Go benchmark units; spaces become '_' */
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
	/*
	 * the JSON document's members after the set-up both designs share
	 * (the design's own set-up, then its analysis), and its samples
	 * ("runs" or "slices"), the document's last member
	 */
	void (*json)(json_t *doc, const struct ab_result *r);
	void (*json_samples)(json_t *doc, const struct ab_result *r);
	/*
	 * Each sample in turn into s, *pos from 0 on: false after the last
	 * (benchstat's samples: the whole runs, or the kept slices).
	 */
	bool (*next_sample)(const struct ab_result *r, size_t *pos,
			    struct ab_benchstat_sample *s);
	/*
	 * the design's own CSV columns after those both share: ",NAME..."
	 * in the header, ",VALUE..." in metric i's row
	 */
	const char *csv_columns;
	void (*csv_row)(FILE *out, const struct ab_result *r, size_t i);
	/* after the Markdown table; NULL: nothing */
	void (*markdown_note)(FILE *out, const struct ab_result *r);
};

extern const struct ab_design_sections ab_runs_sections;
extern const struct ab_design_sections ab_slices_sections;

/* The sections of the design that produced r. */
const struct ab_design_sections *ab_result_sections(const struct ab_result *r);

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
