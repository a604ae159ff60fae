// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab --interleave: the interleaved design's own sections of each output (result.h). */
#include "result.h"
#include "slices.h"
#include "summary.h"
#include "json.h"
#include "latency.h"
#include "output.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* with room for the target's column ("pairs for 1%") */
const char *const ab_slices_headers[] = {
	"metric", "B vs A", "95% CI", "p", "t p", "W p", "verdict",
	"MDE", NULL, NULL
};

static void print_comparison(FILE *out, const struct il_report *r)
{
	const struct stats_paired *c = &r->cmp;
	const char *headers[10], *row[9];
	char cells[9][64], target_header[48];
	struct table t;
	size_t columns = 8;

	memcpy(headers, ab_slices_headers, sizeof(ab_slices_headers));
	if (r->opts->target_pct > 0) {
		snprintf(target_header, sizeof(target_header), "pairs for %.2g%%",
			 r->opts->target_pct);
		headers[columns++] = target_header;
	}
	snprintf(cells[0], sizeof(cells[0]), "%s", r->opts->metric_name);
	stats_format_marker(cells[1], sizeof(cells[1]), r->test.mean,
			    il_significant(r));
	ab_ci_cell(cells[2], sizeof(cells[2]), r->test.ci_lo, r->test.ci_hi);
	snprintf(cells[3], sizeof(cells[3]), "%.3g%s", r->test.p,
		 r->test.exact ? "" : "~");
	snprintf(cells[4], sizeof(cells[4]), "%.3g", c->p);
	snprintf(cells[5], sizeof(cells[5]), "%.3g%s", c->wilcoxon_p,
		 c->wilcoxon_exact ? "" : "~");
	snprintf(cells[6], sizeof(cells[6]), "%s", il_verdict(r));
	if (isfinite(c->mde_pct))
		snprintf(cells[7], sizeof(cells[7]), "%.2f%%", c->mde_pct);
	else
		snprintf(cells[7], sizeof(cells[7]), "-");
	if (r->pairs_needed >= STATS_RUNS_NEEDED_MAX)
		snprintf(cells[8], sizeof(cells[8]), ">%d", STATS_RUNS_NEEDED_MAX);
	else
		snprintf(cells[8], sizeof(cells[8]), "%zu", r->pairs_needed);
	for (size_t i = 0; i < columns; i++)
		row[i] = cells[i];
	if (table_init(&t, headers, 0x1ba) == 0) {
		/* the paired t-test's and Wilcoxon's p: for reference */
		t.on_request = 1u << 4 | 1u << 5;
		table_add_row(&t, row);
		table_print(&t, out);
	}
	table_free(&t);
}

static void print_balance(FILE *out, const struct il_report *r)
{
	const struct il_balance *b = &r->balance;

	fprintf(out, "balance: kept pairs AB:BA %zu:%zu (p %.3g); slices right after a flip that changed the knob: A %zu, B %zu (p %.3g); flips over --max-flip: to A %zu of %zu, to B %zu of %zu\n",
		b->pairs_ab, b->pairs_ba, b->order_p, b->a_after_flip,
		b->b_after_flip, b->flip_p, b->slow_to_a, b->flips_to_a,
		b->slow_to_b, b->flips_to_b);
	if (!b->balanced)
		fprintf(out, "NO VERDICT: the kept pairs are unbalanced: which pairs were dropped depended on the arm (flips toward one arm slower than --max-flip %.3g ms), so B vs A would carry the flips' own effect; raise --max-flip above both directions' flip times\n",
			1e3 * r->il->max_flip_s);
	if (r->compared)
		fprintf(out, "order-adjusted (a steady drift cancels however uneven AB:BA): B vs A %+.2f%% [%+.2f%%, %+.2f%%], p %.3g\n",
			stats_log_pct(r->adjusted.mean),
			stats_log_pct(r->adjusted.ci_lo),
			stats_log_pct(r->adjusted.ci_hi), r->adjusted.p);
	if (r->too_few_pairs)
		fprintf(out, "NO VERDICT: %zu pairs: the signed-rank test's p cannot go below 0.05 with fewer than %d\n",
			r->test.n, STATS_SIGNED_RANK_MIN_PAIRS);
}

static void print_carry_over(FILE *out, const struct il_report *r)
{
	const struct il_carry_over *c = &r->carry;
	double slice_s = r->opts->interleave_s;

	if (!c->checked)
		fputs("carry-over: halves not checked (no pair with report intervals in both halves of its slices)\n", out);
	else
		fprintf(out, "carry-over: B vs A %+.2f%% in the first half of slices, %+.2f%% in the second (%zu pairs, sign-flip p %.3g)\n",
			c->first_pct, c->second_pct, c->pairs, c->test.p);
	if (c->long_checked)
		fprintf(out, "carry-over, long slices: B vs A %+.2f%% in %zu pairs of %g s, %+.2f%% in %zu pairs of %g s (sign-flip p %.3g)\n",
			c->short_pct, c->short_pairs, slice_s, c->long_pct,
			c->long_pairs, IL_LONG_FACTOR * slice_s, c->long_p);
	if (c->found)
		fprintf(out, "CARRY-OVER (no verdict): the effect changes with the time since a flip, so the arm before a flip still acts after it; use longer slices (--interleave %g) or discard the start of each (--settle %g)\n",
			(c->long_checked && c->long_p < STATS_ALPHA / 2 ? IL_LONG_FACTOR : 2) * slice_s,
			r->il->settle_s + slice_s / 2);
	else if (!c->long_checked)
		fputs("(an effect that lingers longer than a slice looks alike in both halves: --long-every mixes in longer slices to compare)\n", out);
}

static void table_setup(FILE *out, const struct ab_result *res)
{
	const struct ab_options *o = res->opts;

	fprintf(out, "%s, interleaved: slices of %g s in pairs",
		strcmp(o->value_a, o->value_b) ? "" : " (A/A: no effect by construction)",
		o->interleave_s);
}

static void table_metric(FILE *out, const struct ab_result *res)
{
	const struct ab_options *o = res->opts;
	char source[256];

	fprintf(out, "\nmetric: %s = count / interval_s of %s, %s is better",
		o->metric_name, ab_source_describe(&o->source, source, sizeof(source)),
		o->higher_is_better ? "higher" : "lower");
}

static void table(FILE *out, const struct ab_result *res)
{
	const struct il_report *r = res->slices;
	const struct ab_options *o = r->opts;
	const struct interleave *il = r->il;
	const struct il_pair_counts *p = &r->pairs;

	print_comparison(out, r);
	fputs("\nB vs A: the Hodges-Lehmann estimate of the pairs' log(B / A), as a percent;\n"
	      "p: the signed-rank test of those log ratios (~: normal approximation),\n"
	      "*marked* below 0.05; 95% CI: that test inverted;\n"
	      "t p: paired t-test, W p: Wilcoxon signed-rank (~: normal approximation),\n"
	      "both for reference, with --output; MDE: the smallest difference these pairs\n"
	      "detect with power 0.8.\n", out);
	fprintf(out, "pairs: %zu kept, %zu dropped (slices with a flip over --max-flip %.3g s: %zu; without a whole report interval: %zu)\n",
		p->kept, p->dropped, il->max_flip_s, p->slices_flip_too_long,
		p->slices_no_interval);
	if (r->latency)
		ab_latency_print_table(out, r->latency);
	print_balance(out, r);
	if (r->losses.checked)
		ab_losses_print(out, &r->losses);
	if (il_stalls_unresolved(r))
		fprintf(out, "NO VERDICT: %s stalls more (Fisher p %.3g) but the rates do not call it worse: too few pairs to tell a stalling arm from stalls that fell on it by chance; run more pairs\n",
			ab_losses_stall_lean(&r->losses) ? "B" : "A", r->losses.stall_p);
	print_carry_over(out, r);
	fprintf(out, "noise: a pair's difference %.3g%% of mean A, one slice %.3g%% (A) and %.3g%% (B); A and B within a pair correlate r = %.3g\n",
		r->cmp.noise_pct, r->cmp.a.cov_pct, r->cmp.b.cov_pct,
		r->cmp.correlation);
	fprintf(out, "time: %.1f s, %.1f s of it in kept pairs' report intervals (%.0f%%); %zu slices final, %zu unfinished\n",
		r->elapsed_s, r->kept_time_s,
		r->elapsed_s > 0 ? 100 * r->kept_time_s / r->elapsed_s : 0.0,
		r->slices_final, r->slices_unfinished);
	fprintf(out, "report intervals: %zu read, %zu straddling a flip (%s), %zu stalls (counted, split by overlap across a flip), %zu within --settle %g s of a flip (%s), %zu before the first slice, %zu out of order; %zu rate lines broke the contract\n",
		il->intervals_read, il->intervals_straddling,
		il->split ? "split by overlap" : "dropped, but stalls",
		il->intervals_stalled,
		il->intervals_settling, il->settle_s,
		il->split ? "their part in it dropped" : "dropped",
		il->intervals_before_first, il->intervals_out_of_order,
		r->lines_invalid);
	/* a file of an older vmpctl has no such figures */
	if (isfinite(il->straddling_lost_s[AB_ARM_A]))
		fprintf(out, "time lost to dropped intervals: straddling A %.3g s, B %.3g s; within --settle A %.3g s, B %.3g s\n",
			il->straddling_lost_s[AB_ARM_A], il->straddling_lost_s[AB_ARM_B],
			il->settling_lost_s[AB_ARM_A], il->settling_lost_s[AB_ARM_B]);
	ab_print_knob_change_line(out, "flips", &r->flip_to_b, &r->flip_to_a);
	if (o->precision_pct > 0)
		fprintf(out, "until-precision %.2g%%: %s\n", o->precision_pct,
			r->precision_reached ? "reached" :
			"NOT reached before --max-time or the command's end");
	if (r->out_of_time)
		fputs("stopped by --max-time before all pairs\n", out);
	else if (r->command_ended)
		fputs("the command ended before all pairs\n", out);
	if (!ab_checks_vmpressure(o)) {
		fputs("sanity: generic knob, no vmpressure checks\n", out);
		return;
	}
	fprintf(out, "sanity: %zu slices in kept pairs, %zu without reclaim, %zu of arm B did not short-circuit, %zu of arm A did\n",
		2 * p->kept, r->slices_without_reclaim,
		r->b_slices_not_skipped, r->a_slices_skipped);
	if (r->slices_without_reclaim || r->b_slices_not_skipped ||
	    r->a_slices_skipped)
		fputs("WARNING: the slices above are not a valid vmpressure A/B\n", out);
}

/* When the first flip began (CLOCK_MONOTONIC): the slices' times count from it. */
static double zero_t(const struct interleave *il)
{
	return il->n ? il->slices[0].flip_started : 0;
}

static json_t *json_metric(const struct il_report *r)
{
	static const char *const test_keys[] = {
		"paired_t", "df", "paired_t_p", "wilcoxon_w", "wilcoxon_p"
	};
	const struct stats_paired *c = &r->cmp;
	const double tests[] = { c->t, c->df, c->p, c->wilcoxon_w, c->wilcoxon_p };
	json_t *o = json_object();
	char marker[32];

	json_put(o, "name", json_text(r->opts->metric_name));
	json_put(o, "higher_is_better", json_boolean(r->opts->higher_is_better));
	json_put(o, "a", ab_summary_json(&c->a));
	json_put(o, "b", ab_summary_json(&c->b));
	json_put(o, "b_minus_a", ab_summary_json(&c->d));
	json_put(o, "diff_pct", json_real_or_null(r->test.mean));
	json_put(o, "diff_ci_pct", json_pair(r->test.ci_lo, r->test.ci_hi));
	json_put(o, "signed_rank_p", json_real_or_null(r->test.p));
	json_put(o, "signed_rank_exact", json_boolean(r->test.exact));
	json_put(o, "fieller_ci_pct", json_pair(c->diff_ci_lo_pct, c->diff_ci_hi_pct));
	json_put(o, "ratio", json_real_or_null(c->ratio));
	json_put(o, "ratio_ci", json_pair(c->ratio_ci_lo, c->ratio_ci_hi));
	json_put_reals(o, test_keys, tests, sizeof(tests) / sizeof(tests[0]));
	json_put(o, "wilcoxon_exact", json_boolean(c->wilcoxon_exact));
	json_put(o, "significant", json_boolean(il_significant(r)));
	stats_format_marker(marker, sizeof(marker), r->test.mean, il_significant(r));
	json_put(o, "marker", json_text(marker));
	json_put(o, "verdict", json_text(il_verdict(r)));
	json_put(o, "withheld", il_withheld_json(r));
	json_put(o, "order_adjusted_pct", json_real_or_null(stats_log_pct(r->adjusted.mean)));
	json_put(o, "order_adjusted_ci_pct", json_pair(stats_log_pct(r->adjusted.ci_lo),
						       stats_log_pct(r->adjusted.ci_hi)));
	json_put(o, "order_adjusted_p", json_real_or_null(r->adjusted.p));
	json_put(o, "correlation", json_real_or_null(c->correlation));
	json_put(o, "noise_pct", json_real_or_null(c->noise_pct));
	json_put(o, "mde_pct", json_real_or_null(c->mde_pct));
	json_put(o, "pairs_needed", r->opts->target_pct > 0 ?
		 json_count(r->pairs_needed) : json_null());
	return o;
}

/* The carry-over checks, their figures null where not checked. */
static json_t *json_carry_over(const struct il_carry_over *c)
{
	static const char *const half_keys[] = {
		"first_half_pct", "second_half_pct", "p"
	};
	static const char *const long_keys[] = { "short_pct", "long_pct", "long_p" };
	const double halves[] = {
		c->checked ? c->first_pct : NAN, c->checked ? c->second_pct : NAN,
		c->checked ? c->test.p : NAN,
	};
	const double lengths[] = {
		c->long_checked ? c->short_pct : NAN,
		c->long_checked ? c->long_pct : NAN,
		c->long_checked ? c->long_p : NAN,
	};
	json_t *obj = json_object();

	json_put(obj, "checked", json_boolean(c->checked));
	json_put(obj, "pairs", json_count(c->pairs));
	json_put_reals(obj, half_keys, halves, 3);
	json_put(obj, "long_checked", json_boolean(c->long_checked));
	json_put(obj, "short_pairs", json_count(c->short_pairs));
	json_put(obj, "long_pairs", json_count(c->long_pairs));
	json_put_reals(obj, long_keys, lengths, 3);
	json_put(obj, "found", json_boolean(c->found));
	return obj;
}

static void json(json_t *doc, const struct ab_result *res)
{
	const struct il_report *r = res->slices;
	const struct ab_options *o = r->opts;
	const struct interleave *il = r->il;
	json_t *obj;

	json_put(doc, "slice_s", json_real_or_null(o->interleave_s));
	json_put(doc, "max_flip_s", json_real_or_null(il->max_flip_s));
	json_put(doc, "kept_time_s", json_real_or_null(r->kept_time_s));
	/* the slices' start_s and end_s count from here: CLOCK_MONOTONIC */
	json_put(doc, "zero_t", json_real_or_null(zero_t(il)));
	json_put(doc, "command_ended", json_boolean(r->command_ended));
	json_put(doc, "settle_s", json_real_or_null(il->settle_s));
	if (r->latency)
		json_put(doc, "latency", ab_latency_json(r->latency));
	if (r->sequential.seq)
		json_put(doc, "sequential", ab_sequential_json(o, &r->sequential));
	json_put(doc, "ci_method", json_text("signed-rank-inverted"));
	json_put(doc, "test", json_text("signed-rank"));
	json_put(doc, "metric", json_metric(r));
	obj = json_object();
	json_put(obj, "pairs_ab", json_count(r->balance.pairs_ab));
	json_put(obj, "pairs_ba", json_count(r->balance.pairs_ba));
	json_put(obj, "order_p", json_real_or_null(r->balance.order_p));
	json_put(obj, "a_after_flip", json_count(r->balance.a_after_flip));
	json_put(obj, "b_after_flip", json_count(r->balance.b_after_flip));
	json_put(obj, "flip_p", json_real_or_null(r->balance.flip_p));
	json_put(obj, "flips_to_a", json_count(r->balance.flips_to_a));
	json_put(obj, "slow_to_a", json_count(r->balance.slow_to_a));
	json_put(obj, "flips_to_b", json_count(r->balance.flips_to_b));
	json_put(obj, "slow_to_b", json_count(r->balance.slow_to_b));
	json_put(obj, "balanced", json_boolean(r->balance.balanced));
	json_put(doc, "balance", obj);
	json_put(doc, "carry_over", json_carry_over(&r->carry));
	obj = json_object();
	json_put(obj, "kept", json_count(r->pairs.kept));
	json_put(obj, "dropped", json_count(r->pairs.dropped));
	json_put(obj, "slices_flip_too_long", json_count(r->pairs.slices_flip_too_long));
	json_put(obj, "slices_no_interval", json_count(r->pairs.slices_no_interval));
	json_put(doc, "pairs", obj);
	obj = il_intervals_json(il);
	json_put(obj, "invalid_lines", json_count(r->lines_invalid));
	json_put(doc, "intervals", obj);
}

static void json_samples(json_t *doc, const struct ab_result *res)
{
	const struct interleave *il = res->slices->il;
	json_t *list = json_array();

	for (size_t k = 0; k < il->n; k++)
		json_append(list, il_slice_json(il, k, zero_t(il)));
	json_put(doc, "slices", list);
}

/* A kept slice's rate; the dropped ones are no sample. */
static bool next_sample(const struct ab_result *res, size_t *pos,
			struct ab_benchstat_sample *s)
{
	const struct interleave *il = res->slices->il;

	while (*pos < il->n && il_slice_fate_paired(il, *pos) != IL_KEPT)
		(*pos)++;
	if (*pos >= il->n)
		return false;
	*s = (struct ab_benchstat_sample){
		.arm = il->slices[*pos].arm,
		.n = 1,
		.values = { il_slice_rate(&il->slices[*pos]) },
		.units = { res->opts->metric_name },
	};
	(*pos)++;
	return true;
}

/* The pairs' own tests, then the drops, times, balance and carry-over. */
static void csv_row(FILE *out, const struct ab_result *res, size_t i)
{
	const struct il_report *r = res->slices;
	const struct stats_paired *c = &r->cmp;
	const double pairs[] = {
		c->d.mean, c->d.stddev, c->t, c->df, c->p, c->wilcoxon_w, c->wilcoxon_p,
	};
	const double times[] = {
		r->elapsed_s, r->kept_time_s,
		r->flip_to_b.n ? r->flip_to_b.median : NAN,
		r->flip_to_a.n ? r->flip_to_a.median : NAN,
	};

	(void)i;	/* one metric */
	fprintf(out, ",%zu", c->n);
	ab_csv_numbers(out, pairs, sizeof(pairs) / sizeof(pairs[0]));
	fprintf(out, ",%d", c->wilcoxon_exact);
	ab_csv_number(out, c->correlation);
	fprintf(out, ",%zu,%zu", r->pairs.dropped, r->il->intervals_straddling);
	ab_csv_numbers(out, times, sizeof(times) / sizeof(times[0]));
	fprintf(out, ",%zu,%zu,%d", r->balance.pairs_ab, r->balance.pairs_ba,
		r->balance.balanced);
	ab_csv_number(out, r->carry.checked ? r->carry.test.p : NAN);
	fprintf(out, ",%d", r->carry.found);
}

static void markdown_note(FILE *out, const struct ab_result *res)
{
	const struct il_report *r = res->slices;

	fprintf(out, "\n%zu pairs kept (AB:BA %zu:%zu, %s), carry-over %s; p: the signed-rank test\n",
		r->pairs.kept, r->balance.pairs_ab, r->balance.pairs_ba,
		r->balance.balanced ? "balanced" : "UNBALANCED",
		!r->carry.checked ? "not checked" : r->carry.found ? "FOUND" : "not found");
}

const struct ab_design_sections ab_slices_sections = {
	.table_setup = table_setup,
	.table_metric = table_metric,
	.table = table,
	.json = json,
	.json_samples = json_samples,
	.next_sample = next_sample,
	.csv_columns = ",pairs,mean_b_minus_a,stddev_b_minus_a,paired_t,df,paired_t_p,"
			"wilcoxon_w,wilcoxon_p,wilcoxon_exact,correlation,pairs_dropped,"
			"intervals_straddling,elapsed_s,kept_time_s,flip_a_to_b_median_s,"
			"flip_b_to_a_median_s,pairs_ab,pairs_ba,balanced,carry_over_p,"
			"carry_over",
	.csv_row = csv_row,
	.markdown_note = markdown_note,
};
