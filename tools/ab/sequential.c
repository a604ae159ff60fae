// SPDX-License-Identifier: GPL-2.0
/* ab --sequential in the report: see sequential.h. */
#include <string.h>

#include "sequential.h"

/* The rule that ended the run, as the JSON names it. */
static const char *ended_by(const struct ab_sequential_end *end)
{
	if (end->stopped && end->seq->verdict == STATS_SEQ_EFFECT)
		return "effect";
	if (end->stopped && end->seq->verdict == STATS_SEQ_WITHIN_TARGET)
		return "within_target";
	if (end->out_of_time)
		return "max_time";
	return end->command_ended ? "command_end" : "error";
}

static const char *const adjust_names[STATS_SEQ_ADJUSTMENTS] = {
	[STATS_SEQ_RAW] = "raw",
	[STATS_SEQ_ORDER] = "order",
	[STATS_SEQ_COVARIATE] = "covariate",
};

void ab_sequential_print(FILE *out, const struct ab_options *o,
			 const struct ab_sequential_end *end)
{
	const struct stats_seq *q = end->seq;
	const char *by = ended_by(end);
	double diff, lo, hi, p;
	char why[64];

	if (!strcmp(by, "effect"))
		snprintf(why, sizeof(why), "an effect");
	else if (!strcmp(by, "within_target"))
		snprintf(why, sizeof(why), "no difference larger than %g%%",
			 o->target_pct);
	else if (!strcmp(by, "max_time"))
		snprintf(why, sizeof(why), "the time limit (--max-time)");
	else if (!strcmp(by, "command_end"))
		snprintf(why, sizeof(why), "the command's end");
	else
		snprintf(why, sizeof(why), "an error or a signal");
	if (!q->tests[q->reported].n) {
		fprintf(out, "sequential: ended by %s after %zu pairs, before any was tested (the first %d tune the test)\n",
			why, q->pairs, STATS_SEQ_TUNING_PAIRS);
		return;
	}
	stats_seq_result(q, &diff, &lo, &hi, &p);
	fprintf(out, "sequential: ended by %s after %zu pairs: B %+.2f%%, always-valid 95%% CI [%+.2f%%, %+.2f%%], p %.3g; %s took %.0f%% of the variance\n",
		why, q->pairs, diff, lo, hi, p,
		q->reported == STATS_SEQ_COVARIATE ? "order, drift and the covariate" :
		"order and drift", 100 * stats_seq_variance_reduction(q));
	if (!q->have_covariate)
		return;
	stats_seq_balance_result(q, &diff, &lo, &hi, &p);
	fprintf(out, "covariate %s: B vs A %+.2f%%, always-valid 95%% CI [%+.2f%%, %+.2f%%]; %s",
		o->covariate_spec, diff, lo, hi, q->covariate_refused ?
		"refused: the knob changes it, so the answer is adjusted for order and drift only\n" :
		"balanced so far, used");
	if (!q->covariate_refused)
		fprintf(out, " (order and drift alone took %.0f%%)\n",
			100 * stats_seq_test_variance_reduction(q, STATS_SEQ_ORDER));
}

/* One adjustment's test: estimate, interval, p, variance removed. */
static json_t *test_json(const struct stats_seq *q, enum stats_seq_adjust a)
{
	json_t *o = json_object();
	double diff, lo, hi, p;

	stats_seq_test_result(q, a, &diff, &lo, &hi, &p);
	json_put(o, "diff_pct", json_real_or_null(diff));
	json_put(o, "ci_pct", json_pair(lo, hi));
	json_put(o, "p_always", json_real_or_null(p));
	json_put(o, "variance_reduction_pct",
		 json_real_or_null(100 * stats_seq_test_variance_reduction(q, a)));
	return o;
}

json_t *ab_sequential_json(const struct ab_options *o,
			   const struct ab_sequential_end *end)
{
	const struct stats_seq *q = end->seq;
	json_t *doc = json_object(), *tests = json_object(), *cov;
	double diff, lo, hi, p;

	json_put(doc, "ended_by", json_text(ended_by(end)));
	json_put(doc, "pairs", json_count(q->pairs));
	json_put(doc, "tested_pairs", json_count(q->tests[q->reported].n));
	json_put(doc, "tuning_pairs", json_count(STATS_SEQ_TUNING_PAIRS));
	json_put(doc, "alpha", json_real(q->alpha));
	json_put(doc, "adjusted_for", json_text(adjust_names[q->reported]));
	stats_seq_result(q, &diff, &lo, &hi, &p);
	json_put(doc, "diff_pct", json_real_or_null(diff));
	json_put(doc, "always_valid_ci_pct", json_pair(lo, hi));
	json_put(doc, "p_always", json_real_or_null(p));
	json_put(doc, "variance_reduction_pct",
		 json_real_or_null(100 * stats_seq_variance_reduction(q)));
	for (int a = 0; a < STATS_SEQ_ADJUSTMENTS; a++)
		json_put(tests, adjust_names[a],
			 a != STATS_SEQ_COVARIATE || q->have_covariate ?
			 test_json(q, a) : json_null());
	json_put(doc, "tests", tests);
	if (!q->have_covariate) {
		json_put(doc, "covariate", json_null());
		return doc;
	}
	cov = json_object();
	stats_seq_balance_result(q, &diff, &lo, &hi, &p);
	json_put(cov, "counter", json_text(o->covariate_spec));
	json_put(cov, "refused", json_boolean(q->covariate_refused));
	json_put(cov, "b_vs_a_pct", json_real_or_null(diff));
	json_put(cov, "always_valid_ci_pct", json_pair(lo, hi));
	json_put(cov, "p_always", json_real_or_null(p));
	json_put(doc, "covariate", cov);
	return doc;
}
