// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab: every output of an A/B's result (result.h), whichever design
 * ran it; the design's own sections come from its ab_design_sections.
 */
#include "result.h"
#include "summary.h"
#include "output.h"

const struct ab_design_sections *ab_result_sections(const struct ab_result *r)
{
	return r->design == AB_DESIGN_RUNS ? &ab_runs_sections : &ab_slices_sections;
}

static void print_command(FILE *out, char **cmd)
{
	for (size_t i = 0; cmd[i]; i++)
		fprintf(out, "%s%s", i ? " " : "", cmd[i]);
}

/* Each arm's summary, and the pairs' differences where they are pairs. */
static void print_arms(FILE *out, const struct ab_result *r)
{
	struct table t;

	if (ab_summary_table_init(&t) == 0) {
		for (size_t i = 0; i < r->n_metrics; i++) {
			const struct ab_estimate *m = &r->metrics[i];

			ab_add_summary_row(&t, m->name, "A", m->a, true);
			ab_add_summary_row(&t, "", "B", m->b, true);
			if (m->b_minus_a)
				ab_add_summary_row(&t, "", "B-A", m->b_minus_a, false);
		}
		table_print(&t, out);
	}
	table_free(&t);
}

void ab_result_print_table(FILE *out, const struct ab_result *r)
{
	const struct ab_options *o = r->opts;
	const struct ab_design_sections *design = ab_result_sections(r);

	fprintf(out, "knob %s: A=%s B=%s", r->knob_path, o->value_a, o->value_b);
	if (design->table_setup)
		design->table_setup(out, r);
	fprintf(out, ", order %s", o->order == AB_ORDER_ABBA ? "abba" : "random");
	if (o->order == AB_ORDER_RANDOM)
		fprintf(out, " (seed %lu)", r->seed);
	fprintf(out, ", %u warmup, %.0f s\ncommand: ", o->warmup, r->elapsed_s);
	print_command(out, o->cmd);
	design->table_metric(out, r);
	fputs("\n\n", out);
	print_arms(out, r);
	fputc('\n', out);
	design->table(out, r);
}

/*
 * What both designs have, from the result: the set-up, how far the A/B
 * went, the losses by arm, the knob's changes and the sanity counts; the
 * design's own set-up and analysis after the set-up, its samples last.
 */
int ab_result_print_json(FILE *out, const struct ab_result *r)
{
	const struct ab_design_sections *design = ab_result_sections(r);
	const struct ab_sanity *sanity = &r->sanity;
	json_t *doc = json_object();

	json_put(doc, "mode", json_text(ab_mode_name(r->design == AB_DESIGN_SLICES)));
	ab_setup_json(doc, r->opts, r->knob_path, r->seed);
	json_put(doc, "elapsed_s", json_real_or_null(r->elapsed_s));
	ab_progress_json(doc, r->opts, r->precision_reached, r->out_of_time);
	design->json(doc, r);
	if (r->losses)
		json_put(doc, "losses", ab_losses_json(r->losses));
	json_put(doc, "toggles", ab_toggles_json(r->to_b, r->to_a));
	json_put(doc, "sanity", ab_sanity_json(r->opts, sanity->unit,
					       sanity->without_reclaim,
					       sanity->b_not_skipped,
					       sanity->a_skipped));
	design->json_samples(doc, r);
	return json_print_line(out, doc);
}

static void csv_summary(FILE *out, const struct stats_summary *s)
{
	const double figures[] = {
		s->mean, s->stddev, s->cov_pct, s->min, s->max, s->median,
		s->median_ci_lo, s->median_ci_hi, s->median_ci_coverage,
	};

	fprintf(out, ",%zu", s->n);
	ab_csv_numbers(out, figures, sizeof(figures) / sizeof(figures[0]));
}

/*
 * A header and a row per metric: what both designs have (each arm's
 * summary, then the design's headline and power), then the design's own.
 */
void ab_result_print_csv(FILE *out, const struct ab_result *r)
{
	static const char *const arm_columns =
		"n_%1$s,mean_%1$s,stddev_%1$s,cov_pct_%1$s,min_%1$s,max_%1$s,"
		"median_%1$s,median_ci_lo_%1$s,median_ci_hi_%1$s,"
		"median_ci_coverage_%1$s";
	const struct ab_design_sections *design = ab_result_sections(r);

	fputs("metric,higher_is_better,", out);
	fprintf(out, arm_columns, "a");
	fputc(',', out);
	fprintf(out, arm_columns, "b");
	fputs(",test,diff_pct,diff_ci_lo_pct,diff_ci_hi_pct,p,p_holm,significant,"
	      "marker,verdict,noise_pct,mde_pct,needed", out);
	fputs(design->csv_columns, out);
	fputc('\n', out);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ab_estimate *m = &r->metrics[i];
		const double headline[] = {
			m->diff_pct, m->ci_lo_pct, m->ci_hi_pct, m->p_test, m->p,
		};
		const double power[] = { m->noise_pct, m->mde_pct };
		char marker[32];

		/* names, markers and verdicts have no commas or quotes (see --metric-name) */
		fprintf(out, "%s,%d", m->name, m->higher_is_better);
		csv_summary(out, m->a);
		csv_summary(out, m->b);
		fprintf(out, ",%s", m->test);
		ab_csv_numbers(out, headline, sizeof(headline) / sizeof(headline[0]));
		stats_format_marker(marker, sizeof(marker), m->diff_pct, m->significant);
		fprintf(out, ",%d,%s,%s", m->significant, marker, m->verdict);
		ab_csv_numbers(out, power, sizeof(power) / sizeof(power[0]));
		fputc(',', out);
		if (r->opts->target_pct > 0)
			fprintf(out, "%zu", m->needed);
		design->csv_row(out, r, i);
		fputc('\n', out);
	}
}

/*
 * A line naming the knob, the arms and the command, then a Markdown table
 * with one row per metric: the design's figures, as the table's verdict.
 */
void ab_result_print_markdown(FILE *out, const struct ab_result *r)
{
	static const char *const headers[] = {
		"metric", "A mean", "B mean", "B vs A", "95% CI", "p", "verdict"
	};
	const struct ab_design_sections *design = ab_result_sections(r);

	fprintf(out, "vmpctl ab: knob `%s`, A=`%s` B=`%s`, command `", r->knob_path,
		r->opts->value_a, r->opts->value_b);
	print_command(out, r->opts->cmd);
	fputs("`\n\n|", out);
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		fprintf(out, " %s |", headers[i]);
	/* the numbers right-aligned, the words left */
	fputs("\n|:---|---:|---:|---:|:---|---:|:---|\n", out);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct ab_estimate *m = &r->metrics[i];
		char ci[64];

		ab_ci_cell(ci, sizeof(ci), m->ci_lo_pct, m->ci_hi_pct);
		fprintf(out, "| %s | %.6g | %.6g | %+.2f%% | %s | %.3g | %s |\n",
			m->name, m->a->mean, m->b->mean, m->diff_pct, ci, m->p,
			m->verdict);
	}
	if (design->markdown_note)
		design->markdown_note(out, r);
}

int ab_result_print_as(FILE *out, const struct ab_result *r,
		       enum ab_format format)
{
	switch (format) {
	case AB_FORMAT_TABLE:
		ab_result_print_table(out, r);
		return 0;
	case AB_FORMAT_JSON:
		return ab_result_print_json(out, r);
	case AB_FORMAT_CSV:
		ab_result_print_csv(out, r);
		return 0;
	case AB_FORMAT_MARKDOWN:
		ab_result_print_markdown(out, r);
		return 0;
	}
	return 0;
}

int ab_result_report(const struct ab_result *r, FILE *save)
{
	if (save) {
		ab_result_print_json(save, r);
		fflush(save);
	}
	return ab_result_print_as(stdout, r, r->opts->format);
}
