// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab report FILE [--baseline FILE2] [--plot OUT]: the report of a
 * --save file, whole runs or interleaved, computed again from its runs or
 * slices (a file cut short by a crash included); with a baseline, each
 * arm's primary metric then against the baseline's, and the effect of B
 * in both; with --plot, an interleaved A/B's picture (plot.h).
 */
#include "ab.h"
#include "export.h"
#include "load.h"
#include "plot.h"
#include "summary.h"
#include "commands.h"
#include "json.h"
#include "options.h"
#include "output.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void report_usage(FILE *out)
{
	fputs("Usage: vmpctl ab report [options] FILE\n"
	      "\n"
	      "The report of a file vmpctl ab --save wrote, computed again from its\n"
	      "runs or slices (also of a file cut short by a crash).\n"
	      "\n"
	      "  -B, --baseline FILE2  also compare each arm with FILE2's, and the\n"
	      "                        effect of B in both\n"
	      "  -j, --json            JSON lines instead of the table\n"
	      "      --csv             CSV, as vmpctl ab --csv\n"
	      "      --raw             tables unaligned, one space between cells\n"
	      "      --noheadings      tables without their header line\n"
	      "      --output COLUMNS  only these columns of the tables, in this\n"
	      "                        order (names: COLUMNS in vmpctl(1))\n"
	      "      --export-json FILE      the report also as JSON in FILE\n"
	      "      --export-csv FILE       ... as CSV\n"
	      "      --export-markdown FILE  ... as a Markdown table\n"
	      "      --export-benchstat FILE  every run (kept slice) in Go's benchmark\n"
	      "                        format, as vmpctl ab --export-benchstat\n"
	      "      --plot OUT        also draw an interleaved A/B to OUT.png or\n"
	      "                        OUT.svg: slices over time, the pairs'\n"
	      "                        differences, the effect by time since the flip\n"
	      "  -h, --help            this text\n", out);
}

/* Each arm's primary metric and the effect of B, as the report has them. */
struct saved_figures {
	double *arm[2];		/* values of A and B */
	size_t n[2];
	double effect_pct;	/* B vs A by the design's analysis */
	double effect_lo_pct;
	double effect_hi_pct;
};

static void free_figures(struct saved_figures *f)
{
	free(f->arm[0]);
	free(f->arm[1]);
}

/* The run's value of the report's primary metric. */
static double primary_value(const struct ab_options *o, const struct ab_run *run)
{
	return o->metric_regex ? run->metric : run->wall_s;
}

/*
 * Each arm's values of the primary metric: the runs, or the kept pairs'
 * slices; and the effect of B as the result's headline has it.
 */
static int take_figures(const struct ab_saved *saved, const struct ab_result *r,
			struct saved_figures *f)
{
	size_t room = saved->interleaved ? saved->il.n / 2 + 1 : saved->n_runs + 1;

	for (int i = 0; i < 2; i++) {
		f->arm[i] = malloc(room * sizeof(double));
		if (!f->arm[i])
			return -ENOMEM;
	}
	if (saved->interleaved)
		f->n[0] = f->n[1] = il_kept_pairs(&saved->il, f->arm[0], f->arm[1]);
	for (size_t i = 0; !saved->interleaved && i < saved->n_runs; i++) {
		enum ab_arm arm = saved->runs[i].arm;

		f->arm[arm][f->n[arm]++] = primary_value(&saved->opts, &saved->runs[i]);
	}
	f->effect_pct = r->metrics[0].diff_pct;
	f->effect_lo_pct = r->metrics[0].ci_lo_pct;
	f->effect_hi_pct = r->metrics[0].ci_hi_pct;
	return 0;
}

/*
 * Prints saved's own report (with out non-NULL) and its plot (plot
 * non-NULL), and takes its figures. 0 or the exit status, the reason
 * printed.
 */
static int analyse(struct ab_saved *saved, FILE *out, const char *plot,
		   struct saved_figures *f)
{
	struct il_report slices;
	struct ab_report runs;
	struct ab_result r;
	int err;

	if (saved->interleaved) {
		err = il_build_report(&saved->il, &saved->opts, &slices);
		if (!err)
			err = il_count_losses(&saved->il, &slices.losses);
		if (!err && !slices.compared)
			err = -ERANGE;
		slices.knob_path = saved->knob_label;
		slices.seed = saved->opts.seed;
		slices.elapsed_s = saved->elapsed_s;
		if (!err)
			ab_result_of_slices(&slices, &r);
	} else {
		size_t tried[2] = {
			saved->runs_failed[0] + saved->runs_timed_out[0],
			saved->runs_failed[1] + saved->runs_timed_out[1],
		};

		err = ab_build_report(&saved->opts, saved->runs, saved->n_runs,
				      &runs) ? -ERANGE : 0;
		for (size_t i = 0; i < saved->n_runs; i++)
			tried[saved->runs[i].arm]++;
		ab_losses_of_runs(&runs.losses, tried, saved->runs_failed,
				  saved->runs_timed_out);
		runs.knob_path = saved->knob_label;
		runs.seed = saved->opts.seed;
		if (!err)
			ab_result_of_runs(&runs, &r);
	}
	if (!err && out) {
		err = ab_result_print_as(out, &r, saved->opts.format);
		if (!err && ab_result_export(&r))
			return EXIT_CHECK_FAILED;
	}
	if (!err)
		err = take_figures(saved, &r, f);
	if (!err && plot) {
		int rc = ab_plot_saved(saved, &r, plot);

		if (rc)
			return rc;
	}
	if (err == -ERANGE) {
		vmpctl_error("ab report: %s: fewer than 2 %s per arm: nothing to compare",
			     saved->path, saved->interleaved ? "kept pairs" : "runs");
		return EXIT_CHECK_FAILED;
	}
	if (err) {
		vmpctl_error("ab report: %s: %s", saved->path, strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

/* "now better", "now worse" or "~" for an arm against its baseline. */
static const char *arm_verdict(const struct stats_comparison *c, bool higher_is_better)
{
	if (!c->significant)
		return "~";
	return (c->diff_pct > 0) == higher_is_better ? "now better" : "now worse";
}

const char *const ab_saved_headers[] = {
	"arm", "baseline mean", "n", "now mean", "n", "change",
	"95% CI", "p", "verdict", NULL
};

static void print_baseline_table(FILE *out, const struct ab_saved *now,
				 const char *baseline_path,
				 const struct stats_comparison cmp[2],
				 const struct saved_figures *base,
				 const struct saved_figures *cur)
{
	struct table t;
	char ci[2][48], base_ci[48], cur_ci[48];

	fprintf(out, "\nvs baseline %s (%s, %s is better):\n", baseline_path,
		now->opts.metric_regex || now->interleaved ? now->opts.metric_name : "wall(s)",
		now->opts.higher_is_better ? "higher" : "lower");
	if (table_init(&t, ab_saved_headers, 0xfeU))
		return;
	for (int i = 0; i < 2; i++) {
		char cells[7][48];
		const char *row[10];

		snprintf(cells[0], sizeof(cells[0]), AB_FIGURE, cmp[i].a.mean);
		snprintf(cells[1], sizeof(cells[1]), "%zu", cmp[i].a.n);
		snprintf(cells[2], sizeof(cells[2]), AB_FIGURE, cmp[i].b.mean);
		snprintf(cells[3], sizeof(cells[3]), "%zu", cmp[i].b.n);
		snprintf(cells[4], sizeof(cells[4]), "%+.2f%%", cmp[i].diff_pct);
		ab_ci_cell(ci[i], sizeof(ci[i]), cmp[i].diff_ci_lo_pct,
			   cmp[i].diff_ci_hi_pct);
		ab_cell(cells[5], sizeof(cells[5]), "%.3g", cmp[i].welch_p);
		row[0] = ab_arm_name(i);
		row[1] = cells[0];
		row[2] = cells[1];
		row[3] = cells[2];
		row[4] = cells[3];
		row[5] = cells[4];
		row[6] = ci[i];
		row[7] = cells[5];
		row[8] = arm_verdict(&cmp[i], now->opts.higher_is_better);
		row[9] = NULL;
		table_add_row(&t, row);
	}
	table_print(&t, out);
	table_free(&t);
	ab_ci_cell(base_ci, sizeof(base_ci), base->effect_lo_pct, base->effect_hi_pct);
	ab_ci_cell(cur_ci, sizeof(cur_ci), cur->effect_lo_pct, cur->effect_hi_pct);
	fprintf(out, "effect of B vs A: baseline %+.2f%% %s, now %+.2f%% %s\n",
		base->effect_pct, base_ci, cur->effect_pct, cur_ci);
}

static int print_baseline_json(FILE *out, const struct ab_saved *now,
			       const char *baseline_path,
			       const struct stats_comparison cmp[2],
			       const struct saved_figures *base,
			       const struct saved_figures *cur)
{
	json_t *doc = json_object(), *arms = json_array(), *effect = json_object();

	json_put(doc, "type", json_text("baseline"));
	json_put(doc, "baseline", json_text(baseline_path));
	json_put(doc, "metric", json_text(now->opts.metric_regex || now->interleaved ?
					  now->opts.metric_name : "wall(s)"));
	json_put(doc, "higher_is_better", json_boolean(now->opts.higher_is_better));
	for (int i = 0; i < 2; i++) {
		json_t *arm = json_object();

		json_put(arm, "arm", json_text(ab_arm_name(i)));
		json_put(arm, "baseline", ab_summary_json(&cmp[i].a));
		json_put(arm, "now", ab_summary_json(&cmp[i].b));
		json_put(arm, "diff_pct", json_real_or_null(cmp[i].diff_pct));
		json_put(arm, "diff_ci_pct", json_pair(cmp[i].diff_ci_lo_pct,
						       cmp[i].diff_ci_hi_pct));
		json_put(arm, "welch_p", json_real_or_null(cmp[i].welch_p));
		json_put(arm, "verdict", json_text(arm_verdict(&cmp[i],
							       now->opts.higher_is_better)));
		json_append(arms, arm);
	}
	json_put(doc, "arms", arms);
	json_put(effect, "baseline_pct", json_real_or_null(base->effect_pct));
	json_put(effect, "baseline_ci_pct", json_pair(base->effect_lo_pct,
						      base->effect_hi_pct));
	json_put(effect, "now_pct", json_real_or_null(cur->effect_pct));
	json_put(effect, "now_ci_pct", json_pair(cur->effect_lo_pct, cur->effect_hi_pct));
	json_put(doc, "effect", effect);
	return json_print_line(out, doc);
}

/* Each arm of now against the baseline's; 0 or the exit status. */
static int compare_baseline(const struct ab_saved *now, const struct ab_saved *base,
			    const struct saved_figures *cur,
			    const struct saved_figures *old, enum ab_format format)
{
	struct stats_comparison cmp[2];

	if (now->interleaved != base->interleaved ||
	    strcmp(now->opts.metric_name, base->opts.metric_name) ||
	    !now->opts.metric_regex != !base->opts.metric_regex) {
		vmpctl_error("ab report: --baseline %s: not the same kind of A/B (%s, metric %s) as %s (%s, metric %s)",
			     base->path, base->interleaved ? "interleaved" : "whole runs",
			     base->opts.metric_name, now->path,
			     now->interleaved ? "interleaved" : "whole runs",
			     now->opts.metric_name);
		return EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		if (stats_compare(old->arm[i], old->n[i], cur->arm[i], cur->n[i],
				  &cmp[i])) {
			vmpctl_error("ab report: arm %s: fewer than 2 values in a file",
				     ab_arm_name(i));
			return EXIT_CHECK_FAILED;
		}
	}
	if (format == AB_FORMAT_TABLE) {
		print_baseline_table(stdout, now, base->path, cmp, old, cur);
		return 0;
	}
	if (print_baseline_json(stdout, now, base->path, cmp, old, cur)) {
		vmpctl_error("ab report: writing the JSON comparison: %s",
			     strerror(EIO));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

struct report_options {
	enum ab_format format;
	const char *baseline, *plot;
	const char *exports[4];	/* json, csv, markdown, benchstat */
};

#define REPORT_FIELD(member) offsetof(struct report_options, member)

int cmd_ab_report(int argc, char **argv)
{
	static const struct opt table[] = {
		{ "baseline", 'B', OPT_TEXT, REPORT_FIELD(baseline), 0, 0, false, NULL },
		{ "json", 'j', OPT_CALL, 0, 0, 0, false, ab_opt_format_json },
		{ "csv", 0, OPT_CALL, 0, 0, 0, false, ab_opt_format_csv },
		{ "plot", 0, OPT_TEXT, REPORT_FIELD(plot), 0, 0, false, NULL },
		{ "export-json", 0, OPT_TEXT, REPORT_FIELD(exports[0]), 0, 0, false, NULL },
		{ "export-csv", 0, OPT_TEXT, REPORT_FIELD(exports[1]), 0, 0, false, NULL },
		{ "export-markdown", 0, OPT_TEXT, REPORT_FIELD(exports[2]), 0, 0, false, NULL },
		{ "export-benchstat", 0, OPT_TEXT, REPORT_FIELD(exports[3]), 0, 0, false, NULL },
		OPT_TABLE_FORMAT,
	};
	struct report_options o = { .format = AB_FORMAT_TABLE };
	const struct opt_parser parser = {
		.cmd = "ab report", .table = table, .n_options = OPT_COUNT(table),
		.fields = &o, .ctx = &o.format, .tables = ab_tables,
		.usage = report_usage, .operands = OPT_OPERANDS,
	};
	struct saved_figures cur = { 0 }, old = { 0 };
	struct ab_saved now, base;
	enum parse_result parsed;
	int rc, first;

	parsed = opt_parse(&parser, argc, argv, &first);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	if (first + 1 != argc) {
		vmpctl_error("ab report: one FILE, please (vmpctl ab report [--baseline FILE2] FILE)");
		return EXIT_USAGE;
	}
	if (o.baseline && o.format == AB_FORMAT_CSV) {
		vmpctl_error("ab report: --baseline prints a table or JSON, not CSV");
		return EXIT_USAGE;
	}
	rc = ab_saved_load(argv[first], &now);
	if (rc)
		return rc;
	now.opts.format = o.format;
	now.opts.export_json = o.exports[0];
	now.opts.export_csv = o.exports[1];
	now.opts.export_markdown = o.exports[2];
	now.opts.export_benchstat = o.exports[3];
	rc = analyse(&now, stdout, o.plot, &cur);
	if (!rc && o.baseline) {
		rc = ab_saved_load(o.baseline, &base);
		if (!rc) {
			rc = analyse(&base, NULL, NULL, &old);
			if (!rc)
				rc = compare_baseline(&now, &base, &cur, &old, o.format);
			ab_saved_free(&base);
		}
	}
	free_figures(&cur);
	free_figures(&old);
	ab_saved_free(&now);
	return rc;
}
