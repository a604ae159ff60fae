// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the whole-run design's own sections of each output (result.h). */
#include "result.h"
#include "summary.h"
#include "json.h"
#include "output.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ab_blocks_headers[] = {
	"metric", "B vs A", "95% CI", "paired p", "MDE", NULL
};

const char *const ab_runs_headers[] = {
	"metric", "B vs A", "95% CI", "Welch t", "p", "Holm p", "U p",
	"verdict", "MDE", "runs/arm", NULL
};

/* The design's analysis: each block's A and B run as a pair. */
static void print_blocks(FILE *out, const struct ab_report *r)
{
	struct table t;

	if (!r->metrics[0].paired)
		return;
	fprintf(out, "\nwithin ABBA blocks (the design: %zu blocks of two A and two B runs; a drift\n"
		"inside a block cancels):\n", r->metrics[0].blocks.n);
	if (table_init(&t, ab_blocks_headers, 0x1e) == 0) {
		for (size_t i = 0; i < r->n_metrics; i++) {
			const struct stats_paired *c = &r->metrics[i].blocks;
			char cells[5][64];
			const char *row[5];

			/* a value at or below 0: no log, Welch's is its design */
			if (!r->metrics[i].paired)
				continue;

			snprintf(cells[0], sizeof(cells[0]), "%s", r->metrics[i].name);
			snprintf(cells[1], sizeof(cells[1]), "%+.2f%%", c->diff_pct);
			ab_ci_cell(cells[2], sizeof(cells[2]), c->diff_ci_lo_pct,
				   c->diff_ci_hi_pct);
			snprintf(cells[3], sizeof(cells[3]), "%.3g", c->p);
			ab_cell(cells[4], sizeof(cells[4]), "%.2f%%", c->mde_pct);
			for (int j = 0; j < 5; j++)
				row[j] = cells[j];
			table_add_row(&t, row);
		}
		table_print(&t, out);
	}
	table_free(&t);
}

static void print_sanity(FILE *out, const struct ab_report *r)
{
	const struct ab_options *o = r->opts;

	ab_print_knob_change_line(out, "arm changes", &r->toggle_to_b,
				  &r->toggle_to_a);

	if (!ab_checks_vmpressure(o)) {
		fputs("sanity: generic knob, no vmpressure checks\n", out);
		return;
	}
	fprintf(out, "sanity: %zu runs, %u without reclaim, %u of arm B did not short-circuit, %u of arm A did\n",
		r->n_runs, r->runs_without_reclaim, r->b_runs_not_skipped,
		r->a_runs_skipped);
	if (r->runs_without_reclaim || r->b_runs_not_skipped || r->a_runs_skipped)
		fputs("WARNING: the runs above are not a valid vmpressure A/B (see the warnings on stderr)\n",
		      out);
}

/*
 * One metric's row: the design's figures (e), then the arms as two samples
 * (m); the last column (runs per arm for --target) only exists with --target.
 */
static void add_diff_row(struct table *t, const struct ab_metric_report *m,
			 const struct ab_estimate *e)
{
	const struct stats_comparison *c = &m->cmp;
	char cells[10][48];
	const char *row[10];

	snprintf(cells[0], sizeof(cells[0]), "%s", m->name);
	stats_format_marker(cells[1], sizeof(cells[1]), e->diff_pct, m->significant);
	ab_ci_cell(cells[2], sizeof(cells[2]), e->ci_lo_pct, e->ci_hi_pct);
	/* the unpaired figures, with --output only */
	snprintf(cells[3], sizeof(cells[3]), "%.3g", c->welch_t);
	snprintf(cells[4], sizeof(cells[4]), "%.3g", e->p_test);
	ab_cell(cells[5], sizeof(cells[5]), "%.3g", e->p);
	snprintf(cells[6], sizeof(cells[6]), "%.3g%s", c->mwu_p,
		 c->mwu_exact ? "" : "~");
	snprintf(cells[7], sizeof(cells[7]), "%s", e->verdict);
	ab_cell(cells[8], sizeof(cells[8]), "%.2f%%", e->mde_pct);
	if (e->needed >= STATS_RUNS_NEEDED_MAX)
		snprintf(cells[9], sizeof(cells[9]), ">%d", STATS_RUNS_NEEDED_MAX);
	else
		snprintf(cells[9], sizeof(cells[9]), "%zu", e->needed);
	for (int i = 0; i < 10; i++)
		row[i] = cells[i];
	table_add_row(t, row);
}

static void table_metric(FILE *out, const struct ab_result *res)
{
	const struct ab_options *o = res->opts;

	if (o->metric_regex)
		fprintf(out, "\nmetric: /%s/ on stdout, %s is better", o->metric_regex,
			o->higher_is_better ? "higher" : "lower");
}

static void table(FILE *out, const struct ab_result *res)
{
	const struct ab_report *r = res->runs;
	const struct ab_options *o = r->opts;
	char target_header[48];
	const char *headers[11];
	struct table t;

	memcpy(headers, ab_runs_headers, sizeof(ab_runs_headers));
	if (o->target_pct > 0) {
		snprintf(target_header, sizeof(target_header), "runs/arm for %.2g%%",
			 o->target_pct);
		headers[9] = target_header;
	} else {
		headers[9] = NULL;
	}
	if (table_init(&t, headers, 0x37a) == 0) {
		/* Welch's t and Mann-Whitney's p: for reference */
		t.on_request = 1u << 3 | 1u << 6;
		for (size_t i = 0; i < r->n_metrics; i++)
			add_diff_row(&t, &r->metrics[i], &res->metrics[i]);
		table_print(&t, out);
	}
	table_free(&t);
	fprintf(out, "\nB vs A, 95%% CI, p, MDE: one analysis, the design's: the ABBA blocks' contrast\n"
		"(A1 + A2 - B1 - B2) / 2 of log values, Student's t over the blocks, as a percent\n"
		"(without 2 whole ABBA blocks: Welch's test of the arms and Fieller's interval).\n"
		"MDE: the smallest difference that test detects with power 0.8. Welch t and U p\n"
		"(Mann-Whitney's, ~ a normal approximation), with --output: the arms as two samples.\n"
		"*marked* when p, Holm-adjusted across the %zu metrics (Holm p), is below 0.05.\n",
		r->n_named);
	print_blocks(out, r);
	if (o->precision_pct > 0)
		fprintf(out, "until-precision %.2g%%: %s\n", o->precision_pct,
			r->precision_reached ? "reached" :
			"NOT reached before --max-time");
	else if (r->out_of_time)
		fputs("stopped by --max-time before all runs\n", out);
	if (r->blocks_failed)
		fprintf(out, "failed runs: %u, each block dropped (--ignore-failure)\n",
			r->blocks_failed);
	if (r->losses.checked)
		ab_losses_print(out, &r->losses);
	print_sanity(out, r);
}

/* The ABBA blocks behind the design's figures. */
static json_t *json_blocks(const struct stats_paired *c)
{
	json_t *o = json_object();

	json_put(o, "n", json_count(c->n));
	json_put(o, "paired_t", json_real_or_null(c->t));
	return o;
}

/* The arms as two samples: Welch's test, Fieller's interval, Mann-Whitney. */
static json_t *json_unpaired(const struct ab_metric_report *m)
{
	static const char *const keys[] = {
		"welch_t", "welch_df", "welch_p", "welch_p_holm", "mwu_u", "mwu_p",
	};
	const struct stats_comparison *c = &m->cmp;
	const double tests[] = {
		c->welch_t, c->welch_df, c->welch_p, m->welch_p_holm, c->mwu_u, c->mwu_p,
	};
	json_t *o = json_object();

	json_put(o, "diff_pct", json_real_or_null(c->diff_pct));
	json_put(o, "diff_ci_pct", json_pair(c->diff_ci_lo_pct, c->diff_ci_hi_pct));
	json_put(o, "ratio", json_real_or_null(c->ratio));
	json_put(o, "ratio_ci", json_pair(c->ratio_ci_lo, c->ratio_ci_hi));
	json_put_reals(o, keys, tests, sizeof(tests) / sizeof(tests[0]));
	json_put(o, "mwu_exact", json_boolean(c->mwu_exact));
	json_put(o, "noise_pct", json_real_or_null(c->noise_pct));
	json_put(o, "mde_pct", json_real_or_null(c->mde_pct));
	return o;
}

/* The design's figures (e) first, then how it got them. */
static json_t *json_metric(const struct ab_metric_report *m,
			   const struct ab_estimate *e, bool with_target)
{
	json_t *o = json_object();
	char marker[32];

	json_put(o, "name", json_text(m->name));
	json_put(o, "higher_is_better", json_boolean(m->higher_is_better));
	json_put(o, "a", ab_summary_json(&m->cmp.a));
	json_put(o, "b", ab_summary_json(&m->cmp.b));
	json_put(o, "test", json_text(e->test));
	json_put(o, "diff_pct", json_real_or_null(e->diff_pct));
	json_put(o, "diff_ci_pct", json_pair(e->ci_lo_pct, e->ci_hi_pct));
	json_put(o, "p", json_real_or_null(e->p_test));
	json_put(o, "p_holm", json_real_or_null(e->p));
	json_put(o, "significant", json_boolean(m->significant));
	stats_format_marker(marker, sizeof(marker), e->diff_pct, m->significant);
	json_put(o, "marker", json_text(marker));
	json_put(o, "verdict", json_text(e->verdict));
	json_put(o, "noise_pct", json_real_or_null(e->noise_pct));
	json_put(o, "mde_pct", json_real_or_null(e->mde_pct));
	json_put(o, "runs_needed", with_target ? json_count(e->needed) : json_null());
	json_put(o, "blocks", m->paired ? json_blocks(&m->blocks) : json_null());
	json_put(o, "unpaired", json_unpaired(m));
	return o;
}

static json_t *json_run(const struct ab_run *run)
{
	json_t *o = json_object();

	json_put(o, "arm", json_text(ab_arm_name(run->arm)));
	json_put(o, "wall_s", json_real_or_null(run->wall_s));
	json_put(o, "user_s", json_real_or_null(run->user_s));
	json_put(o, "sys_s", json_real_or_null(run->sys_s));
	json_put(o, "metric", json_real_or_null(run->metric));
	json_put(o, "pgscan", run->have_reclaim ? json_count(run->pgscan) : json_null());
	json_put(o, "pgsteal", run->have_reclaim ? json_count(run->pgsteal) : json_null());
	json_put(o, "skipped", run->have_skipped ? json_count(run->skipped) : json_null());
	json_put(o, "knob_toggled", json_boolean(run->knob_toggled));
	json_put(o, "knob_write_s", json_real_or_null(run->knob_write_s));
	return o;
}

static void json(json_t *doc, const struct ab_result *res)
{
	const struct ab_report *r = res->runs;
	const struct ab_options *o = r->opts;
	json_t *list, *family;

	json_put(doc, "metric_regex", json_text(o->metric_regex));
	json_put(doc, "blocks_failed", json_count(r->blocks_failed));
	json_put(doc, "ci_method", json_text(r->metrics[0].paired ? "abba-blocks-t" :
					      "fieller"));
	family = json_object();
	json_put(family, "method", json_text("holm"));
	json_put(family, "metrics", json_count(r->n_named));
	json_put(family, "alpha", json_real(STATS_ALPHA));
	json_put(doc, "multiple_comparisons", family);
	list = json_array();
	for (size_t i = 0; i < r->n_metrics; i++)
		json_append(list, json_metric(&r->metrics[i], &res->metrics[i],
					      o->target_pct > 0));
	json_put(doc, "metrics", list);
}

static void json_samples(json_t *doc, const struct ab_result *res)
{
	const struct ab_report *r = res->runs;
	json_t *list = json_array();

	for (size_t i = 0; i < r->n_runs; i++)
		json_append(list, json_run(&r->runs[i]));
	json_put(doc, "runs", list);
}

/* A whole run: the --metric value when there is one, then its times. */
static bool next_sample(const struct ab_result *res, size_t *pos,
			struct ab_benchstat_sample *s)
{
	const struct ab_report *r = res->runs;
	const struct ab_run *run;

	if (*pos >= r->n_runs)
		return false;
	run = &r->runs[(*pos)++];
	*s = (struct ab_benchstat_sample){ .arm = run->arm };
	if (r->opts->metric_regex) {
		s->values[s->n] = run->metric;
		s->units[s->n++] = r->opts->metric_name;
	}
	s->values[s->n] = run->wall_s;
	s->units[s->n++] = "wall-sec";
	s->values[s->n] = run->user_s;
	s->units[s->n++] = "user-sec";
	s->values[s->n] = run->sys_s;
	s->units[s->n++] = "sys-sec";
	return true;
}

/* The ABBA blocks' count, then the arms as two samples. */
static void csv_row(FILE *out, const struct ab_result *res, size_t i)
{
	const struct ab_metric_report *m = &res->runs->metrics[i];
	const struct stats_comparison *c = &m->cmp;
	const double unpaired[] = {
		c->diff_pct, c->diff_ci_lo_pct, c->diff_ci_hi_pct, c->welch_t,
		c->welch_df, c->welch_p, m->welch_p_holm, c->mwu_u, c->mwu_p,
	};
	const double unpaired_spread[] = {
		c->noise_pct, c->mde_pct, c->ratio, c->ratio_ci_lo, c->ratio_ci_hi,
	};

	fputc(',', out);
	if (m->paired)
		fprintf(out, "%zu", m->blocks.n);
	ab_csv_numbers(out, unpaired, sizeof(unpaired) / sizeof(unpaired[0]));
	fprintf(out, ",%d", c->mwu_exact);
	ab_csv_numbers(out, unpaired_spread,
		       sizeof(unpaired_spread) / sizeof(unpaired_spread[0]));
}

const struct ab_design_sections ab_runs_sections = {
	.table_metric = table_metric,
	.table = table,
	.json = json,
	.json_samples = json_samples,
	.next_sample = next_sample,
	.csv_columns = ",blocks,unpaired_diff_pct,unpaired_diff_ci_lo_pct,"
			"unpaired_diff_ci_hi_pct,welch_t,welch_df,welch_p,welch_p_holm,mwu_u,"
			"mwu_p,mwu_exact,unpaired_noise_pct,unpaired_mde_pct,ratio,ratio_ci_lo,"
			"ratio_ci_hi",
	.csv_row = csv_row,
};
