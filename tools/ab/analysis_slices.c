// SPDX-License-Identifier: GPL-2.0
/*
 * ab --interleave's analysis of the final pairs: the paired comparison,
 * the order-adjusted signed-rank test of the log ratios (the headline), the balance of the kept pairs, the carry-over check
 * and the sanity counts (see slices.h).
 */
#include "result.h"
#include "slices.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


#include "stats_robust.h"

enum ab_arm il_sanity_arm(const struct ab_options *opts, enum ab_arm arm)
{
	return strcmp(opts->value_a, opts->value_b) == 0 ? AB_ARM_A : arm;
}

/* Knob writes that changed the value, per direction. */
static int summarize_flips(const struct interleave *il, struct il_report *r)
{
	double *to_a = malloc((il->n + 1) * sizeof(*to_a));
	double *to_b = malloc((il->n + 1) * sizeof(*to_b));
	size_t n_a = 0, n_b = 0;

	if (!to_a || !to_b) {
		free(to_a);
		free(to_b);
		return -ENOMEM;
	}
	for (size_t k = 0; k < il->n; k++) {
		const struct il_slice *s = &il->slices[k];

		if (!s->toggled)
			continue;
		if (s->arm == AB_ARM_A)
			to_a[n_a++] = s->flip_s;
		else
			to_b[n_b++] = s->flip_s;
	}
	/* an empty direction stays n = 0 */
	stats_summarize(to_a, n_a, &r->flip_to_a);
	stats_summarize(to_b, n_b, &r->flip_to_b);
	free(to_a);
	free(to_b);
	return 0;
}

static void count_sanity(const struct interleave *il,
			 const struct ab_options *opts, struct il_report *r)
{
	bool vmpressure_knob = ab_checks_vmpressure(opts);

	for (size_t k = 0; k < il->n; k++) {
		const struct il_slice *s = &il->slices[k];
		enum il_fate fate = il_slice_fate_paired(il, k);
		struct ab_run run = {
			.arm = il_sanity_arm(opts, s->arm),
			.have_reclaim = s->have_reclaim, .pgscan = s->pgscan,
			.have_skipped = s->have_skipped, .skipped = s->skipped,
		};
		unsigned int w;

		if (fate == IL_OPEN) {
			r->slices_unfinished++;
			continue;
		}
		r->slices_final++;
		if (fate != IL_KEPT)
			continue;
		w = ab_run_warnings(&run, vmpressure_knob);
		r->slices_without_reclaim += !!(w & AB_WARN_NO_RECLAIM);
		r->b_slices_not_skipped += !!(w & AB_WARN_B_NOT_SKIPPED);
		r->a_slices_skipped += !!(w & AB_WARN_A_SKIPPED);
	}
}

static void count_balance(const struct interleave *il, size_t first,
			  enum il_fate f0, enum il_fate f1, void *arg)
{
	struct il_balance *b = arg;

	if (f0 != IL_KEPT || f1 != IL_KEPT)
		return;
	if (il->slices[first].arm == AB_ARM_A)
		b->pairs_ab++;
	else
		b->pairs_ba++;
	for (size_t k = first; k < first + 2; k++) {
		if (!il->slices[k].toggled)
			continue;
		if (il->slices[k].arm == AB_ARM_A)
			b->a_after_flip++;
		else
			b->b_after_flip++;
	}
}

static void count_slow_flips(const struct interleave *il, size_t first,
			     enum il_fate f0, enum il_fate f1, void *arg)
{
	struct il_balance *b = arg;
	enum il_fate fates[2] = { f0, f1 };

	for (size_t k = first; k < first + 2; k++) {
		bool slow = fates[k - first] == IL_FLIP_TOO_LONG;

		if (!il->slices[k].toggled)
			continue;
		if (il->slices[k].arm == AB_ARM_A) {
			b->flips_to_a++;
			b->slow_to_a += slow;
		} else {
			b->flips_to_b++;
			b->slow_to_b += slow;
		}
	}
}

static double share(size_t part, size_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

void il_check_balance(const struct interleave *il, struct il_balance *b)
{
	memset(b, 0, sizeof(*b));
	il_each_final_pair(il, count_balance, b);
	il_each_final_pair(il, count_slow_flips, b);
	b->drop_skew = fabs(share(b->slow_to_a, b->flips_to_a) -
			    share(b->slow_to_b, b->flips_to_b));
	b->order_p = stats_fair_coin_p(b->pairs_ab, b->pairs_ab + b->pairs_ba);
	b->flip_p = stats_fair_coin_p(b->a_after_flip, b->a_after_flip + b->b_after_flip);
	b->balanced = b->order_p >= IL_BALANCE_ALPHA &&
		b->flip_p >= IL_BALANCE_ALPHA && b->drop_skew <= IL_DROP_SKEW_MAX;
}

static double half_rate(const struct il_slice *s, int half)
{
	return s->half_time_s[half] > 0 ? s->half_count[half] / s->half_time_s[half] : NAN;
}

/* Per pair with both halves of both slices: B - A in each half, in a[], b[]. */
static void take_halves(const struct interleave *il, size_t first,
			enum il_fate f0, enum il_fate f1, void *arg)
{
	struct il_pair_arrays *h = arg;
	const struct il_slice *a, *b;
	double d[2];

	if (f0 != IL_KEPT || f1 != IL_KEPT)
		return;
	a = &il->slices[first];
	b = &il->slices[first + 1];
	if (a->arm != AB_ARM_A) {
		a = b;
		b = &il->slices[first];
	}
	for (int half = 0; half < 2; half++) {
		/* on the ratio scale: a dip after every flip in both arms cancels */
		d[half] = log(half_rate(b, half) / half_rate(a, half));
		if (!isfinite(d[half]))
			return;
	}
	h->a[h->n] = d[0];
	h->b[h->n] = d[1];
	h->n++;
}

static int check_carry_over(const struct interleave *il, unsigned long seed,
			    struct il_carry_over *c)
{
	size_t room = il->n / 2 + 1;
	struct il_pair_arrays h = { malloc(room * sizeof(double)),
				 malloc(room * sizeof(double)), 0 };
	double *change = malloc(room * sizeof(double));
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!h.a || !h.b || !change) {
		err = -ENOMEM;
		goto out;
	}
	if (il->slice_s > 0)
		il_each_final_pair(il, take_halves, &h);
	if (h.n < 2)
		goto out;
	for (size_t i = 0; i < h.n; i++) {
		change[i] = 100 * (h.a[i] - h.b[i]);
		c->first_pct += h.a[i] / (double)h.n;
		c->second_pct += h.b[i] / (double)h.n;
	}
	c->first_pct = stats_log_pct(c->first_pct);
	c->second_pct = stats_log_pct(c->second_pct);
	err = stats_signflip(change, h.n, seed, &c->test);
	if (err)
		goto out;
	c->checked = true;
	c->pairs = h.n;
out:
	free(h.a);
	free(h.b);
	free(change);
	return err;
}

/* Kept pairs' B - A, short pairs' into a[], long pairs' into b[]. */
struct by_length {
	double *diff[2];	/* [0] short, [1] long */
	size_t n[2];
};

static void take_by_length(const struct interleave *il, size_t first,
			   enum il_fate f0, enum il_fate f1, void *arg)
{
	struct by_length *l = arg;
	const struct il_slice *x = &il->slices[first], *y = &il->slices[first + 1];
	double d = log(il_slice_rate(x->arm == AB_ARM_B ? x : y) /
		       il_slice_rate(x->arm == AB_ARM_B ? y : x));
	int kind = x->long_slice;

	if (f0 != IL_KEPT || f1 != IL_KEPT || !isfinite(d))
		return;
	l->diff[kind][l->n[kind]++] = d;
}

/*
 * --long-every: an effect that lingers longer than a short slice is
 * smaller in the short pairs than in the long ones. The test: sign flips
 * of each pair's difference weighted 1 / n_short for short pairs and
 * -1 / n_long for long ones (their sum is mean short - mean long). A flip
 * keeps each pair's own spread, which the long pairs' drift makes larger;
 * exact when B does nothing, conservative when it has an effect that
 * does not depend on the slice length (centring on the mean instead
 * called carry-over in 11% of A/A runs under drift, test_calibration).
 */
static int compare_long_pairs(const struct interleave *il, unsigned long seed,
			      struct il_carry_over *c)
{
	size_t room = il->n / 2 + 1, n;
	struct by_length l = { { malloc(room * sizeof(double)),
				 malloc(room * sizeof(double)) }, { 0, 0 } };
	double *weighted = malloc(2 * room * sizeof(double));
	double kind_mean[2] = { 0, 0 };
	struct stats_signflip test;
	int err = 0;

	if (!l.diff[0] || !l.diff[1] || !weighted) {
		err = -ENOMEM;
		goto out;
	}
	il_each_final_pair(il, take_by_length, &l);
	if (l.n[0] < 2 || l.n[1] < 2)
		goto out;
	n = 0;
	for (int kind = 0; kind < 2; kind++) {
		for (size_t i = 0; i < l.n[kind]; i++) {
			double d = 100 * l.diff[kind][i];

			kind_mean[kind] += d / (double)l.n[kind];
			weighted[n++] = (kind ? -d : d) / (double)l.n[kind];
		}
	}
	err = stats_signflip(weighted, n, seed, &test);
	if (err)
		goto out;
	c->long_checked = true;
	c->short_pairs = l.n[0];
	c->long_pairs = l.n[1];
	c->short_pct = stats_log_pct(kind_mean[0] / 100);
	c->long_pct = stats_log_pct(kind_mean[1] / 100);
	c->long_p = test.p;
out:
	free(l.diff[0]);
	free(l.diff[1]);
	free(weighted);
	return err;
}

static void add_kept_time(const struct interleave *il, size_t first,
			  enum il_fate f0, enum il_fate f1, void *arg)
{
	double *time_s = arg;

	if (f0 == IL_KEPT && f1 == IL_KEPT)
		*time_s += il->slices[first].time_s + il->slices[first + 1].time_s;
}

/* Kept pairs' order, in the order of il_kept_pairs(): +1 AB, -1 BA. */
struct pair_orders {
	int *order;
	size_t n;
};

static void take_order(const struct interleave *il, size_t first,
		       enum il_fate f0, enum il_fate f1, void *arg)
{
	struct pair_orders *o = arg;

	if (f0 == IL_KEPT && f1 == IL_KEPT)
		o->order[o->n++] = il->slices[first].arm == AB_ARM_A ? 1 : -1;
}

/* A log ratio of rates; a slice without progress ranks below every other. */
#define IL_LOG_RATIO_MAX 20.0

/*
 * The headline (stats_robust.h): the Hodges-Lehmann estimate of the
 * pairs' log ratios and its signed-rank test inverted, into r->location
 * and, in percent, r->test, which the outputs print. Beside it: the
 * order-adjusted mean of the log ratios with its own exact
 * randomisation test (r->adjusted, stats_signflip.h), which a steady
 * drift under uneven orders does not bias but one outlier does; and the
 * robust fit (r->fit). The signed-rank test of ratios aligned by the
 * fitted drift is not used: it called 7.1% of A/A runs [5.7%, 8.9%]
 * when flips disturb both arms (test_calibration), the estimated drift
 * taking up part of the noise.
 */
static int order_adjusted_test(const struct interleave *il, const double *a,
			       const double *b, size_t n, struct il_report *r)
{
	struct pair_orders o = { malloc(n * sizeof(int)), 0 };
	double *y = malloc(n * sizeof(*y));
	int err;

	if (!o.order || !y) {
		free(o.order);
		free(y);
		return -ENOMEM;
	}
	il_each_final_pair(il, take_order, &o);
	for (size_t i = 0; i < n; i++) {
		double ratio = log(b[i] / a[i]);

		y[i] = isnan(ratio) ? 0 : fmax(-IL_LOG_RATIO_MAX,
						fmin(IL_LOG_RATIO_MAX, ratio));
	}
	err = stats_order_adjusted(y, o.order, n, &r->fit);
	if (!err)
		err = stats_hodges_lehmann(y, n, &r->location);
	if (!err)
		err = stats_signflip_order_adjusted(y, o.order, n, r->opts->seed,
						    &r->adjusted);
	free(o.order);
	free(y);
	if (err)
		return err;
	r->too_few_pairs = !r->location.reachable;
	r->test = (struct stats_signflip){
		.n = n,
		.mean = stats_log_pct(r->location.estimate),
		.p = r->location.p,
		.ci_lo = stats_log_pct(r->location.ci_lo),
		.ci_hi = stats_log_pct(r->location.ci_hi),
		.exact = r->location.exact,
	};
	if (!isfinite(r->location.ci_lo))
		r->test.ci_lo = -INFINITY;
	/* the power of this test, not of the paired t */
	r->cmp.mde_pct = stats_log_mde_pct(r->location.sd, n,
					   STATS_TEST_SIGNED_RANK);
	return 0;
}

int il_build_report(const struct interleave *il, const struct ab_options *opts,
		    struct il_report *r)
{
	size_t room = il->n / 2 + 1, n;
	double *a = malloc(room * sizeof(*a));
	double *b = malloc(room * sizeof(*b));
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->opts = opts;
	r->il = il;
	if (!a || !b) {
		err = -ENOMEM;
		goto out;
	}
	il_count_pairs(il, &r->pairs);
	n = il_kept_pairs(il, a, b);
	il_check_balance(il, &r->balance);
	if (n >= 2) {
		err = stats_compare_paired(a, b, n, &r->cmp);
		if (err)
			goto out;
		r->no_progress = !(r->cmp.a.mean > 0);
	}
	if (n >= 2 && !r->no_progress) {
		err = order_adjusted_test(il, a, b, n, r);
		if (!err)
			err = check_carry_over(il, opts->seed, &r->carry);
		if (!err)
			err = compare_long_pairs(il, opts->seed, &r->carry);
		/* two looks at carry-over, each at half the level */
		r->carry.found = (r->carry.checked && r->carry.test.p < STATS_ALPHA / 2) ||
			(r->carry.long_checked && r->carry.long_p < STATS_ALPHA / 2);
		if (err)
			goto out;
		r->compared = true;
		if (opts->target_pct > 0)
			r->pairs_needed = stats_log_needed(r->location.sd,
							   opts->target_pct,
							   STATS_TEST_SIGNED_RANK);
	}
	il_each_final_pair(il, add_kept_time, &r->kept_time_s);
	count_sanity(il, opts, r);
	err = summarize_flips(il, r);
out:
	free(a);
	free(b);
	return err;
}

bool il_significant(const struct il_report *r)
{
	return r->test.p < STATS_ALPHA;
}

/* The arm the headline test calls worse, or -1 (not significant). */
static int worse_arm(const struct il_report *r)
{
	if (!il_significant(r))
		return -1;
	return (r->test.mean > 0) == r->opts->higher_is_better ?
		AB_ARM_A : AB_ARM_B;
}

bool il_stalls_unresolved(const struct il_report *r)
{
	int lean = ab_losses_stall_lean(&r->losses);

	return lean >= 0 && lean != worse_arm(r);
}

unsigned int il_withheld(const struct il_report *r)
{
	unsigned int why = 0;

	if (!r->balance.balanced)
		why |= IL_WITHHELD_UNBALANCED;
	if (r->losses.checked && !r->losses.even)
		why |= IL_WITHHELD_LOSSES;
	if (r->too_few_pairs)
		why |= IL_WITHHELD_TOO_FEW_PAIRS;
	if (r->carry.found)
		why |= IL_WITHHELD_CARRY_OVER;
	if (il_stalls_unresolved(r))
		why |= IL_WITHHELD_STALLS;
	return why;
}

json_t *il_withheld_json(const struct il_report *r)
{
	static const char *const names[] = {
		"unbalanced", "losses", "too few pairs", "carry-over", "stalls",
	};
	unsigned int why = il_withheld(r);
	json_t *list = json_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (why & 1u << i)
			json_append(list, json_text(names[i]));
	return list;
}

const char *il_verdict(const struct il_report *r)
{
	if (il_withheld(r))
		return "no verdict";
	switch (worse_arm(r)) {
	case AB_ARM_A:
		return "B better";
	case AB_ARM_B:
		return "B worse";
	}
	return "~";
}

void ab_result_of_slices(const struct il_report *report, struct ab_result *r)
{
	ab_result_init(r, AB_DESIGN_SLICES, report->opts, report->knob_path,
		       report->seed, report->elapsed_s);
	r->slices = report;
	r->precision_reached = report->precision_reached;
	r->out_of_time = report->out_of_time;
	r->losses = report->losses.checked ? &report->losses : NULL;
	r->to_b = &report->flip_to_b;
	r->to_a = &report->flip_to_a;
	r->sanity = (struct ab_sanity){
		.unit = "slices",
		.without_reclaim = report->slices_without_reclaim,
		.b_not_skipped = report->b_slices_not_skipped,
		.a_skipped = report->a_slices_skipped,
	};
	r->n_metrics = 1;
	r->metrics[0] = (struct ab_estimate){
		.name = report->opts->metric_name,
		.higher_is_better = report->opts->higher_is_better,
		.a = &report->cmp.a,
		.b = &report->cmp.b,
		.b_minus_a = &report->cmp.d,
		.test = "signed-rank",
		.diff_pct = report->test.mean,
		.ci_lo_pct = report->test.ci_lo,
		.ci_hi_pct = report->test.ci_hi,
		.p_test = report->test.p,
		.p = report->test.p,
		.significant = il_significant(report),
		.verdict = il_verdict(report),
		.noise_pct = report->cmp.noise_pct,
		.mde_pct = report->cmp.mde_pct,
		.needed = report->pairs_needed,
	};
}
