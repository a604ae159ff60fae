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
	static const char *const keys[] = {
		"mean", "stddev", "cov_pct", "min", "max", "median"
	};
	const double figures[] = {
		s->mean, s->stddev, s->cov_pct, s->min, s->max, s->median
	};
	json_t *o = json_object();

	json_put(o, "n", json_count(s->n));
	json_put_reals(o, keys, figures, 6);
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

void ab_progress_json(json_t *doc, const struct ab_options *o,
		      bool precision_reached, bool out_of_time)
{
	json_put(doc, "target_pct", json_real_or_null(o->target_pct > 0 ?
						       o->target_pct : NAN));
	json_put(doc, "precision_pct", json_real_or_null(o->precision_pct > 0 ?
							  o->precision_pct : NAN));
	json_put(doc, "precision_reached", json_boolean(precision_reached));
	json_put(doc, "out_of_time", json_boolean(out_of_time));
}

json_t *ab_toggles_json(const struct stats_summary *to_b,
			const struct stats_summary *to_a)
{
	json_t *o = json_object();

	json_put(o, "a_to_b", ab_knob_changes_json(to_b));
	json_put(o, "b_to_a", ab_knob_changes_json(to_a));
	return o;
}

void ab_print_knob_change_line(FILE *out, const char *what,
			       const struct stats_summary *to_b,
			       const struct stats_summary *to_a)
{
	fprintf(out, "%s (knob write + read-back, or --switch): ", what);
	ab_print_knob_changes(out, "A->B", to_b);
	fputs("; ", out);
	ab_print_knob_changes(out, "B->A", to_a);
	fputc('\n', out);
}

json_t *ab_sanity_json(const struct ab_options *o, const char *unit,
		       size_t without_reclaim, size_t b_not_skipped,
		       size_t a_skipped)
{
	json_t *obj = json_object();
	char key[3][48];

	snprintf(key[0], sizeof(key[0]), "%s_without_reclaim", unit);
	snprintf(key[1], sizeof(key[1]), "b_%s_not_skipped", unit);
	snprintf(key[2], sizeof(key[2]), "a_%s_skipped", unit);
	json_put(obj, "vmpressure_checks", json_boolean(ab_checks_vmpressure(o)));
	json_put(obj, key[0], json_count(without_reclaim));
	json_put(obj, key[1], json_count(b_not_skipped));
	json_put(obj, key[2], json_count(a_skipped));
	return obj;
}

void ab_csv_numbers(FILE *out, const double *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ab_csv_number(out, values[i]);
}
