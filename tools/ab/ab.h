/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab: run a command alternately with a knob at value A (stock) and
 * value B, in ABBA or randomized blocks, and say whether the difference is
 * outside the noise (statistics in stats.h). With --interleave, one long
 * run of a command that prints rate lines instead, the knob flipped every
 * DURATION and the slices compared in pairs (interleave.h, stats_paired.h).
 */
#ifndef VMPCTL_AB_H
#define VMPCTL_AB_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "args.h"
#include "losses.h"
#include "source_counter.h"
#include "sources.h"
#include "stats.h"
#include "stats_paired.h"
#include "stats_robust.h"

#define AB_RUNS_DEFAULT 10
#define AB_WARMUP_DEFAULT 1
/* --until-precision without --max-time stops after this long */
#define AB_MAX_TIME_DEFAULT 600.0
/* stdout kept per run for --metric: the last this many bytes */
#define AB_OUTPUT_MAX (1u << 20)
/* --interleave: no rate line by then is an error (--start-timeout) */
#define AB_START_TIMEOUT_DEFAULT 10.0
/* Whole runs without --run-timeout: see ab_run_timeout() (session.h). */
#define AB_RUN_TIMEOUT_FACTOR 10
#define AB_RUN_TIMEOUT_MIN_S 60.0
#define AB_FIRST_RUN_TIMEOUT_S 3600.0
/*
 * --interleave without --stall-timeout: no rate line for this many times
 * the median report interval, for two slices and for AB_STALL_MIN_S (a
 * loaded machine's pause is not a stall), ends the run.
 */
#define AB_STALL_INTERVALS 20
#define AB_STALL_MIN_S 5.0
/* --interleave: DURATION's bounds, seconds */
#define AB_INTERLEAVE_MIN 0.001
#define AB_INTERLEAVE_MAX 3600.0

enum ab_order { AB_ORDER_ABBA, AB_ORDER_RANDOM };
/* MARKDOWN only for --export-markdown */
enum ab_format { AB_FORMAT_TABLE, AB_FORMAT_JSON, AB_FORMAT_CSV,
		 AB_FORMAT_MARKDOWN };
enum ab_arm { AB_ARM_A, AB_ARM_B };

static inline const char *ab_arm_name(enum ab_arm arm)
{
	return arm == AB_ARM_A ? "A" : "B";
}

/* The design as --save's header and --json's "mode" name it. */
static inline const char *ab_mode_name(bool interleaved)
{
	return interleaved ? "interleave" : "runs";
}

struct ab_options {
	unsigned int runs;		/* per arm before --until-precision */
	unsigned int warmup;
	enum ab_order order;
	unsigned long seed;
	bool seed_given;
	const char *metric_regex;	/* NULL: wall time is the metric */
	const char *metric_name;	/* its label in the report */
	regex_t metric;			/* compiled when metric_regex */
	bool higher_is_better;
	double target_pct;		/* 0: not asked */
	double precision_pct;		/* 0: fixed --runs */
	double max_time_s;		/* 0: no limit */
	enum ab_format format;
	const char *knob;		/* NULL: the vmpressure_ctl knob */
	const char *switch_cmd;		/* instead of a knob: sh -c 'CMD "$1"' */
	const char *value_a;
	const char *value_b;
	double interleave_s;		/* > 0: slices this long, not whole runs */
	double max_flip_s;		/* --interleave: a slower flip drops its slice */
	double settle_s;		/* --interleave: not counted after each flip */
	bool split_intervals;		/* --interleave: count intervals across a flip in part */
	double start_timeout_s;		/* --interleave: the first rate line by then */
	double stall_timeout_s;		/* --interleave: no progress this long ends it; 0 default */
	double run_timeout_s;		/* whole runs: one longer is killed; 0 default */
	unsigned int long_every;	/* --interleave: every such pair long; 0 none */
	bool quiet;
	const char *save_path;		/* --save: JSON lines as they come */
	bool sequential;		/* --sequential: stop on the always-valid interval */
	const char *covariate_spec;	/* --covariate: a counter the knob cannot change */
	struct ab_counter covariate;
	bool ignore_failure;		/* a failed run drops its block, no more */
	const char *restore_path;	/* --restore: put that knob back, no A/B */
	const char *export_json;	/* --export-*: the report also there */
	const char *export_csv;
	const char *export_markdown;
	const char *export_benchstat;	/* Go's benchmark format, per run or slice */
	struct ab_source_options source;	/* --interleave: where progress comes from */
	char **cmd;			/* NULL-terminated, from argv */
};

/* Whether vmpressure's sanity checks apply: the default knob is used. */
static inline bool ab_checks_vmpressure(const struct ab_options *opts)
{
	return !opts->knob && !opts->switch_cmd;
}

/* Parses argv (argv[0] is "ab"); on PARSE_RUN free with ab_options_free(). */
enum parse_result ab_parse_args(int argc, char **argv,
				struct ab_options *opts);
void ab_options_free(struct ab_options *opts);

/* Hands out arms two at a time: every block holds one A and one B. */
struct ab_schedule {
	enum ab_order order;
	gsl_rng *rng;		/* random order only */
	size_t blocks;		/* orders drawn */
	bool b_first;		/* the last order drawn */
	bool repeat;		/* the next block takes it again */
};

int ab_schedule_init(struct ab_schedule *s, enum ab_order order,
		     unsigned long seed);
/* ABBA: AB, BA, AB, ...; random: AB or BA with probability 1/2 each. */
void ab_schedule_next(struct ab_schedule *s, enum ab_arm arms[2]);
/*
 * The last block was dropped: the next one runs its order again, so the
 * kept blocks still alternate and every ABBA block analysed (two kept
 * blocks in a row) stays AB + BA, which cancels a drift inside it.
 */
void ab_schedule_repeat(struct ab_schedule *s);
void ab_schedule_free(struct ab_schedule *s);

/*
 * The number the metric regex finds in text: capture group 1 when the
 * regex has one, else the whole first match. 0, -ENOENT (no match) or
 * -EINVAL (the match is not a number).
 */
int ab_extract_metric(const regex_t *re, const char *text, double *value);

/*
 * Reclaim counters from /proc/vmstat text: pgscan_anon + pgscan_file and
 * pgsteal_anon + pgsteal_file (these include memcg limit reclaim, which
 * pgscan_kswapd/direct leave out since 5.x), else the kswapd + direct
 * sums of older kernels. 0 or -ENOENT.
 */
int ab_parse_reclaim(const char *vmstat, uint64_t *pgscan, uint64_t *pgsteal);

struct ab_run {
	enum ab_arm arm;
	double wall_s;
	double user_s;
	double sys_s;
	double metric;		/* NaN without --metric */
	bool have_reclaim;
	uint64_t pgscan;	/* deltas over the run */
	uint64_t pgsteal;
	bool have_skipped;
	uint64_t skipped;
	bool knob_toggled;	/* the write changed the knob's value */
	double knob_write_s;	/* write and read-back */
};

/* What a run's counters say about the A/B's validity. */
enum ab_run_warning {
	AB_WARN_NO_RECLAIM = 1,		/* vmpressure() never ran */
	AB_WARN_B_NOT_SKIPPED = 2,	/* B did not short-circuit */
	AB_WARN_A_SKIPPED = 4,		/* A (stock) short-circuited */
};

/* Bitmask of ab_run_warning; vmpressure_knob: the default knob is used. */
unsigned int ab_run_warnings(const struct ab_run *run, bool vmpressure_knob);

enum ab_metric_id { AB_METRIC_CUSTOM, AB_METRIC_WALL, AB_METRIC_USER,
		    AB_METRIC_SYS };

struct ab_metric_report {
	enum ab_metric_id id;
	const char *name;
	bool higher_is_better;
	struct stats_comparison cmp;	/* unpaired: the arms as two samples */
	/*
	 * The design's analysis: each block's A and B run as a pair (a drift
	 * between blocks cancels); with at least 2 blocks.
	 */
	bool paired;
	struct stats_paired blocks;
	double welch_p_holm;	/* Welch's p, Holm-adjusted across the metrics
				   (the unpaired figures, for --output) */
	bool significant;	/* p_holm < STATS_ALPHA */
	size_t runs_needed;	/* for --target; 0 when not asked */
	/*
	 * --- The design's analysis (stats_robust.h), filled by
	 * ab_build_report(): the ABBA blocks' within-block contrast of log
	 * ratios. paired is set when it exists (2 blocks or more); blocks
	 * then holds its figures in percent (n the blocks, p its t-test's p,
	 * mde_pct its MDE), and the headline row prints them. ---
	 */
	struct stats_contrast contrast;
	double p_holm;		/* the design's p, Holm-adjusted across every
				   metric with a verdict */
};

struct ab_report {
	const struct ab_options *opts;
	const char *knob_path;
	unsigned long seed;
	const struct ab_run *runs;
	size_t n_runs;
	size_t n_metrics;
	size_t n_named;		/* metrics[0..n_named): Holm's family */
	struct ab_metric_report metrics[4];	/* [0] is the primary */
	unsigned int runs_without_reclaim;
	unsigned int b_runs_not_skipped;
	unsigned int a_runs_skipped;
	/* knob writes that changed the value: to B's and back to A's */
	struct stats_summary toggle_to_b;
	struct stats_summary toggle_to_a;
	double elapsed_s;
	bool precision_reached;
	bool out_of_time;
	unsigned int blocks_failed;	/* --ignore-failure: dropped blocks */
	/* runs tried and failed by arm, judged at AB_LOSS_RUNS_ALPHA */
	struct ab_losses losses;
};

/* Statistics of every metric over the runs; 0 or -EINVAL (< 2 per arm). */
int ab_build_report(const struct ab_options *opts, const struct ab_run *runs,
		    size_t n_runs, struct ab_report *report);

/* "B better", "B worse" or "~" (not significant after Holm). */
const char *ab_verdict(const struct ab_metric_report *m);

/*
 * Option setters of --json, --csv and --markdown for an option table
 * (options.h) whose ctx is the enum ab_format to set.
 */
int ab_opt_format_json(void *ctx, const char *opt, const char *arg);
int ab_opt_format_csv(void *ctx, const char *opt, const char *arg);
int ab_opt_format_markdown(void *ctx, const char *opt, const char *arg);

#endif
