// SPDX-License-Identifier: GPL-2.0
/* What each arm lost, and whether the losses are even (see losses.h). */
#include <stdio.h>

#include "losses.h"
#include "json.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

double ab_fisher_exact_p(size_t a_k, size_t a_n, size_t b_k, size_t b_n)
{
	unsigned int lost = (unsigned int)(a_k + b_k);
	unsigned int kept = (unsigned int)(a_n + b_n) - lost;
	unsigned int lo = a_n > kept ? (unsigned int)a_n - kept : 0;
	unsigned int hi = lost < a_n ? lost : (unsigned int)a_n;
	double seen, p = 0;

	if (!a_n || !b_n)
		return 1;
	seen = gsl_ran_hypergeometric_pdf((unsigned int)a_k, lost, kept,
					   (unsigned int)a_n);
	/* every table at most as likely as the one seen (ties by a relative epsilon) */
	for (unsigned int x = lo; x <= hi; x++) {
		double px = gsl_ran_hypergeometric_pdf(x, lost, kept, (unsigned int)a_n);

		if (px <= seen * (1 + 1e-7))
			p += px;
	}
	return p < 1 ? p : 1;
}

static const char *const loss_names[AB_LOSS_REASONS] = {
	"slow flip", "no report interval", "failed", "timed out",
};
static const char *const loss_keys[AB_LOSS_REASONS] = {
	"slow_flip", "no_interval", "failed", "timed_out",
};

/* Whether B's share k[1] / n[1] is above A's k[0] / n[0]: 1 (B) or 0 (A). */
static int b_share_higher(const size_t k[2], const size_t n[2])
{
	return (double)k[1] * (double)n[0] > (double)k[0] * (double)n[1];
}

/* Whether a reason applies to the design: slices, or whole runs. */
static bool applies(const struct ab_losses *l, int why)
{
	return l->slices == (why != AB_LOSS_FAILED && why != AB_LOSS_TIMED_OUT);
}

static double share(const struct ab_losses *l, int arm)
{
	return l->ran_s[arm] > 0 ? l->kept_s[arm] / l->ran_s[arm] : NAN;
}

void ab_losses_judge(struct ab_losses *l, double alpha)
{
	const char *noun = l->slices ? "slices" : "runs";
	/*
	 * the time not counted, A against B, over the mean time that could
	 * be: equal drops of equal intervals are even even when one arm's
	 * slower flips leave it less time to count
	 */
	double skew = fabs((l->ran_s[0] - l->kept_s[0]) - (l->ran_s[1] - l->kept_s[1])) /
		((l->ran_s[0] + l->ran_s[1]) / 2);

	for (int arm = 0; arm < 2; arm++) {
		l->lost_any[arm] = 0;
		for (int why = 0; why < AB_LOSS_REASONS; why++)
			l->lost_any[arm] += l->lost[why][arm];
	}
	l->p = ab_fisher_exact_p(l->lost_any[0], l->total[0], l->lost_any[1],
				 l->total[1]);
	l->stall_p = ab_fisher_exact_p(l->stalled[0], l->total[0], l->stalled[1],
				       l->total[1]);
	l->checked = true;
	l->even = true;
	l->why[0] = '\0';
	if (l->p < alpha) {
		int more = b_share_higher(l->lost_any, l->total);

		l->even = false;
		snprintf(l->why, sizeof(l->why),
			 "%s %s more: %zu of %zu against %zu of %zu (Fisher p %.3g)",
			 more ? "B" : "A", l->slices ? "loses" : "fails",
			 l->lost_any[more], l->total[more], l->lost_any[!more],
			 l->total[!more], l->p);
	} else if (l->slices && l->ran_s[0] > 0 && l->ran_s[1] > 0 &&
		   skew > AB_KEPT_SHARE_SKEW_MAX && l->kept_p < AB_KEPT_TIME_ALPHA) {
		l->even = false;
		snprintf(l->why, sizeof(l->why),
			 "A counted %.0f%% of its %s' time, B %.0f%%: which report intervals count depends on the arm",
			 100 * share(l, 0), noun, 100 * share(l, 1));
	}
}

int ab_losses_stall_lean(const struct ab_losses *l)
{
	if (!l->checked || !l->slices || !(l->stall_p < AB_STALL_LEAN_ALPHA))
		return -1;
	return b_share_higher(l->stalled, l->total);
}

void ab_losses_of_runs(struct ab_losses *l, const size_t tried[2],
		       const size_t failed[2], const size_t timed_out[2])
{
	memset(l, 0, sizeof(*l));
	if (!failed[0] && !failed[1] && !timed_out[0] && !timed_out[1])
		return;
	for (int arm = 0; arm < 2; arm++) {
		l->total[arm] = tried[arm];
		l->lost[AB_LOSS_FAILED][arm] = failed[arm];
		l->lost[AB_LOSS_TIMED_OUT][arm] = timed_out[arm];
	}
	ab_losses_judge(l, AB_LOSS_RUNS_ALPHA);
}

json_t *ab_losses_json(const struct ab_losses *l)
{
	json_t *doc = json_object();

	for (int arm = 0; arm < 2; arm++) {
		json_t *o = json_object();

		json_put(o, l->slices ? "slices" : "runs", json_count(l->total[arm]));
		for (int why = 0; why < AB_LOSS_REASONS; why++)
			if (applies(l, why))
				json_put(o, loss_keys[why], json_count(l->lost[why][arm]));
		json_put(o, "lost", json_count(l->lost_any[arm]));
		if (l->slices) {
			json_put(o, "ran_s", json_real_or_null(l->ran_s[arm]));
			json_put(o, "kept_s", json_real_or_null(l->kept_s[arm]));
			json_put(o, "stalled", json_count(l->stalled[arm]));
		}
		json_put(doc, arm ? "b" : "a", o);
	}
	json_put(doc, "fisher_p", json_real_or_null(l->p));
	if (l->slices) {
		int lean = ab_losses_stall_lean(l);

		json_put(doc, "counted_signed_rank_p", json_real_or_null(l->kept_p));
		json_put(doc, "stall_p", json_real_or_null(l->stall_p));
		json_put(doc, "stalls_lean", lean < 0 ? json_null() : json_text(lean ? "B" : "A"));
	}
	json_put(doc, "even", json_boolean(l->even));
	json_put(doc, "why", l->even ? json_null() : json_text(l->why));
	return doc;
}

void ab_losses_print(FILE *out, const struct ab_losses *l)
{
	fputs("losses by arm:", out);
	for (int arm = 0; arm < 2; arm++) {
		fprintf(out, "%s %s %zu of %zu %s (", arm ? ";" : "", arm ? "B" : "A",
			l->lost_any[arm], l->total[arm], l->slices ? "slices" : "runs");
		for (int why = 0, first = 1; why < AB_LOSS_REASONS; why++) {
			if (!applies(l, why))
				continue;
			fprintf(out, "%s%s %zu", first ? "" : ", ", loss_names[why],
				l->lost[why][arm]);
			first = 0;
		}
		fputc(')', out);
		if (l->slices)
			fprintf(out, ", counted %.0f%% of its time", 100 * share(l, arm));
	}
	fprintf(out, "; Fisher p %.3g\n", l->p);
	if (l->slices && (l->stalled[0] || l->stalled[1]))
		fprintf(out, "stalls (counted as their arm's time): in A %zu of %zu slices, B %zu of %zu; Fisher p %.3g\n",
			l->stalled[0], l->total[0], l->stalled[1], l->total[1],
			l->stall_p);
	if (!l->even)
		fprintf(out, "NO VERDICT: losses depend on the arm: %s\n", l->why);
}
