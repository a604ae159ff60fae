// SPDX-License-Identifier: GPL-2.0
/*
 * tools/stats_seq.c, calibrated: A/A runs peeked at after every pair,
 * under noise built to fool it (drift, heavy tails, a period, a different
 * spread per arm, all at once), must keep the false-positive rate's
 * Wilson 95% interval at or below 5%; injected effects of 2% and 5% are
 * found with the power printed, and the time to an answer (median and
 * 90th percentile, in pairs) with it; the adjustments' variance
 * reduction is printed, and a covariate the knob changes is refused.
 *
 * Pairs of two slices in random order, per-slice log noise of 2%, a
 * target of 2%, alpha 5%, at most MAX_PAIRS pairs (the time limit).
 * A false positive is an interval that ever excludes 0 before the limit,
 * even when the run would have stopped before on "no difference".
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
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"
#include "stats_seq.h"

#define RUNS 400
#define MAX_PAIRS 300
#define TARGET_PCT 2.0
#define NOISE 0.02

struct scenario {
	const char *name;
	double effect;		/* B's rate = A's times 1 + effect */
	double drift;		/* log level gained per slice */
	double walk;		/* sd of a random walk of the level, per slice */
	double period;		/* amplitude, a period of 4 slices */
	double spike;		/* chance a slice runs at half its rate */
	double t_df;		/* Student t noise with these df; 0: normal */
	double b_noise;		/* B's noise over A's; 0: the same */
	double shared;		/* sd of a disturbance a covariate shows */
	double covariate_shift;	/* what the knob does to the covariate */
	enum stats_seq_adjust adjust;
};

struct outcome {
	size_t ever_effect;	/* the interval excluded 0 before the limit */
	size_t effect;		/* the run ended on "effect", the right side */
	size_t wrong_side;	/* ... on the wrong side */
	size_t within;		/* the run ended on "no difference > T" */
	size_t limit;		/* the run reached MAX_PAIRS */
	size_t refused;		/* the covariate was refused */
	unsigned long stopped[RUNS];	/* pairs at the end of each run */
	double reduction;	/* mean variance reduction at the end */
};

/* One slice's log rate, and its covariate's. */
static double slice(const struct scenario *sc, gsl_rng *rng, double *level,
		    size_t k, bool arm_b, double *covariate)
{
	double noise = sc->t_df > 0 ?
		gsl_ran_tdist(rng, sc->t_df) * sqrt((sc->t_df - 2) / sc->t_df) :
		gsl_ran_ugaussian(rng);
	double shared = sc->shared > 0 ? gsl_ran_gaussian(rng, sc->shared) : 0;

	*level += sc->drift + (sc->walk > 0 ? gsl_ran_gaussian(rng, sc->walk) : 0);
	*covariate = exp(shared + gsl_ran_gaussian(rng, NOISE / 4) +
			 (arm_b ? log1p(sc->covariate_shift) : 0));
	return *level + NOISE * noise * (arm_b && sc->b_noise > 0 ? sc->b_noise : 1) +
		shared + sc->period * sin(M_PI * (double)k / 2) +
		(gsl_rng_uniform(rng) < sc->spike ? log(0.5) : 0) +
		(arm_b ? log1p(sc->effect) : 0);
}

/* RUNS runs of sc, each peeked at after every pair up to MAX_PAIRS. */
static void simulate(const struct scenario *sc, unsigned long seed,
		     struct outcome *out)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double reduction = 0;

	assert_non_null(rng);
	gsl_rng_set(rng, seed);
	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < RUNS; r++) {
		enum stats_seq_verdict end = STATS_SEQ_RUNNING;
		struct stats_seq s;
		double level = 0, end_estimate = 0;
		size_t i;

		assert_int_equal(stats_seq_init(&s, TARGET_PCT, STATS_ALPHA,
						 sc->adjust), 0);
		for (i = 0; i < MAX_PAIRS; i++) {
			struct stats_seq_pair p = {
				.b_second = gsl_rng_uniform(rng) < 0.5,
			};
			double first, second, cov_first, cov_second;

			first = slice(sc, rng, &level, 2 * i, !p.b_second, &cov_first);
			second = slice(sc, rng, &level, 2 * i + 1, p.b_second,
				       &cov_second);
			p.a = exp(p.b_second ? first : second);
			p.b = exp(p.b_second ? second : first);
			p.cov_a = p.b_second ? cov_first : cov_second;
			p.cov_b = p.b_second ? cov_second : cov_first;
			assert_int_equal(stats_seq_add(&s, &p), 0);
			if (end == STATS_SEQ_RUNNING && s.verdict != STATS_SEQ_RUNNING) {
				end = s.verdict;
				end_estimate = s.tests[s.reported].estimate;
				out->stopped[r] = i + 1;
				reduction += stats_seq_variance_reduction(&s);
				out->refused += s.covariate_refused;
			}
			/* go on peeking: a later "effect" is a false positive too */
			if (s.verdict == STATS_SEQ_EFFECT)
				break;
		}
		out->ever_effect += s.verdict == STATS_SEQ_EFFECT;
		if (end == STATS_SEQ_RUNNING) {
			out->limit++;
			out->stopped[r] = MAX_PAIRS;
			reduction += stats_seq_variance_reduction(&s);
			out->refused += s.covariate_refused;
		} else if (end == STATS_SEQ_WITHIN_TARGET) {
			out->within++;
		} else if (sc->effect != 0 && (end_estimate > 0) == (sc->effect > 0)) {
			out->effect++;
		} else {
			out->wrong_side++;
		}
	}
	out->reduction = reduction / RUNS;
	gsl_rng_free(rng);
}

static unsigned long pairs_at(struct outcome *out, double q)
{
	gsl_sort_ulong(out->stopped, 1, RUNS);
	return out->stopped[(size_t)floor(q * (RUNS - 1) + 0.5)];
}

static void print(const struct scenario *sc, struct outcome *out)
{
	double lo, hi;

	stats_wilson(out->ever_effect, RUNS, &lo, &hi);
	printf("seq %-28s effect %+4.1f%%: ever outside 0 %5.1f%% [%4.1f%%, %4.1f%%]"
	       " | ended: effect %5.1f%% wrong side %4.1f%% within +-T %5.1f%%"
	       " limit %5.1f%% | pairs median %3lu p90 %3lu | variance removed"
	       " %5.1f%% | covariate refused %5.1f%%\n",
	       sc->name, 100 * sc->effect, 100.0 * out->ever_effect / RUNS,
	       100 * lo, 100 * hi, 100.0 * out->effect / RUNS,
	       100.0 * out->wrong_side / RUNS, 100.0 * out->within / RUNS,
	       100.0 * out->limit / RUNS, pairs_at(out, 0.5), pairs_at(out, 0.9),
	       100 * out->reduction, 100.0 * out->refused / RUNS);
	fflush(stdout);		/* before cmocka's lines */
}

static void test_by_hand(void **state)
{
	struct stats_seq s;
	struct stats_seq_pair p = { .a = 100, .b = 100 };
	const double d[] = { 0.01, -0.02, 0.03, 0.00, 0.02, 0.01, -0.01, 0.04 };
	double sum = 0, sum_sq = 0, diff, lo, hi, p_always, log_e_max = 0, rho;
	bool one_sign = true;
	int tested = 0;

	(void)state;
	assert_int_equal(stats_seq_init(&s, 0, 0.05, STATS_SEQ_RAW), -EINVAL);
	assert_int_equal(stats_seq_init(&s, 2, 1, STATS_SEQ_RAW), -EINVAL);
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_ADJUSTMENTS), -EINVAL);
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_RAW), 0);
	p.a = 0;
	assert_int_equal(stats_seq_add(&s, &p), -EINVAL);
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_COVARIATE), 0);
	p.a = 100;
	assert_int_equal(stats_seq_add(&s, &p), -EINVAL);	/* no covariate */

	/* M at mu = 0 from the pairs after the tuning ones, by its formula */
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_RAW), 0);
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		p.b = 100 * exp(d[i]);
		p.b_second = i % 2;
		assert_int_equal(stats_seq_add(&s, &p), 0);
		if (i >= STATS_SEQ_TUNING_PAIRS) {
			sum += d[i];
			sum_sq += d[i] * d[i];
			/* E = 7/8 M + 1/8 2^(n-1) while every d is above 0 */
			one_sign = one_sign && d[i] > 0;
			tested++;
			log_e_max = fmax(log_e_max, log(0.875 * sqrt(s.rho / (sum_sq + s.rho)) *
							exp(sum * sum / (2 * (sum_sq + s.rho))) +
							(one_sign ? 0.125 * pow(2, tested - 1) : 0)));
		}
		if (i < STATS_SEQ_TUNING_PAIRS)
			assert_true(s.verdict == STATS_SEQ_RUNNING);
	}
	rho = s.rho;
	/* rho = k m, k from the mixture's level, m from the tuning pairs' spread */
	{
		double mean = 0.02 / 4, var = (0.0014 - 4 * mean * mean) / 3;
		double c = 2 * log(1 / (0.05 * 0.875)), lo_k = 1e-6, hi_k = 10, k;

		for (int i = 0; i < 100; i++) {
			k = (lo_k + hi_k) / 2;
			if (c + log1p(1 / k) > 1 / k)
				hi_k = k;
			else
				lo_k = k;
		}
		double m = (1 + k) * (c + log1p(1 / k)) * var * var /
			pow(0.75 * log1p(0.02), 2);

		assert_true(fabs(rho / (k * m) - 1) < 1e-3);
	}
	stats_seq_result(&s, &diff, &lo, &hi, &p_always);
	assert_true(fabs(p_always - fmin(1, exp(-log_e_max))) < 1e-12);
	assert_true(fabs(diff - 100 * expm1(sum / 4)) < 1e-9);
	/* 4 pairs cannot bound the interval: a ratio from 0 to infinity */
	assert_true(lo == -100 && isinf(hi));

	/*
	 * Every tested d above 0 but spread too wide for the mixture: the
	 * one-sign e-process, 1/8 2^(n-1), reaches 20 at the 9th, and the
	 * interval is cut to the d's range.
	 */
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_RAW), 0);
	for (size_t i = 0; i < STATS_SEQ_TUNING_PAIRS + 9; i++) {
		size_t k = i < STATS_SEQ_TUNING_PAIRS ? i : i - STATS_SEQ_TUNING_PAIRS;

		p.b = 100 * exp(i < STATS_SEQ_TUNING_PAIRS ? 0.1 * (i % 2 ? 1 : -1) :
				0.05 * (double)(1 + (k * 5) % 9));
		p.b_second = i % 2;
		assert_int_equal(stats_seq_add(&s, &p), 0);
		if (i == STATS_SEQ_TUNING_PAIRS + 7)
			assert_int_equal(s.verdict, STATS_SEQ_RUNNING);
	}
	assert_int_equal(s.verdict, STATS_SEQ_EFFECT);
	assert_true(fabs(s.tests[STATS_SEQ_RAW].lo - 0.05) < 1e-12 &&
		    fabs(s.tests[STATS_SEQ_RAW].hi - 0.45) < 1e-12);
	stats_seq_result(&s, &diff, &lo, &hi, &p_always);
	assert_true(p_always <= 0.05 && p_always > 0.02);

	/* B 10% faster in every pair, with 1% noise: an effect, soon */
	assert_int_equal(stats_seq_init(&s, 2, 0.05, STATS_SEQ_ORDER), 0);
	for (size_t i = 0; i < 40 && s.verdict == STATS_SEQ_RUNNING; i++) {
		p.b = 110 * exp(0.01 * (i % 3 == 0 ? 1 : -0.5));
		p.b_second = i % 2;
		assert_int_equal(stats_seq_add(&s, &p), 0);
	}
	assert_int_equal(s.verdict, STATS_SEQ_EFFECT);
	stats_seq_result(&s, &diff, &lo, &hi, &p_always);
	assert_true(lo > 0 && lo < 10 && hi > 10 && p_always < 0.05);
	assert_string_equal(stats_seq_verdict_name(s.verdict), "effect");
}

/* A/A: the rate of runs whose interval ever left 0, Wilson CI <= 5%. */
static void test_aa(void **state)
{
	static const struct scenario cases[] = {
		{ .name = "normal, raw", .adjust = STATS_SEQ_RAW },
		{ .name = "normal", .adjust = STATS_SEQ_ORDER },
		{ .name = "drift 3%/slice, raw", .drift = 0.03, .adjust = STATS_SEQ_RAW },
		{ .name = "drift 3%/slice", .drift = 0.03, .adjust = STATS_SEQ_ORDER },
		{ .name = "random walk 1%", .walk = 0.01, .adjust = STATS_SEQ_ORDER },
		{ .name = "t3 + 2% halved slices", .t_df = 3, .spike = 0.02,
		  .adjust = STATS_SEQ_ORDER },
		{ .name = "period 4 slices, 3%", .period = 0.03, .adjust = STATS_SEQ_ORDER },
		{ .name = "B 3x noisier", .b_noise = 3, .adjust = STATS_SEQ_ORDER },
		{ .name = "all at once", .drift = 0.01, .walk = 0.01, .t_df = 3,
		  .spike = 0.02, .period = 0.03, .b_noise = 3,
		  .adjust = STATS_SEQ_ORDER },
	};
	static struct outcome out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double lo, hi;

		simulate(&cases[i], 100 + i, &out);
		print(&cases[i], &out);
		stats_wilson(out.ever_effect, RUNS, &lo, &hi);
		assert_true(hi <= 0.05);
	}
}

/*
 * Injected effects: the share of runs that end on "effect" on the right
 * side (power), and that end on "no difference larger than 2%" (wrong
 * for 5%, on the edge for 2%).
 */
static void test_power(void **state)
{
	static const struct scenario cases[] = {
		{ .name = "normal", .effect = 0.02, .adjust = STATS_SEQ_ORDER },
		{ .name = "normal", .effect = 0.05, .adjust = STATS_SEQ_ORDER },
		{ .name = "normal", .effect = -0.05, .adjust = STATS_SEQ_ORDER },
		{ .name = "drift, period, B 3x noisier", .effect = 0.02,
		  .drift = 0.01, .period = 0.03, .b_noise = 3,
		  .adjust = STATS_SEQ_ORDER },
		{ .name = "drift, period, B 3x noisier", .effect = 0.05,
		  .drift = 0.01, .period = 0.03, .b_noise = 3,
		  .adjust = STATS_SEQ_ORDER },
	};
	static struct outcome out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double lo, hi;

		simulate(&cases[i], 200 + i, &out);
		print(&cases[i], &out);
		assert_true(out.wrong_side == 0);
		if (fabs(cases[i].effect) < 0.05)
			continue;
		assert_true(out.effect >= 0.9 * RUNS);
		stats_wilson(out.within, RUNS, &lo, &hi);
		assert_true(hi <= 0.05);
	}
}

/*
 * A covariate that shows a disturbance worth 4/5 of the slices' variance:
 * balanced, it removes most of the variance and keeps A/A calibrated,
 * and an answer comes in fewer pairs than without it (the median, with
 * and without an effect: the power it gains); shifted 10% by the knob,
 * it is refused and A/A stays calibrated.
 */
static void test_covariate(void **state)
{
	static const struct scenario cases[] = {
		{ .name = "covariate, balanced", .shared = 0.04,
		  .adjust = STATS_SEQ_COVARIATE },
		{ .name = "no covariate, same noise", .shared = 0.04,
		  .adjust = STATS_SEQ_ORDER },
		{ .name = "covariate, knob shifts it 10%", .shared = 0.04,
		  .covariate_shift = 0.1, .adjust = STATS_SEQ_COVARIATE },
		{ .name = "covariate, balanced", .shared = 0.04, .effect = 0.05,
		  .adjust = STATS_SEQ_COVARIATE },
		{ .name = "no covariate, same noise", .shared = 0.04,
		  .effect = 0.05, .adjust = STATS_SEQ_ORDER },
	};
	static struct outcome out;
	unsigned long median_with = 0;
	double lo, hi;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		simulate(&cases[i], 300 + i, &out);
		print(&cases[i], &out);
		/* cases 0 and 3 with the covariate, 1 and 4 the same without */
		if (i == 0 || i == 3)
			median_with = pairs_at(&out, 0.5);
		if (i == 1 || i == 4)
			assert_true(median_with < 0.9 * pairs_at(&out, 0.5));
		stats_wilson(out.ever_effect, RUNS, &lo, &hi);
		if (cases[i].effect == 0)
			assert_true(hi <= 0.05);
		if (i == 0)
			assert_true(out.reduction > 0.5 && out.refused < 0.05 * RUNS);
		if (i == 2)
			assert_true(out.refused >= 0.9 * RUNS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_covariate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
