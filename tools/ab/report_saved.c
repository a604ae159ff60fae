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

static int runs_figures(const struct ab_saved *saved, const struct ab_report *r,
			struct saved_figures *f)
{
	const struct ab_metric_report *m = &r->metrics[0];

	for (int i = 0; i < 2; i++) {
		f->arm[i] = malloc((saved->n_runs + 1) * sizeof(double));
		if (!f->arm[i])
			return -ENOMEM;
	}
	for (size_t i = 0; i < saved->n_runs; i++) {
		enum ab_arm arm = saved->runs[i].arm;

		f->arm[arm][f->n[arm]++] = primary_value(&saved->opts, &saved->runs[i]);
	}
	f->effect_pct = m->paired ? m->blocks.diff_pct : m->cmp.diff_pct;
	f->effect_lo_pct = m->paired ? m->blocks.diff_ci_lo_pct : m->cmp.diff_ci_lo_pct;
	f->effect_hi_pct = m->paired ? m->blocks.diff_ci_hi_pct : m->cmp.diff_ci_hi_pct;
	return 0;
}

static int slices_figures(const struct ab_saved *saved, const struct il_report *r,
			  struct saved_figures *f)
{
	size_t room = saved->il.n / 2 + 1;

	for (int i = 0; i < 2; i++) {
		f->arm[i] = malloc(room * sizeof(double));
		if (!f->arm[i])
			return -ENOMEM;
	}
	f->n[0] = f->n[1] = il_kept_pairs(&saved->il, f->arm[0], f->arm[1]);
	f->effect_pct = r->cmp.diff_pct;
	f->effect_lo_pct = r->cmp.diff_ci_lo_pct;
	f->effect_hi_pct = r->cmp.diff_ci_hi_pct;
	return 0;
}

static int print_runs_as(FILE *out, const void *report, enum ab_format format)
{
	return ab_print_as(out, report, format);
}

static int print_slices_as(FILE *out, const void *report, enum ab_format format)
{
	return il_print_as(out, report, format);
}

/*
 * Prints saved's own report (print: with out non-NULL) and takes its
 * figures. 0 or the exit status, the reason printed.
 */
static int analyse(struct ab_saved *saved, FILE *out, struct saved_figures *f)
{
	int err;

	if (saved->interleaved) {
		struct il_report r;

		err = il_build_report(&saved->il, &saved->opts, &r);
		il_count_losses(&saved->il, &r.losses);
		if (!err && !r.compared)
			err = -ERANGE;
		if (!err) {
			r.knob_path = saved->knob_label;
			r.seed = saved->opts.seed;
			r.elapsed_s = saved->elapsed_s;
			err = out ? il_print_as(out, &r, r.opts->format) : 0;
			if (!err && out &&
			    (ab_write_exports(&saved->opts, print_slices_as, &r) ||
			     ab_write_benchstat(&saved->opts, saved->knob_label, NULL, 0,
						&saved->il)))
				return EXIT_CHECK_FAILED;
			if (!err)
				err = slices_figures(saved, &r, f);
		}
	} else {
		struct ab_report r;

		err = ab_build_report(&saved->opts, saved->runs, saved->n_runs, &r);
		if (err)
			err = -ERANGE;
		if (!err) {
			size_t tried[2] = { saved->runs_failed[0], saved->runs_failed[1] };

			for (size_t i = 0; i < saved->n_runs; i++)
				tried[saved->runs[i].arm]++;
			ab_losses_of_runs(&r.losses, tried, saved->runs_failed);
			r.knob_path = saved->knob_label;
			r.seed = saved->opts.seed;
			err = out ? ab_print_as(out, &r, r.opts->format) : 0;
			if (!err && out &&
			    (ab_write_exports(&saved->opts, print_runs_as, &r) ||
			     ab_write_benchstat(&saved->opts, saved->knob_label, saved->runs,
						saved->n_runs, NULL)))
				return EXIT_CHECK_FAILED;
			if (!err)
				err = runs_figures(saved, &r, f);
		}
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
	enum ab_format format;
	const char *baseline, *plot;
	const char **exports = o.exports;
	int rc, first;

	parsed = opt_parse(&parser, argc, argv, &first);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	format = o.format;
	baseline = o.baseline;
	plot = o.plot;
	if (first + 1 != argc) {
		vmpctl_error("ab report: one FILE, please (vmpctl ab report [--baseline FILE2] FILE)");
		return EXIT_USAGE;
	}
	if (baseline && format == AB_FORMAT_CSV) {
		vmpctl_error("ab report: --baseline prints a table or JSON, not CSV");
		return EXIT_USAGE;
	}
	rc = ab_saved_load(argv[first], &now);
	if (rc)
		return rc;
	now.opts.format = format;
	now.opts.export_json = exports[0];
	now.opts.export_csv = exports[1];
	now.opts.export_markdown = exports[2];
	now.opts.export_benchstat = exports[3];
	rc = analyse(&now, stdout, &cur);
	if (!rc && plot)
		rc = ab_plot_saved(&now, plot);
	if (!rc && baseline) {
		rc = ab_saved_load(baseline, &base);
		if (!rc) {
			rc = analyse(&base, NULL, &old);
			if (!rc)
				rc = compare_baseline(&now, &base, &cur, &old, format);
			ab_saved_free(&base);
		}
	}
	free_figures(&cur);
	free_figures(&old);
	ab_saved_free(&now);
	return rc;
}
