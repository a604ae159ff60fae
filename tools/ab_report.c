// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: statistics over the runs and the table, JSON and CSV. */
#include "ab.h"
#include "output.h"

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
	free(a);
	free(b);
	return err;
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
		if (opts->target_pct > 0)
			m->runs_needed = stats_runs_needed(m->cmp.noise_pct,
							   opts->target_pct);
	}
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
	bool b_higher = m->cmp.diff_pct > 0;

	if (!m->cmp.significant)
		return "~";
	return b_higher == m->higher_is_better ? "B better" : "B worse";
}

static void print_command(FILE *out, char **cmd)
{
	for (size_t i = 0; cmd[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", cmd[i]);
}

static void print_toggle(FILE *out, const char *direction,
			 const struct stats_summary *s)
{
	if (s->n)
		fprintf(out, "%s %zu, median %.3f ms, max %.3f ms", direction,
			s->n, 1e3 * s->median, 1e3 * s->max);
	else
		fprintf(out, "%s none", direction);
}

static void print_sanity(FILE *out, const struct ab_report *r)
{
	const struct ab_options *o = r->opts;

	fputs("arm changes (knob write + read-back, or --switch): ", out);
	print_toggle(out, "A->B", &r->toggle_to_b);
	fputs("; ", out);
	print_toggle(out, "B->A", &r->toggle_to_a);
	fputc('\n', out);

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

/* "%.6g" keeps 0.0123 and 654321 readable side by side */
static void cell_number(char *buf, size_t size, double value)
{
	if (isfinite(value))
		snprintf(buf, size, "%.6g", value);
	else
		snprintf(buf, size, "-");
}

/* a percentage with a sign or not; "-" where it is undefined (mean 0) */
static void cell_percent(char *buf, size_t size, const char *fmt, double value)
{
	if (isfinite(value))
		snprintf(buf, size, fmt, value);
	else
		snprintf(buf, size, "-");
}

static void add_arm_row(struct table *t, const char *metric,
			const char *arm, const struct stats_summary *s)
{
	char cells[11][48];
	const char *row[11];

	snprintf(cells[0], sizeof(cells[0]), "%s", metric);
	snprintf(cells[1], sizeof(cells[1]), "%s", arm);
	snprintf(cells[2], sizeof(cells[2]), "%zu", s->n);
	cell_number(cells[3], sizeof(cells[3]), s->mean);
	cell_number(cells[4], sizeof(cells[4]), s->stddev);
	cell_percent(cells[5], sizeof(cells[5]), "%.2f%%", s->cov_pct);
	cell_number(cells[6], sizeof(cells[6]), s->min);
	cell_number(cells[7], sizeof(cells[7]), s->max);
	cell_number(cells[8], sizeof(cells[8]), s->median);
	snprintf(cells[9], sizeof(cells[9]), "[%.6g, %.6g]", s->median_ci_lo,
		 s->median_ci_hi);
	snprintf(cells[10], sizeof(cells[10]), "%.1f%%",
		 100 * s->median_ci_coverage);
	for (int i = 0; i < 11; i++)
		row[i] = cells[i];
	table_add_row(t, row);
}

/* The last column (runs per arm for --target) only exists with --target. */
static void add_diff_row(struct table *t, const struct ab_metric_report *m)
{
	const struct stats_comparison *c = &m->cmp;
	char cells[9][48];
	const char *row[9];

	snprintf(cells[0], sizeof(cells[0]), "%s", m->name);
	stats_format_marker(cells[1], sizeof(cells[1]), c->diff_pct,
			    c->significant);
	if (isfinite(c->diff_ci_lo_pct) && isfinite(c->diff_ci_hi_pct))
		snprintf(cells[2], sizeof(cells[2]), "[%+.2f%%, %+.2f%%]",
			 c->diff_ci_lo_pct, c->diff_ci_hi_pct);
	else
		snprintf(cells[2], sizeof(cells[2]), "-");
	snprintf(cells[3], sizeof(cells[3]), "%.3g", c->welch_t);
	snprintf(cells[4], sizeof(cells[4]), "%.3g", c->welch_p);
	snprintf(cells[5], sizeof(cells[5]), "%.3g%s", c->mwu_p,
		 c->mwu_exact ? "" : "~");
	snprintf(cells[6], sizeof(cells[6]), "%s", ab_verdict(m));
	cell_percent(cells[7], sizeof(cells[7]), "%.2f%%", c->mde_pct);
	if (m->runs_needed >= STATS_RUNS_NEEDED_MAX)
		snprintf(cells[8], sizeof(cells[8]), ">%d", STATS_RUNS_NEEDED_MAX);
	else
		snprintf(cells[8], sizeof(cells[8]), "%zu", m->runs_needed);
	for (int i = 0; i < 9; i++)
		row[i] = cells[i];
	table_add_row(t, row);
}

void ab_print_table(FILE *out, const struct ab_report *r)
{
	static const char *const arm_headers[] = {
		"metric", "arm", "n", "mean", "stddev", "CoV", "min", "max",
		"median", "median 95% CI", "cover", NULL
	};
	static const char *const diff_headers[] = {
		"metric", "B vs A", "95% CI", "Welch t", "p", "U p", "verdict",
		"MDE", "runs/arm", NULL
	};
	const struct ab_options *o = r->opts;
	char target_header[48];
	const char *headers[10];
	struct table t;

	fprintf(out, "knob %s: A=%s B=%s, order %s", r->knob_path, o->value_a,
		o->value_b, o->order == AB_ORDER_ABBA ? "abba" : "random");
	if (o->order == AB_ORDER_RANDOM)
		fprintf(out, " (seed %lu)", r->seed);
	fprintf(out, ", %u warmup, %.0f s\ncommand: ", o->warmup, r->elapsed_s);
	print_command(out, o->cmd);
	if (o->metric_regex)
		fprintf(out, "\nmetric: /%s/ on stdout, %s is better", o->metric_regex,
			o->higher_is_better ? "higher" : "lower");
	fputs("\n\n", out);

	if (table_init(&t, arm_headers, 0x5fc) == 0) {
		for (size_t i = 0; i < r->n_metrics; i++) {
			add_arm_row(&t, r->metrics[i].name, "A", &r->metrics[i].cmp.a);
			add_arm_row(&t, "", "B", &r->metrics[i].cmp.b);
		}
		table_print(&t, out);
	}
	table_free(&t);
	fputc('\n', out);

	memcpy(headers, diff_headers, sizeof(diff_headers));
	if (o->target_pct > 0) {
		snprintf(target_header, sizeof(target_header), "runs/arm for %.2g%%",
			 o->target_pct);
		headers[8] = target_header;
	} else {
		headers[8] = NULL;
	}
	if (table_init(&t, headers, 0x1ba) == 0) {
		for (size_t i = 0; i < r->n_metrics; i++)
			add_diff_row(&t, &r->metrics[i]);
		table_print(&t, out);
	}
	table_free(&t);
	fputs("\nB vs A: (mean B - mean A) / mean A, *marked* when Welch's p < 0.05; "
	      "U p: Mann-Whitney (~: normal approximation);\n"
	      "MDE: the smallest difference these runs detect with power 0.8.\n",
	      out);
	if (o->precision_pct > 0)
		fprintf(out, "until-precision %.2g%%: %s\n", o->precision_pct,
			r->precision_reached ? "reached" :
			"NOT reached before --max-time");
	else if (r->out_of_time)
		fputs("stopped by --max-time before all runs\n", out);
	print_sanity(out, r);
}

static void json_number(FILE *out, double value)
{
	if (isfinite(value))
		fprintf(out, "%.10g", value);
	else
		fputs("null", out);
}

static void json_summary(FILE *out, const struct stats_summary *s)
{
	fprintf(out, "{\"n\":%zu,\"mean\":", s->n);
	json_number(out, s->mean);
	fputs(",\"stddev\":", out);
	json_number(out, s->stddev);
	fputs(",\"cov_pct\":", out);
	json_number(out, s->cov_pct);
	fputs(",\"min\":", out);
	json_number(out, s->min);
	fputs(",\"max\":", out);
	json_number(out, s->max);
	fputs(",\"median\":", out);
	json_number(out, s->median);
	fputs(",\"median_ci\":[", out);
	json_number(out, s->median_ci_lo);
	fputc(',', out);
	json_number(out, s->median_ci_hi);
	fputs("],\"median_ci_coverage\":", out);
	json_number(out, s->median_ci_coverage);
	fputc('}', out);
}

static void json_metric(FILE *out, const struct ab_metric_report *m,
			bool with_target)
{
	const struct stats_comparison *c = &m->cmp;
	char marker[32];

	fputs("{\"name\":", out);
	json_write_string(out, m->name);
	fprintf(out, ",\"higher_is_better\":%s,\"a\":",
		m->higher_is_better ? "true" : "false");
	json_summary(out, &c->a);
	fputs(",\"b\":", out);
	json_summary(out, &c->b);
	fputs(",\"diff_pct\":", out);
	json_number(out, c->diff_pct);
	fputs(",\"diff_ci_pct\":[", out);
	json_number(out, c->diff_ci_lo_pct);
	fputc(',', out);
	json_number(out, c->diff_ci_hi_pct);
	fputs("],\"welch_t\":", out);
	json_number(out, c->welch_t);
	fputs(",\"welch_df\":", out);
	json_number(out, c->welch_df);
	fputs(",\"welch_p\":", out);
	json_number(out, c->welch_p);
	fputs(",\"mwu_u\":", out);
	json_number(out, c->mwu_u);
	fputs(",\"mwu_p\":", out);
	json_number(out, c->mwu_p);
	stats_format_marker(marker, sizeof(marker), c->diff_pct, c->significant);
	fprintf(out, ",\"mwu_exact\":%s,\"significant\":%s,\"marker\":",
		c->mwu_exact ? "true" : "false", c->significant ? "true" : "false");
	json_write_string(out, marker);
	fputs(",\"verdict\":", out);
	json_write_string(out, ab_verdict(m));
	fputs(",\"noise_pct\":", out);
	json_number(out, c->noise_pct);
	fputs(",\"mde_pct\":", out);
	json_number(out, c->mde_pct);
	fputs(",\"runs_needed\":", out);
	if (with_target)
		fprintf(out, "%zu", m->runs_needed);
	else
		fputs("null", out);
	fputc('}', out);
}

static void json_run(FILE *out, const struct ab_run *run)
{
	fprintf(out, "{\"arm\":\"%s\",\"wall_s\":", ab_arm_name(run->arm));
	json_number(out, run->wall_s);
	fputs(",\"user_s\":", out);
	json_number(out, run->user_s);
	fputs(",\"sys_s\":", out);
	json_number(out, run->sys_s);
	fputs(",\"metric\":", out);
	json_number(out, run->metric);
	if (run->have_reclaim)
		fprintf(out, ",\"pgscan\":%llu,\"pgsteal\":%llu",
			(unsigned long long)run->pgscan,
			(unsigned long long)run->pgsteal);
	else
		fputs(",\"pgscan\":null,\"pgsteal\":null", out);
	if (run->have_skipped)
		fprintf(out, ",\"skipped\":%llu", (unsigned long long)run->skipped);
	else
		fputs(",\"skipped\":null", out);
	fprintf(out, ",\"knob_toggled\":%s,\"knob_write_s\":",
		run->knob_toggled ? "true" : "false");
	json_number(out, run->knob_write_s);
	fputc('}', out);
}

static void json_toggle(FILE *out, const char *name,
			const struct stats_summary *s)
{
	fprintf(out, "\"%s\":{\"n\":%zu,\"median_s\":", name, s->n);
	json_number(out, s->n ? s->median : NAN);
	fputs(",\"max_s\":", out);
	json_number(out, s->n ? s->max : NAN);
	fputc('}', out);
}

void ab_print_json(FILE *out, const struct ab_report *r)
{
	const struct ab_options *o = r->opts;

	fputs("{\"knob\":", out);
	json_write_string(out, r->knob_path);
	fputs(",\"a\":", out);
	json_write_string(out, o->value_a);
	fputs(",\"b\":", out);
	json_write_string(out, o->value_b);
	fprintf(out, ",\"order\":\"%s\",\"seed\":", o->order == AB_ORDER_ABBA ?
		"abba" : "random");
	if (o->order == AB_ORDER_RANDOM)
		fprintf(out, "%lu", r->seed);
	else
		fputs("null", out);
	fprintf(out, ",\"warmup\":%u,\"command\":[", o->warmup);
	for (size_t i = 0; o->cmd[i]; i++) {
		if (i)
			fputc(',', out);
		json_write_string(out, o->cmd[i]);
	}
	fputs("],\"metric_regex\":", out);
	if (o->metric_regex)
		json_write_string(out, o->metric_regex);
	else
		fputs("null", out);
	fputs(",\"elapsed_s\":", out);
	json_number(out, r->elapsed_s);
	fputs(",\"target_pct\":", out);
	json_number(out, o->target_pct > 0 ? o->target_pct : NAN);
	fputs(",\"precision_pct\":", out);
	json_number(out, o->precision_pct > 0 ? o->precision_pct : NAN);
	fprintf(out, ",\"precision_reached\":%s,\"out_of_time\":%s,\"metrics\":[",
		r->precision_reached ? "true" : "false",
		r->out_of_time ? "true" : "false");
	for (size_t i = 0; i < r->n_metrics; i++) {
		if (i)
			fputc(',', out);
		json_metric(out, &r->metrics[i], o->target_pct > 0);
	}
	fputs("],\"toggles\":{", out);
	json_toggle(out, "a_to_b", &r->toggle_to_b);
	fputc(',', out);
	json_toggle(out, "b_to_a", &r->toggle_to_a);
	fputs("},\"runs\":[", out);
	for (size_t i = 0; i < r->n_runs; i++) {
		if (i)
			fputc(',', out);
		json_run(out, &r->runs[i]);
	}
	fprintf(out, "],\"sanity\":{\"vmpressure_checks\":%s,\"runs_without_reclaim\":%u,"
		"\"b_runs_not_skipped\":%u,\"a_runs_skipped\":%u}}\n",
		ab_checks_vmpressure(o) ? "true" : "false", r->runs_without_reclaim,
		r->b_runs_not_skipped, r->a_runs_skipped);
}

static void csv_number(FILE *out, double value)
{
	fputc(',', out);
	if (isfinite(value))
		fprintf(out, "%.10g", value);
}

static void csv_summary(FILE *out, const struct stats_summary *s)
{
	fprintf(out, ",%zu", s->n);
	csv_number(out, s->mean);
	csv_number(out, s->stddev);
	csv_number(out, s->cov_pct);
	csv_number(out, s->min);
	csv_number(out, s->max);
	csv_number(out, s->median);
	csv_number(out, s->median_ci_lo);
	csv_number(out, s->median_ci_hi);
	csv_number(out, s->median_ci_coverage);
}

void ab_print_csv(FILE *out, const struct ab_report *r)
{
	static const char *const arm_columns =
		"n_%1$s,mean_%1$s,stddev_%1$s,cov_pct_%1$s,min_%1$s,max_%1$s,"
		"median_%1$s,median_ci_lo_%1$s,median_ci_hi_%1$s,"
		"median_ci_coverage_%1$s";

	fputs("metric,higher_is_better,", out);
	fprintf(out, arm_columns, "a");
	fputc(',', out);
	fprintf(out, arm_columns, "b");
	fputs(",diff_pct,diff_ci_lo_pct,diff_ci_hi_pct,welch_t,welch_df,welch_p,"
	      "mwu_u,mwu_p,mwu_exact,significant,marker,noise_pct,mde_pct,"
	      "runs_needed\n",
	      out);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ab_metric_report *m = &r->metrics[i];
		const struct stats_comparison *c = &m->cmp;
		char marker[32];

		/* names and markers have no commas or quotes (see --metric-name) */
		fprintf(out, "%s,%d", m->name, m->higher_is_better);
		csv_summary(out, &c->a);
		csv_summary(out, &c->b);
		csv_number(out, c->diff_pct);
		csv_number(out, c->diff_ci_lo_pct);
		csv_number(out, c->diff_ci_hi_pct);
		csv_number(out, c->welch_t);
		csv_number(out, c->welch_df);
		csv_number(out, c->welch_p);
		csv_number(out, c->mwu_u);
		csv_number(out, c->mwu_p);
		stats_format_marker(marker, sizeof(marker), c->diff_pct,
				    c->significant);
		fprintf(out, ",%d,%d,%s", c->mwu_exact, c->significant, marker);
		csv_number(out, c->noise_pct);
		csv_number(out, c->mde_pct);
		fputc(',', out);
		if (r->opts->target_pct > 0)
			fprintf(out, "%zu", m->runs_needed);
		fputc('\n', out);
	}
}
