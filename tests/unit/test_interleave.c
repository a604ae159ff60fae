// SPDX-License-Identifier: GPL-2.0
/*
 * ab --interleave's bookkeeping (tools/interleave.c) on made-up
 * timelines: the order of arms, which slice a report interval belongs to,
 * when a slice is final, the drop rules and their counts, the pairs, and
 * the report built from them.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "ab/result.h"
#include "ab/slices.h"

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

static struct rate_interval interval(double begin, double end, double count)
{
	return (struct rate_interval){ .t = end, .interval_s = end - begin,
				       .count = count };
}

static void test_order_of_arms(void **state)
{
	struct ab_schedule schedule;
	struct interleave il;
	size_t ab = 0, ba = 0;

	(void)state;
	/* warmup alternates, then every pair holds one A and one B */
	assert_int_equal(ab_schedule_init(&schedule, AB_ORDER_RANDOM, 7), 0);
	il_init(&il, 1, 3);
	for (size_t k = 0; k < 3 + 2 * 200; k++) {
		enum ab_arm arm = il_next_arm(&il, &schedule);

		if (k < 3)
			assert_int_equal(arm, k % 2 ? AB_ARM_B : AB_ARM_A);
		assert_int_equal(il_begin_slice(&il, arm, k, k + 0.01, 0.01, true), 0);
		if (k >= 3 && (k - 3) % 2 == 1) {
			assert_int_not_equal(il.slices[k].arm, il.slices[k - 1].arm);
			if (il.slices[k - 1].arm == AB_ARM_A)
				ab++;
			else
				ba++;
		}
	}
	/* random order: both orders, about half each (binomial 200, 1/2) */
	assert_int_equal(ab + ba, 200);
	assert_true(ab > 70 && ba > 70);
	il_free(&il);
	ab_schedule_free(&schedule);

	/* abba: AB, BA, AB, ... */
	assert_int_equal(ab_schedule_init(&schedule, AB_ORDER_ABBA, 0), 0);
	il_init(&il, 1, 0);
	for (size_t k = 0; k < 8; k++) {
		enum ab_arm arm = il_next_arm(&il, &schedule);

		assert_int_equal(arm, (k == 0 || k == 3 || k == 4 || k == 7) ?
				 AB_ARM_A : AB_ARM_B);
		assert_int_equal(il_begin_slice(&il, arm, k, k, 0, true), 0);
	}
	il_free(&il);
	ab_schedule_free(&schedule);
}

/*
 * Slices from 0 s (flip 0 to 0.125), 1 s (flip 1 to 1.125) and 2 s (flip
 * 2 to 2.375, slow); report intervals of 0.125 s from -0.25 s (binary
 * fractions: the boundaries compare exactly).
 */
static void test_attribution(void **state)
{
	struct rate_interval iv;
	struct interleave il;
	size_t placed[4] = { 0 };

	(void)state;
	il_init(&il, 0.25, 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 1, 1.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 2, 2.375, 0.375, true), 0);
	assert_true(il.slices[0].end == 1 && il.slices[1].end == 2);
	assert_true(isinf(il.slices[2].end));
	for (int i = 0; i < 24; i++) {
		double begin = -0.25 + 0.125 * i;

		iv = interval(begin, begin + 0.125, 100 + i);
		placed[il_add_interval(&il, &iv)]++;
	}
	/*
	 * [-0.25, -0.125] and [-0.125, 0] come before the first flip;
	 * [0, 0.125] is in it, [1, 1.125] in the second, [2, 2.125],
	 * [2.125, 2.25] and [2.25, 2.375] in the slow third.
	 */
	assert_int_equal(placed[IL_BEFORE_FIRST], 2);
	assert_int_equal(placed[IL_STRADDLES], 5);
	assert_int_equal(placed[IL_IN_SLICE], 17);
	assert_int_equal(il.intervals_before_first, 2);
	assert_int_equal(il.intervals_straddling, 5);
	assert_int_equal(il.intervals_read, 24);
	/* [0.125, 0.25] .. [0.875, 1]: 7 intervals, counts 103..109 */
	assert_int_equal(il.slices[0].intervals, 7);
	assert_true(il.slices[0].count == 7 * 106);
	assert_true(il.slices[0].time_s == 0.875);
	assert_true(il_slice_rate(&il.slices[0]) == 848);
	assert_int_equal(il.slices[1].intervals, 7);
	assert_int_equal(il.slices[2].intervals, 3);

	/* an interval that does not end later than the last one is ignored */
	iv = interval(2.5, 2.625, 5);
	assert_int_equal(il_add_interval(&il, &iv), IL_OUT_OF_ORDER);
	assert_int_equal(il.intervals_out_of_order, 1);
	assert_int_equal(il.slices[2].intervals, 3);
	il_free(&il);
}

/* Final once a later interval was read, or when the command ended. */
static void test_finality(void **state)
{
	struct rate_interval iv;
	struct interleave il;

	(void)state;
	il_init(&il, 0.25, 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.01, 0.01, true), 0);
	iv = interval(0.1, 0.2, 10);
	il_add_interval(&il, &iv);
	assert_int_equal(il_slice_fate(&il, 0), IL_OPEN);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 1, 1.01, 0.01, true), 0);
	/* closed, but an interval inside it may still be in the pipe */
	assert_int_equal(il_slice_fate(&il, 0), IL_OPEN);
	iv = interval(0.8, 0.99, 10);
	il_add_interval(&il, &iv);
	assert_int_equal(il_slice_fate(&il, 0), IL_OPEN);
	iv = interval(0.99, 1.0, 1);
	il_add_interval(&il, &iv);
	assert_int_equal(il_slice_fate(&il, 0), IL_KEPT);
	assert_int_equal(il.slices[0].intervals, 3);
	/* the open slice stays unfinished even after the command's end */
	il.input_done = true;
	assert_int_equal(il_slice_fate(&il, 1), IL_OPEN);
	il_free(&il);
}

/*
 * One slice per second, flip times from flips[], intervals of 0.1 s at
 * rate(arm, k) each, none where the rate is NaN (the command stalled);
 * the command ran to the end.
 */
static void run_timeline(struct interleave *il, const enum ab_arm *arms,
			 const double *flips, size_t n,
			 double (*rate)(enum ab_arm arm, size_t k))
{
	for (size_t k = 0; k < n; k++)
		assert_int_equal(il_begin_slice(il, arms[k], (double)k,
						(double)k + flips[k], flips[k],
						k == 0 || arms[k] != arms[k - 1]), 0);
	for (size_t k = 0; k < n; k++) {
		for (int i = 0; i < 10 && !isnan(rate(arms[k], k)); i++) {
			struct rate_interval iv =
				interval(k + 0.1 * i, k + 0.1 * (i + 1),
					 0.1 * rate(arms[k], k));

			il_add_interval(il, &iv);
		}
	}
	il->input_done = true;
}

static double flat_rate(enum ab_arm arm, size_t k)
{
	return k == 9 ? NAN : arm == AB_ARM_A ? 1000 : 1100;
}

/*
 * Drops: a slow flip drops its slice and the pair; a slice too short
 * for a whole interval likewise; warmup slices are never paired; the
 * last slice is unfinished.
 */
static void test_drop_rules_and_pairs(void **state)
{
	static const enum ab_arm arms[] = {
		AB_ARM_A, AB_ARM_B,			/* warmup */
		AB_ARM_A, AB_ARM_B, AB_ARM_B, AB_ARM_A,	/* kept, kept */
		AB_ARM_A, AB_ARM_B,			/* B's flip too long */
		AB_ARM_B, AB_ARM_A,			/* A: no line (stall) */
		AB_ARM_A, AB_ARM_B,			/* kept */
		AB_ARM_B,				/* open */
	};
	static const double flips[] = {
		0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.40, 0.01, 0.01,
		0.01, 0.01, 0.01,
	};
	static const enum il_fate fates[] = {
		IL_WARMUP, IL_WARMUP, IL_KEPT, IL_KEPT, IL_KEPT, IL_KEPT,
		IL_KEPT, IL_FLIP_TOO_LONG, IL_KEPT, IL_NO_INTERVAL, IL_KEPT,
		IL_KEPT, IL_OPEN,
	};
	struct il_pair_counts counts;
	struct interleave il;
	double a[8], b[8];

	(void)state;
	il_init(&il, 0.25, 2);
	run_timeline(&il, arms, flips, N_ELEMENTS(arms), flat_rate);
	for (size_t k = 0; k < N_ELEMENTS(arms); k++)
		if (il_slice_fate(&il, k) != fates[k])
			fail_msg("slice %zu: fate %d, expected %d", k,
				 il_slice_fate(&il, k), fates[k]);
	/* with their pairs: the slices beside a dropped one go too */
	assert_int_equal(il_slice_fate_paired(&il, 6), IL_PARTNER_DROPPED);
	assert_int_equal(il_slice_fate_paired(&il, 8), IL_PARTNER_DROPPED);
	assert_int_equal(il_slice_fate_paired(&il, 7), IL_FLIP_TOO_LONG);
	assert_int_equal(il_slice_fate_paired(&il, 11), IL_KEPT);
	assert_int_equal(il_slice_fate_paired(&il, 0), IL_WARMUP);
	il_count_pairs(&il, &counts);
	assert_int_equal(counts.kept, 3);
	assert_int_equal(counts.dropped, 2);
	assert_int_equal(counts.slices_flip_too_long, 1);
	assert_int_equal(counts.slices_no_interval, 1);
	/* A's rate in a[], B's in b[], whatever the order in the pair */
	assert_int_equal(il_kept_pairs(&il, a, b), 3);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(a[i] - 1000) < 1e-6 && fabs(b[i] - 1100) < 1e-6);
	il_free(&il);
}

/* A drift of the machine, same in both arms, B 2% faster. */
static double drifting_rate(enum ab_arm arm, size_t k)
{
	double drift = 1000 * (1 + 0.3 * sin((double)k / 7.0));
	double noise = ((k * 7919) % 13) - 6.0;

	return (arm == AB_ARM_B ? 1.02 : 1.0) * drift + noise;
}

static double same_rate(enum ab_arm arm, size_t k)
{
	(void)arm;
	return drifting_rate(AB_ARM_A, k);
}

static void timeline_of_pairs(struct interleave *il, size_t pairs,
			      double (*rate)(enum ab_arm arm, size_t k))
{
	enum ab_arm arms[2 * 64 + 2];
	double flips[2 * 64 + 2];
	/* a warmup slice, the pairs, and the slice open at the end */
	size_t n = 2 * pairs + 2;

	assert_true(n <= N_ELEMENTS(arms));
	for (size_t k = 0; k < n; k++) {
		/* AB, BA, ...; warmup slice 0 */
		arms[k] = k == 0 ? AB_ARM_A :
			(((k - 1) / 2) % 2 == ((k - 1) % 2)) ? AB_ARM_A : AB_ARM_B;
		flips[k] = 0.02 + 0.001 * (double)(k % 3);
	}
	il_init(il, 0.25, 1);
	run_timeline(il, arms, flips, n, rate);
}

static struct ab_options options(const char *a, const char *b)
{
	static char *cmd[] = { "vmpctl", "pft", NULL };

	return (struct ab_options){
		.value_a = a, .value_b = b, .interleave_s = 1, .max_flip_s = 0.25,
		.metric_name = "rate", .higher_is_better = true, .target_pct = 1,
		.order = AB_ORDER_ABBA, .knob = "/tmp/knob", .cmd = cmd,
	};
}

/* The drift hides 2% from whole arms, not from the pairs. */
static void test_report_finds_effect_despite_drift(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 30, drifting_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_true(r.compared);
	assert_int_equal(r.pairs.kept, 30);
	assert_int_equal(r.cmp.n, 30);
	assert_true(r.cmp.significant);
	assert_true(r.cmp.diff_ci_lo_pct < 2 && r.cmp.diff_ci_hi_pct > 2);
	assert_string_equal(il_verdict(&r), "B better");
	assert_true(r.cmp.correlation > 0.9);
	assert_true(r.pairs_needed >= 2);
	/* 60 paired slices of 10 intervals of 0.1 s, minus the flips' */
	assert_true(fabs(r.kept_time_s - 60 * 0.9) < 1e-6);
	assert_int_equal(r.slices_final, 61);
	assert_int_equal(r.slices_unfinished, 1);
	/* every slice but the same-arm neighbours toggled the knob */
	assert_true(r.flip_to_a.n + r.flip_to_b.n > 30);
	assert_true(r.flip_to_b.median >= 0.02 && r.flip_to_b.max <= 0.0221);
	il_free(&il);

	o.higher_is_better = false;
	timeline_of_pairs(&il, 30, drifting_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_string_equal(il_verdict(&r), "B worse");
	il_free(&il);
}

/* A = B: nothing to find. */
static void test_report_of_identical_arms(void **state)
{
	struct ab_options o = options("1", "1");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 30, same_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_false(r.cmp.significant);
	assert_true(r.cmp.diff_ci_lo_pct < 0 && r.cmp.diff_ci_hi_pct > 0);
	assert_string_equal(il_verdict(&r), "~");
	il_free(&il);
}

static void test_report_needs_two_pairs(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 1, drifting_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_false(r.compared);
	assert_int_equal(r.pairs.kept, 1);
	il_free(&il);
}

/* il_withheld_json(r) serialises to exactly EXPECTED. */
static void assert_withheld_json(const struct il_report *r, const char *expected)
{
	json_t *list = il_withheld_json(r);
	char *text = json_dumps(list, JSON_COMPACT);

	assert_string_equal(text, expected);
	free(text);
	json_decref(list);
}

/* B 20% faster than A under the same drift: every pair says so. */
static double clear_effect_rate(enum ab_arm arm, size_t k)
{
	return (arm == AB_ARM_B ? 1.2 : 1.0) * drifting_rate(AB_ARM_A, k);
}

/*
 * With 5 pairs the smallest signed-rank p is 2 / 32, above 0.05: however
 * clear the effect, no verdict, and the reason is "too few pairs". With
 * 6 (2 / 64) the same effect gets its verdict.
 */
static void test_too_few_pairs_for_a_verdict(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 5, clear_effect_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_true(r.compared);
	assert_int_equal(r.pairs.kept, 5);
	assert_true(r.too_few_pairs);
	assert_true(r.test.mean > 15);
	assert_string_equal(il_verdict(&r), "no verdict");
	assert_int_equal(il_withheld(&r), IL_WITHHELD_TOO_FEW_PAIRS);
	assert_withheld_json(&r, "[\"too few pairs\"]");
	il_free(&il);

	timeline_of_pairs(&il, 6, clear_effect_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(r.pairs.kept, 6);
	assert_false(r.too_few_pairs);
	assert_true(r.test.p < STATS_ALPHA);
	assert_int_equal(il_withheld(&r), 0);
	assert_string_equal(il_verdict(&r), "B better");
	il_free(&il);
}

/*
 * The vmpressure checks per slice: B must skip, A must not; in an A/A
 * run (A = B = 1) every slice is held to arm A's.
 */
static void test_sanity_per_slice(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	o.knob = NULL;		/* the vmpressure knob */
	timeline_of_pairs(&il, 4, flat_rate);
	for (size_t k = 0; k < il.n; k++) {
		il.slices[k].have_reclaim = il.slices[k].have_skipped = true;
		il.slices[k].pgscan = k == 3 ? 0 : 500;
		il.slices[k].skipped = il.slices[k].arm == AB_ARM_B ? 40 : 0;
	}
	il.slices[5].skipped = il.slices[5].arm == AB_ARM_B ? 0 : 7;
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(r.slices_without_reclaim, 1);
	assert_int_equal(r.b_slices_not_skipped + r.a_slices_skipped, 1);

	o.value_b = "1";
	for (size_t k = 0; k < il.n; k++)
		il.slices[k].skipped = 0;
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(r.b_slices_not_skipped, 0);
	assert_int_equal(r.a_slices_skipped, 0);
	assert_int_equal(il_sanity_arm(&o, AB_ARM_B), AB_ARM_A);
	il_free(&il);
}

/*
 * --split-intervals: an interval across a flip is counted in each slice
 * by its overlap, the part in the flip window in neither. Slices from 0
 * (flip 0 to 0.125) and 1 (flip 1 to 1.125); intervals of 0.25 s.
 */
static void test_split_intervals(void **state)
{
	struct interleave il;
	struct rate_interval iv;

	(void)state;
	il_init(&il, 0.25, 0);
	il.split = true;
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 1, 1.125, 0.125, true), 0);
	/* [0, 0.25]: half in the first flip window, half in slice 0 */
	iv = interval(0, 0.25, 100);
	assert_int_equal(il_add_interval(&il, &iv), IL_STRADDLES);
	assert_true(il.slices[0].count == 50 && il.slices[0].time_s == 0.125);
	/* [0.875, 1.25]: 0.125 s in slice 0, the flip window, 0.125 s in slice 1 */
	iv = interval(0.875, 1.25, 300);
	assert_int_equal(il_add_interval(&il, &iv), IL_STRADDLES);
	assert_true(il.slices[0].count == 150 && il.slices[0].time_s == 0.25);
	assert_true(il.slices[1].count == 100 && il.slices[1].time_s == 0.125);
	assert_int_equal(il.slices[1].intervals, 1);
	/* wholly inside: whole */
	iv = interval(1.25, 1.5, 40);
	assert_int_equal(il_add_interval(&il, &iv), IL_IN_SLICE);
	assert_true(il.slices[1].count == 140 && il.slices[1].time_s == 0.375);
	assert_int_equal(il.intervals_straddling, 2);
	il_free(&il);

	/* the same without --split-intervals: the ones across dropped */
	il_init(&il, 0.25, 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 1, 1.125, 0.125, true), 0);
	iv = interval(0.875, 1.25, 300);
	assert_int_equal(il_add_interval(&il, &iv), IL_STRADDLES);
	assert_true(il.slices[0].count == 0 && il.slices[1].count == 0);
	/* each arm lost its own part of it, the flip window in neither */
	assert_true(il.straddling_lost_s[AB_ARM_A] == 0.125);
	assert_true(il.straddling_lost_s[AB_ARM_B] == 0.125);
	/* B's longer interval across the next flip: B loses more */
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 2, 2.125, 0.125, true), 0);
	iv = interval(1.5, 2.25, 300);
	assert_int_equal(il_add_interval(&il, &iv), IL_STRADDLES);
	assert_true(il.straddling_lost_s[AB_ARM_A] == 0.25);
	assert_true(il.straddling_lost_s[AB_ARM_B] == 0.625);
	assert_true(il.settling_lost_s[AB_ARM_A] == 0 && il.settling_lost_s[AB_ARM_B] == 0);
	il_free(&il);
}

/* Two-sided Fisher's exact test against R's fisher.test(). */
static void test_fisher_exact(void **state)
{
	(void)state;
	/* matrix(c(7, 10, 0, 10), 2): p = 0.02606 */
	assert_true(fabs(ab_fisher_exact_p(7, 17, 0, 10) - 0.0260554) < 1e-6);
	assert_true(fabs(ab_fisher_exact_p(0, 10, 7, 17) - 0.0260554) < 1e-6);
	/* matrix(c(3, 7, 3, 7), 2): p = 1 */
	assert_true(fabs(ab_fisher_exact_p(3, 10, 3, 10) - 1) < 1e-9);
	/* matrix(c(1, 9, 11, 3), 2): p = 0.002759 */
	assert_true(fabs(ab_fisher_exact_p(1, 10, 11, 14) - 0.0027594) < 1e-6);
	assert_true(ab_fisher_exact_p(0, 0, 3, 10) == 1);
}

/*
 * Losses by arm: B's slices lose a report interval each to a straddled
 * flip that A's do not (B reports in long intervals): B counts less of
 * its time, so the pairs are compared on B's fast stretches only. The
 * report counts it per arm and gives no verdict.
 */
static double long_b_rate(enum ab_arm arm, size_t k)
{
	(void)k;
	return arm == AB_ARM_A ? 1000 : 900;
}

static void test_uneven_losses_get_no_verdict(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 20, long_b_rate);
	/* B's slices lose 0.3 s each, as if its long intervals straddled */
	for (size_t k = 0; k < il.n; k++) {
		if (il.slices[k].arm == AB_ARM_B) {
			il.slices[k].time_s -= 0.3;
			il.slices[k].count -= 0.3 * 900;
		}
	}
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_true(r.losses.checked);
	assert_false(r.losses.even);
	assert_non_null(strstr(r.losses.why, "A counted 92% of its slices' time, B 61%"));
	assert_string_equal(il_verdict(&r), "no verdict");
	assert_int_equal(il_withheld(&r), IL_WITHHELD_LOSSES);
	il_free(&il);

	/* the same time lost in both arms: even */
	timeline_of_pairs(&il, 20, long_b_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_true(r.losses.even);
	assert_int_equal(r.losses.total[AB_ARM_A], 20);
	assert_int_equal(r.losses.lost_any[AB_ARM_B], 0);
	assert_string_equal(il_verdict(&r), "B worse");
	assert_int_equal(il_withheld(&r), 0);
	il_free(&il);
}

/*
 * Whole slices lost count as time lost: of ten pairs, four B slices
 * without a report interval (Fisher's 4 of 10 against 0 of 10 is p
 * 0.087) and the other six losing 0.3 s each. Judged over the six kept
 * pairs alone, a sign test cannot go below 2 / 64 and this passed as
 * even; over all ten pairs B loses more in every one.
 */
static void test_lost_slices_count_as_lost_time(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;
	size_t b_slices = 0;

	(void)state;
	timeline_of_pairs(&il, 10, long_b_rate);
	for (size_t k = il.warmup; k < il.n; k++) {
		struct il_slice *s = &il.slices[k];

		if (s->arm != AB_ARM_B)
			continue;
		if (b_slices++ % 5 < 2) {
			s->time_s = s->count = 0;
			s->intervals = 0;
		} else {
			s->time_s -= 0.3;
			s->count -= 0.3 * 900;
		}
	}
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_int_equal(r.losses.lost[AB_LOSS_NO_INTERVAL][AB_ARM_B], 4);
	assert_true(r.losses.p > AB_LOSS_SLICES_ALPHA);
	assert_true(r.losses.kept_p < 0.01);
	assert_false(r.losses.even);
	assert_non_null(strstr(r.losses.why, "A counted 92% of its slices' time, B 37%"));
	assert_string_equal(il_verdict(&r), "no verdict");
	il_free(&il);
}

/*
 * A stall (a report interval over 4 times the median of the last 32 and
 * over 0.25 s) is its arm's own slowness: inside a slice it is counted
 * whole, across a flip split by overlap, and the slice with the most of
 * it is marked stalled; no slice is dropped for it. Dropping them kept a
 * stalling arm's fast slices only.
 */
static void test_stalls_count_as_time(void **state)
{
	struct interleave il;
	struct rate_interval iv;
	double t = 0;

	(void)state;
	il_init(&il, 0.25, 0);
	il.find_stalls = true;
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.01, 0.01, true), 0);
	/* 32 intervals of 0.05 s fill the window the median is taken of */
	for (int i = 0; i < 32; i++, t += 0.05) {
		iv = interval(0.01 + t, 0.06 + t, 50);
		assert_int_equal(il_add_interval(&il, &iv), IL_IN_SLICE);
	}
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 2, 2.01, 0.01, true), 0);
	/* B stops for 0.6 s inside its slice: 0.1 s of work in 0.7 s */
	iv = interval(2.01, 2.71, 100);
	assert_int_equal(il_add_interval(&il, &iv), IL_IN_SLICE);
	assert_true(il.slices[1].stalled && !il.slices[0].stalled);
	assert_true(fabs(il.slices[1].time_s - 0.7) < 1e-9 && il.slices[1].count == 100);
	/* and again across the flip to A at 3: 0.29 s in B, 0.1 s in A */
	iv = interval(2.71, 3.11, 40);
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 3, 3.01, 0.01, true), 0);
	assert_int_equal(il_add_interval(&il, &iv), IL_STRADDLES);
	assert_int_equal(il.intervals_stalled, 2);
	assert_true(fabs(il.slices[1].time_s - 0.99) < 1e-9);
	assert_true(fabs(il.slices[1].count - 129) < 1e-9);
	assert_true(fabs(il.slices[2].time_s - 0.1) < 1e-9);
	assert_false(il.slices[2].stalled);
	il.input_done = true;
	il.slices[2].end = 4;
	assert_int_equal(il_slice_fate(&il, 1), IL_KEPT);
	il_free(&il);
}

/* Marks the first n slices of arm after the warmup stalled. */
static void stall_slices(struct interleave *il, enum ab_arm arm, size_t n)
{
	for (size_t k = il->warmup; k < il->n && n; k++) {
		if (il->slices[k].arm == arm) {
			il->slices[k].stalled = true;
			n--;
		}
	}
}

/*
 * Stalls in 4 of B's 12 slices and none of A's (Fisher p 0.093): when
 * the rates do not call B worse, no verdict; when they do, B worse; and
 * when the stalls are A's while the rates call B worse, no verdict.
 */
static void test_stalls_leaning_on_an_arm(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;

	(void)state;
	timeline_of_pairs(&il, 12, same_rate);
	stall_slices(&il, AB_ARM_B, 4);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_int_equal(r.losses.stalled[AB_ARM_B], 4);
	assert_true(r.losses.even);
	assert_int_equal(ab_losses_stall_lean(&r.losses), AB_ARM_B);
	assert_false(il_significant(&r));
	assert_true(il_stalls_unresolved(&r));
	assert_string_equal(il_verdict(&r), "no verdict");
	/* the losses are even: only the stalls' reason says why */
	assert_int_equal(il_withheld(&r), IL_WITHHELD_STALLS);
	assert_withheld_json(&r, "[\"stalls\"]");
	il_free(&il);

	timeline_of_pairs(&il, 12, long_b_rate);
	stall_slices(&il, AB_ARM_B, 4);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_string_equal(il_verdict(&r), "B worse");
	il_free(&il);

	timeline_of_pairs(&il, 12, long_b_rate);
	stall_slices(&il, AB_ARM_A, 4);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(il_count_losses(&il, &r.losses), 0);
	assert_int_equal(ab_losses_stall_lean(&r.losses), AB_ARM_A);
	assert_string_equal(il_verdict(&r), "no verdict");
	il_free(&il);
}

/*
 * --settle 0.25: in every slice, the intervals that begin within 0.25 s
 * of its start are not counted, whether its flip changed the knob (A to
 * B) or not (B to B).
 */
static void test_settle_in_both_arms(void **state)
{
	struct interleave il;
	size_t settling = 0;

	(void)state;
	il_init(&il, 0.25, 0);
	il.settle_s = 0.25;
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 0, 0.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 1, 1.125, 0.125, true), 0);
	assert_int_equal(il_begin_slice(&il, AB_ARM_B, 2, 2.125, 0.125, false), 0);
	for (int i = 0; i < 24; i++) {
		struct rate_interval iv = interval(0.125 * i, 0.125 * (i + 1), 100);

		settling += il_add_interval(&il, &iv) == IL_SETTLING;
	}
	/* [s, s+0.125] and [s+0.125, s+0.25] of each slice start s */
	assert_int_equal(settling, 6);
	assert_int_equal(il.intervals_settling, 6);
	assert_int_equal(il.slices[0].intervals, 5);
	assert_int_equal(il.slices[1].intervals, 5);
	assert_int_equal(il.slices[2].intervals, 5);
	/* they began in --settle and ended before the counted time: none lost */
	assert_true(il.settling_lost_s[AB_ARM_A] == 0 && il.settling_lost_s[AB_ARM_B] == 0);
	/* one from inside --settle into the counted time: that part lost, A's */
	assert_int_equal(il_begin_slice(&il, AB_ARM_A, 3, 3.125, 0.125, true), 0);
	{
		struct rate_interval iv = interval(3.25, 3.625, 100);

		assert_int_equal(il_add_interval(&il, &iv), IL_SETTLING);
	}
	assert_true(il.settling_lost_s[AB_ARM_A] == 0.25 && il.settling_lost_s[AB_ARM_B] == 0);
	il_free(&il);
}

/*
 * Flips toward B slow enough to be dropped: the kept pairs are all BA,
 * each A slice came after a flip and no B slice did. No verdict.
 */
static void test_unbalanced_pairs_get_no_verdict(void **state)
{
	enum ab_arm arms[2 * 12 + 2];
	double flips[2 * 12 + 2];
	struct ab_options o = options("1", "1");
	struct interleave il;
	struct il_report r;
	size_t n = 0;

	(void)state;
	/* a warmup A, then AB, BA, AB, ... and an open slice */
	arms[n++] = AB_ARM_A;
	for (int p = 0; p < 12; p++) {
		arms[n++] = p % 2 ? AB_ARM_B : AB_ARM_A;
		arms[n++] = p % 2 ? AB_ARM_A : AB_ARM_B;
	}
	arms[n++] = AB_ARM_A;
	/* a change of the knob toward B takes 0.4 s, any other flip 0.01 s */
	for (size_t k = 0; k < n; k++)
		flips[k] = k && arms[k] == AB_ARM_B && arms[k - 1] == AB_ARM_A ?
			0.4 : 0.01;
	il_init(&il, 0.25, 1);
	run_timeline(&il, arms, flips, n, same_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(r.balance.pairs_ab, 0);
	assert_int_equal(r.balance.pairs_ba, 6);
	assert_int_equal(r.balance.b_after_flip, 0);
	assert_int_equal(r.balance.slow_to_b, r.balance.flips_to_b);
	assert_int_equal(r.balance.slow_to_a, 0);
	assert_false(r.balance.balanced);
	assert_string_equal(il_verdict(&r), "no verdict");
	assert_true(il_withheld(&r) & IL_WITHHELD_UNBALANCED);
	il_free(&il);

	/* the same arms with every flip fast: balanced */
	for (size_t k = 0; k < n; k++)
		flips[k] = 0.01;
	il_init(&il, 0.25, 1);
	run_timeline(&il, arms, flips, n, same_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	assert_int_equal(r.balance.pairs_ab, 6);
	assert_int_equal(r.balance.pairs_ba, 6);
	assert_true(r.balance.balanced);
	assert_string_equal(il_verdict(&r), "~");
	il_free(&il);
}

static char *print(enum ab_format format, const struct il_report *r)
{
	struct ab_result result;
	struct capture c;
	FILE *out = capture_open(&c);

	ab_result_of_slices(r, &result);
	assert_int_equal(ab_result_print_as(out, &result, format), 0);
	return capture_text(&c);
}

static void test_outputs(void **state)
{
	struct ab_options o = options("1", "0");
	struct interleave il;
	struct il_report r;
	size_t commas[2] = { 0 }, line = 0;
	char *text;

	(void)state;
	timeline_of_pairs(&il, 10, drifting_rate);
	assert_int_equal(il_build_report(&il, &o, &r), 0);
	r.knob_path = "/tmp/knob";
	r.elapsed_s = 21;

	text = print(AB_FORMAT_TABLE, &r);
	assert_non_null(strstr(text, "knob /tmp/knob: A=1 B=0, interleaved: slices of 1 s in pairs, order abba"));
	assert_non_null(strstr(text, "pairs for 1%"));
	assert_non_null(strstr(text, "B better"));
	assert_non_null(strstr(text, "pairs: 10 kept, 0 dropped (slices with a flip over --max-flip 0.25 s"));
	/* the first interval of each of the 22 slices is in its flip */
	assert_non_null(strstr(text, "report intervals: 220 read, 22 straddling"));
	assert_non_null(strstr(text, "time lost to dropped intervals: straddling A 0.868 s, B 0.791 s; within --settle A 0 s, B 0 s\n"));
	free(text);

	text = print(AB_FORMAT_JSON, &r);
	assert_non_null(strstr(text, "{\"mode\":\"interleave\",\"knob\":\"/tmp/knob\""));
	assert_non_null(strstr(text, "\"pairs\":{\"kept\":10,\"dropped\":0,"));
	assert_non_null(strstr(text, "\"verdict\":\"B better\""));
	assert_non_null(strstr(text, "\"fate\":\"warmup\""));
	assert_int_equal(text[strlen(text) - 1], '\n');
	free(text);

	/* CSV: as many fields in the line as in the header */
	text = print(AB_FORMAT_CSV, &r);
	for (char *p = text; *p; p++) {
		if (*p == ',')
			commas[line]++;
		else if (*p == '\n' && ++line == 2)
			break;
	}
	assert_int_equal(line, 2);
	assert_int_equal(commas[0], commas[1]);
	free(text);
	il_free(&il);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_of_arms),
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_finality),
		cmocka_unit_test(test_drop_rules_and_pairs),
		cmocka_unit_test(test_report_finds_effect_despite_drift),
		cmocka_unit_test(test_report_of_identical_arms),
		cmocka_unit_test(test_report_needs_two_pairs),
		cmocka_unit_test(test_too_few_pairs_for_a_verdict),
		cmocka_unit_test(test_sanity_per_slice),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_settle_in_both_arms),
		cmocka_unit_test(test_split_intervals),
		cmocka_unit_test(test_fisher_exact),
		cmocka_unit_test(test_uneven_losses_get_no_verdict),
		cmocka_unit_test(test_lost_slices_count_as_lost_time),
		cmocka_unit_test(test_stalls_count_as_time),
		cmocka_unit_test(test_stalls_leaning_on_an_arm),
		cmocka_unit_test(test_unbalanced_pairs_get_no_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
