// SPDX-License-Identifier: GPL-2.0
#include "summary.h"

#include <math.h>

const char *const ab_summary_headers[] = {
	"metric", "arm", "n", "mean", "stddev", "CoV", "min", "max",
	"median", "median 95% CI", "cover", NULL
};

/* the column print_comparison() adds to ab_slices_headers with --target */
static const char *const target_headers[] = { "pairs for target", NULL };

const char *const *const ab_tables[] = {
	ab_summary_headers, ab_runs_headers, ab_blocks_headers, ab_slices_headers,
	target_headers, ab_saved_headers, NULL
};

int ab_summary_table_init(struct table *t)
{
	int err = table_init(t, ab_summary_headers, AB_SUMMARY_RIGHT_ALIGNED);

	/* min, max and the median interval's coverage: details */
	t->on_request = 1u << 6 | 1u << 7 | 1u << 10;
	return err;
}

void ab_cell(char *buf, size_t size, const char *fmt, double value)
{
	if (isfinite(value))
		snprintf(buf, size, fmt, value);
	else
		snprintf(buf, size, "-");
}

void ab_ci_cell(char *buf, size_t size, double lo_pct, double hi_pct)
{
	if (isfinite(lo_pct) && isfinite(hi_pct))
		snprintf(buf, size, "[%+.2f%%, %+.2f%%]", lo_pct, hi_pct);
	else
		snprintf(buf, size, "unbounded");
}

void ab_add_summary_row(struct table *t, const char *metric, const char *arm,
			const struct stats_summary *s, bool with_cov)
{
	char cells[11][48];
	const char *row[11];

	snprintf(cells[0], sizeof(cells[0]), "%s", metric);
	snprintf(cells[1], sizeof(cells[1]), "%s", arm);
	snprintf(cells[2], sizeof(cells[2]), "%zu", s->n);
	ab_cell(cells[3], sizeof(cells[3]), AB_FIGURE, s->mean);
	ab_cell(cells[4], sizeof(cells[4]), AB_FIGURE, s->stddev);
	ab_cell(cells[5], sizeof(cells[5]), "%.2f%%", with_cov ? s->cov_pct : NAN);
	ab_cell(cells[6], sizeof(cells[6]), AB_FIGURE, s->min);
	ab_cell(cells[7], sizeof(cells[7]), AB_FIGURE, s->max);
	ab_cell(cells[8], sizeof(cells[8]), AB_FIGURE, s->median);
	snprintf(cells[9], sizeof(cells[9]), "[" AB_FIGURE ", " AB_FIGURE "]",
		 s->median_ci_lo, s->median_ci_hi);
	snprintf(cells[10], sizeof(cells[10]), "%.1f%%",
		 100 * s->median_ci_coverage);
	for (int i = 0; i < 11; i++)
		row[i] = cells[i];
	table_add_row(t, row);
}

void ab_print_knob_changes(FILE *out, const char *direction,
			   const struct stats_summary *s)
{
	if (s->n)
		fprintf(out, "%s %zu, median %.3f ms, max %.3f ms", direction,
			s->n, 1e3 * s->median, 1e3 * s->max);
	else
		fprintf(out, "%s none", direction);
}

json_t *ab_summary_json(const struct stats_summary *s)
{
	json_t *o = json_object();

	json_put(o, "n", json_count(s->n));
	json_put(o, "mean", json_real_or_null(s->mean));
	json_put(o, "stddev", json_real_or_null(s->stddev));
	json_put(o, "cov_pct", json_real_or_null(s->cov_pct));
	json_put(o, "min", json_real_or_null(s->min));
	json_put(o, "max", json_real_or_null(s->max));
	json_put(o, "median", json_real_or_null(s->median));
	json_put(o, "median_ci", json_pair(s->median_ci_lo, s->median_ci_hi));
	json_put(o, "median_ci_coverage", json_real_or_null(s->median_ci_coverage));
	return o;
}

json_t *ab_knob_changes_json(const struct stats_summary *s)
{
	json_t *o = json_object();

	json_put(o, "n", json_count(s->n));
	json_put(o, "median_s", json_real_or_null(s->n ? s->median : NAN));
	json_put(o, "max_s", json_real_or_null(s->n ? s->max : NAN));
	return o;
}

void ab_csv_number(FILE *out, double value)
{
	fputc(',', out);
	if (isfinite(value))
		fprintf(out, "%.10g", value);
}

void ab_setup_json(json_t *doc, const struct ab_options *o, const char *knob,
		   unsigned long seed)
{
	json_t *command = json_array();

	json_put(doc, "knob", json_text(knob));
	json_put(doc, "a", json_text(o->value_a));
	json_put(doc, "b", json_text(o->value_b));
	json_put(doc, "order", json_text(o->order == AB_ORDER_ABBA ? "abba" : "random"));
	json_put(doc, "seed", o->order == AB_ORDER_RANDOM ? json_count(seed) :
		 json_null());
	json_put(doc, "warmup", json_count(o->warmup));
	for (size_t i = 0; o->cmd[i]; i++)
		json_append(command, json_text(o->cmd[i]));
	json_put(doc, "command", command);
}

const char *const ab_markdown_headers[AB_MARKDOWN_COLUMNS] = {
	"metric", "A mean", "B mean", "B vs A", "95% CI", "p", "verdict"
};

void ab_markdown_head(FILE *out, const struct ab_options *o, const char *knob)
{
	fprintf(out, "vmpctl ab: knob `%s`, A=`%s` B=`%s`, command `", knob,
		o->value_a, o->value_b);
	for (size_t i = 0; o->cmd[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", o->cmd[i]);
	fputs("`\n\n|", out);
	for (int i = 0; i < AB_MARKDOWN_COLUMNS; i++)
		fprintf(out, " %s |", ab_markdown_headers[i]);
	/* the numbers right-aligned, the words left */
	fputs("\n|:---|---:|---:|---:|:---|---:|:---|\n", out);
}

void ab_markdown_row(FILE *out, const char *metric, double mean_a, double mean_b,
		     double diff_pct, double lo_pct, double hi_pct, double p,
		     const char *verdict)
{
	char ci[64];

	ab_ci_cell(ci, sizeof(ci), lo_pct, hi_pct);
	fprintf(out, "| %s | %.6g | %.6g | %+.2f%% | %s | %.3g | %s |\n", metric,
		mean_a, mean_b, diff_pct, ci, p, verdict);
}
