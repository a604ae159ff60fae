// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the statistics of whole runs, by design and unpaired. */
#include "ab.h"
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double metric_value(const struct ab_run *run, enum ab_metric_id id)
{
	switch (id) {
	case AB_METRIC_CUSTOM:
		return run->metric;
	case AB_METRIC_WALL:
		return run->wall_s;
	case AB_METRIC_USER:
		return run->user_s;
	case AB_METRIC_SYS:
		return run->sys_s;
	}
	return NAN;
}

/* The value a report takes from one run; false leaves the run out. */
typedef bool (*run_value_fn)(const struct ab_run *run, enum ab_metric_id id,
			     double *value);

static bool every_run_metric(const struct ab_run *run, enum ab_metric_id id,
			     double *value)
{
	*value = metric_value(run, id);
	return true;
}

static bool toggled_run_latency(const struct ab_run *run,
				enum ab_metric_id id, double *value)
{
	(void)id;
	*value = run->knob_write_s;
	return run->knob_toggled;
}

/*
 * Splits value(run, id) of every run into arm A's and arm B's arrays
 * (n_runs each, caller frees both) and counts them.
 */
static int split_by_arm(const struct ab_run *runs, size_t n_runs,
			run_value_fn value, enum ab_metric_id id,
			double **a, size_t *n_a, double **b, size_t *n_b)
{
	*a = malloc(n_runs * sizeof(**a));
	*b = malloc(n_runs * sizeof(**b));
	*n_a = *n_b = 0;
	if (!*a || !*b) {
		free(*a);
		free(*b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_runs; i++) {
		double v;

		if (!value(&runs[i], id, &v))
			continue;
		if (runs[i].arm == AB_ARM_A)
			(*a)[(*n_a)++] = v;
		else
			(*b)[(*n_b)++] = v;
	}
	return 0;
}

/*
 * The design's analysis: two consecutive pairs of runs (AB, BA) are an
 * ABBA block, its contrast of log ratios cancels a drift inside it
 * (stats_robust.h). Into m->contrast and, in percent, m->blocks, which
 * the outputs print; without 2 blocks of positive values, m->paired
 * stays false and Welch's test on the arms is the design's.
 */
static int within_block_contrast(const double *a, const double *b, size_t n,
				 struct ab_metric_report *m)
{
	double *y = malloc(n * sizeof(*y));
	struct stats_paired *c = &m->blocks;
	int err = 0;

	if (!y)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		y[i] = log(b[i] / a[i]);
		if (!isfinite(y[i]))
			goto out;
	}
	if (stats_block_contrast(y, n, &m->contrast))
		goto out;
	m->paired = true;
	c->n = m->contrast.blocks;
	c->diff_pct = stats_log_pct(m->contrast.mean);
	c->ratio = exp(m->contrast.mean);
	c->ratio_ci_lo = exp(m->contrast.ci_lo);
	c->ratio_ci_hi = exp(m->contrast.ci_hi);
	c->diff_ci_lo_pct = stats_log_pct(m->contrast.ci_lo);
	c->diff_ci_hi_pct = stats_log_pct(m->contrast.ci_hi);
	c->t = m->contrast.t;
	c->df = m->contrast.df;
	c->p = m->contrast.p;
	c->significant = c->p < STATS_ALPHA;
	c->noise_pct = 100 * m->contrast.sd;
	c->mde_pct = stats_log_mde_pct(m->contrast.sd, m->contrast.blocks,
				       STATS_TEST_T);
out:
	free(y);
	return err;
}

static int compare_metric(const struct ab_run *runs, size_t n_runs,
			  struct ab_metric_report *m)
{
	double *a, *b;
	size_t n_a, n_b;
	int err;

	err = split_by_arm(runs, n_runs, every_run_metric, m->id, &a, &n_a, &b,
			   &n_b);
	if (err)
		return err;
	err = stats_compare(a, n_a, b, n_b, &m->cmp);
	/* every block put one A and one B run in order: a[i], b[i] are its pair */
	if (!err && n_a == n_b && n_a >= 2) {
		err = stats_compare_paired(a, b, n_a, &m->blocks);
		if (!err)
			err = within_block_contrast(a, b, n_a, m);
	}
	free(a);
	free(b);
	return err;
}

/* The p of the design's test: the blocks' contrast, else Welch's. */
static double design_p(const struct ab_metric_report *m)
{
	return m->paired ? m->blocks.p : m->cmp.welch_p;
}

/* Latency of the knob writes that changed its value, per direction. */
static int summarize_toggles(const struct ab_run *runs, size_t n_runs,
			     struct ab_report *report)
{
	double *to_a, *to_b;
	size_t n_a, n_b;
	int err;

	err = split_by_arm(runs, n_runs, toggled_run_latency, AB_METRIC_WALL,
			   &to_a, &n_a, &to_b, &n_b);
	if (err)
		return err;
	/* an empty direction stays n = 0 */
	stats_summarize(to_a, n_a, &report->toggle_to_a);
	stats_summarize(to_b, n_b, &report->toggle_to_b);
	free(to_a);
	free(to_b);
	return 0;
}

/*
 * Holm's correction over the design's p of every metric: each gets a
 * verdict, so each is in the family. Welch's p, for --output, gets its
 * own family.
 */
static void holm_across_metrics(struct ab_report *report)
{
	double p[4], adjusted[4], welch[4], welch_adjusted[4];

	report->n_named = report->n_metrics;
	for (size_t i = 0; i < report->n_metrics; i++) {
		p[i] = design_p(&report->metrics[i]);
		welch[i] = report->metrics[i].cmp.welch_p;
	}
	stats_holm(p, report->n_metrics, adjusted);
	stats_holm(welch, report->n_metrics, welch_adjusted);
	for (size_t i = 0; i < report->n_metrics; i++) {
		struct ab_metric_report *m = &report->metrics[i];

		m->p_holm = adjusted[i];
		m->welch_p_holm = welch_adjusted[i];
		m->significant = adjusted[i] < STATS_ALPHA;
	}
}

int ab_build_report(const struct ab_options *opts, const struct ab_run *runs,
		    size_t n_runs, struct ab_report *report)
{
	static const struct {
		enum ab_metric_id id;
		const char *name;
	} times[] = {
		{ AB_METRIC_WALL, "wall(s)" },
		{ AB_METRIC_USER, "user(s)" },
		{ AB_METRIC_SYS, "sys(s)" },
	};
	bool vmpressure_knob = ab_checks_vmpressure(opts);
	int err;

	memset(report, 0, sizeof(*report));
	report->opts = opts;
	report->runs = runs;
	report->n_runs = n_runs;
	if (opts->metric_regex) {
		report->metrics[0] = (struct ab_metric_report){
			.id = AB_METRIC_CUSTOM, .name = opts->metric_name,
			.higher_is_better = opts->higher_is_better,
		};
		report->n_metrics = 1;
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		report->metrics[report->n_metrics++] = (struct ab_metric_report){
			.id = times[i].id, .name = times[i].name,
		};
	for (size_t i = 0; i < report->n_metrics; i++) {
		struct ab_metric_report *m = &report->metrics[i];

		err = compare_metric(runs, n_runs, m);
		if (err)
			return err;
		/* of the design's test: 2 runs per arm make a block */
		if (opts->target_pct > 0 && m->paired)
			m->runs_needed = 2 * stats_log_needed(m->contrast.sd,
							      opts->target_pct,
							      STATS_TEST_T);
		else if (opts->target_pct > 0)
			m->runs_needed = stats_runs_needed(m->cmp.noise_pct,
							   opts->target_pct,
							   STATS_UNPAIRED);
	}
	holm_across_metrics(report);
	for (size_t i = 0; i < n_runs; i++) {
		unsigned int w = ab_run_warnings(&runs[i], vmpressure_knob);

		report->runs_without_reclaim += !!(w & AB_WARN_NO_RECLAIM);
		report->b_runs_not_skipped += !!(w & AB_WARN_B_NOT_SKIPPED);
		report->a_runs_skipped += !!(w & AB_WARN_A_SKIPPED);
	}
	return summarize_toggles(runs, n_runs, report);
}

const char *ab_verdict(const struct ab_metric_report *m)
{
	bool b_higher = (m->paired ? m->blocks.diff_pct : m->cmp.diff_pct) > 0;

	if (!m->significant)
		return "~";
	return b_higher == m->higher_is_better ? "B better" : "B worse";
}

void ab_result_of_runs(const struct ab_report *report, struct ab_result *r)
{
	ab_result_init(r, AB_DESIGN_RUNS, report->opts, report->knob_path,
		       report->seed, report->elapsed_s);
	r->runs = report;
	r->precision_reached = report->precision_reached;
	r->out_of_time = report->out_of_time;
	r->losses = report->losses.checked ? &report->losses : NULL;
	r->to_b = &report->toggle_to_b;
	r->to_a = &report->toggle_to_a;
	r->sanity = (struct ab_sanity){
		.unit = "runs",
		.without_reclaim = report->runs_without_reclaim,
		.b_not_skipped = report->b_runs_not_skipped,
		.a_skipped = report->a_runs_skipped,
	};
	r->n_metrics = report->n_metrics;
	for (size_t i = 0; i < report->n_metrics; i++) {
		const struct ab_metric_report *m = &report->metrics[i];
		/* the design's figures: paired by block when there are blocks */
		bool blocks = m->paired;

		r->metrics[i] = (struct ab_estimate){
			.name = m->name,
			.higher_is_better = m->higher_is_better,
			.a = &m->cmp.a,
			.b = &m->cmp.b,
			.test = blocks ? "abba-blocks-t" : "welch",
			.diff_pct = blocks ? m->blocks.diff_pct : m->cmp.diff_pct,
			.ci_lo_pct = blocks ? m->blocks.diff_ci_lo_pct : m->cmp.diff_ci_lo_pct,
			.ci_hi_pct = blocks ? m->blocks.diff_ci_hi_pct : m->cmp.diff_ci_hi_pct,
			.p_test = blocks ? m->blocks.p : m->cmp.welch_p,
			.p = m->p_holm,
			.significant = m->significant,
			.verdict = ab_verdict(m),
			.noise_pct = blocks ? m->blocks.noise_pct : m->cmp.noise_pct,
			.mde_pct = blocks ? m->blocks.mde_pct : m->cmp.mde_pct,
			.needed = m->runs_needed,
		};
	}
}
