/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bookkeeping of vmpctl ab --interleave, apart from processes and
 * knobs so that it can be tested on made-up timelines.
 *
 * One long run of a command that prints rate lines (rate.h). The knob is
 * flipped every DURATION; the time from one flip to the next is a slice,
 * in one arm. Slices come after the warmup ones in pairs, one A and one B
 * in a random order (AB or BA, each with probability 1/2, from ab's block
 * schedule): the pair's two slices are adjacent in time, so a slow drift of
 * the machine is in both and cancels in their difference, and an effect of
 * the order (the slice after a flip, the first or second of a pair) falls
 * on A and B alike and cancels on average instead of biasing one arm.
 *
 * A slice's flip window is the time from the end of the slice before it
 * to its own start: the knob write and read-back and the counter reads.
 * Its rate is the sum of the counts of the report intervals that lie
 * wholly inside it (from its start to the next flip), over the sum of
 * their lengths. Dropped and counted:
 *  - a report interval that straddles a flip window (or any slice
 *    boundary): it mixes two arms, or the flip's own disturbance;
 *  - a report interval that begins within settle_s of its slice's start
 *    (--settle), in every slice of both arms alike, whether the knob
 *    changed or not: the time the system takes to get over a flip;
 *  - a slice whose knob write took longer than max_flip_s: a flip that
 *    slow says the system was held up (an RCU-tasks grace period waiting
 *    for a task in a long syscall), not in the steady state being
 *    compared;
 *  - a slice without a whole report interval (DURATION too short for the
 *    command's --report-interval);
 *  - with either slice of a pair, the pair.
 * Not dropped, with find_stalls: a stall, a report interval longer than
 * IL_STALL_FACTOR times the median of the last IL_STALL_WINDOW and than
 * IL_STALL_MIN_S (the command stopped and resumed). It is the arm's own
 * slowness: counted whole in its slice, or split by overlap across a
 * flip (as --split-intervals does), and the slices it reaches are marked
 * stalled. Dropped, its long interval straddled a flip more often than
 * the short ones do, so a stalling arm kept its fast stretches.
 * The flip-time rule depends on the arm when flips toward one arm are
 * slower (ftrace attaching versus detaching): the report checks that the
 * kept pairs are still balanced (as many AB as BA, as many slices of A as
 * of B right after a flip that changed the knob) and gives no verdict
 * when they are not.
 * With slice_s set, each slice's intervals are also summed per half of
 * the slice (after the settle time), for the carry-over check.
 * A slice is final once a report interval ending at or after its end has
 * been read (the command reports in order), or when the command ended.
 */
#ifndef VMPCTL_AB_SLICES_H
#define VMPCTL_AB_SLICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ab.h"
#include "json.h"
#include "losses.h"
#include "rate.h"
#include "sequential.h"
#include "stats_paired.h"
#include "stats_signflip.h"
#include "stats_robust.h"

/* --max-flip's default: this fraction of DURATION */
#define IL_MAX_FLIP_FRACTION 0.25
/* --long-every's pairs have slices this many times as long */
#define IL_LONG_FACTOR 4
/*
 * a report interval this many times the recent median, and at least
 * IL_STALL_MIN_S long (shorter waits are a loaded machine's), is a stall ...
 */
#define IL_STALL_FACTOR 4
#define IL_STALL_MIN_S 0.25
/* ... the median of this many intervals read before it (once as many) */
#define IL_STALL_WINDOW 32

struct il_slice {
	enum ab_arm arm;
	bool warmup;
	bool long_slice;	/* of a --long-every pair: IL_LONG_FACTOR slice_s */
	double flip_started;	/* the end of the slice before */
	double start;		/* counting starts: the flip is over */
	double end;		/* the next flip started; INFINITY while open */
	double flip_s;		/* the knob write and read-back */
	bool toggled;		/* ... changed the knob's value */
	double count;		/* of the intervals inside */
	double time_s;
	size_t intervals;
	bool stalled;		/* a stall's time is counted in it (find_stalls) */
	double half_count[2];	/* the same per half of the slice (slice_s) */
	double half_time_s[2];
	/* kernel counters from start to end (ab_run's sanity checks) */
	bool have_reclaim;
	uint64_t pgscan;
	bool have_skipped;
	uint64_t skipped;
	double covariate;	/* --covariate: its rate over the slice; 0 none */
};

enum il_fate {
	IL_OPEN,		/* not final yet */
	IL_KEPT,
	IL_WARMUP,
	IL_FLIP_TOO_LONG,
	IL_NO_INTERVAL,
	IL_PARTNER_DROPPED,	/* kept itself, but the other slice of its pair not */
};

/* Where a report interval went. */
enum il_placed {
	IL_IN_SLICE,
	IL_STRADDLES,		/* across a flip window or slice boundary */
	IL_SETTLING,		/* within settle_s of its slice's start */
	IL_BEFORE_FIRST,	/* before the first slice began */
	IL_OUT_OF_ORDER,	/* ends no later than one read before: ignored */
};

struct interleave {
	double max_flip_s;
	size_t warmup;		/* slices before the first pair */
	double settle_s;	/* set after il_init(): --settle */
	double slice_s;		/* set after il_init(): the halves; 0 none */
	size_t long_every;	/* set after il_init(): every such pair long; 0 none */
	struct il_slice *slices;
	size_t n;
	size_t allocated;
	enum ab_arm block[2];	/* the arms of the pair being run */
	double last_t;		/* end of the latest interval read */
	bool input_done;	/* the command ended: all slices are final */
	size_t intervals_read;
	size_t intervals_straddling;
	size_t intervals_stalled;	/* stalls (find_stalls), counted */
	size_t intervals_settling;
	/* seconds of counted time each arm lost to those two, dropped */
	double straddling_lost_s[2];
	double settling_lost_s[2];
	size_t intervals_before_first;
	size_t intervals_out_of_order;
	/*
	 * set after il_init(): --split-intervals, an interval across a flip
	 * or --settle is counted in part, by overlap, instead of dropped
	 */
	bool split;
	/* set after il_init(): mark stalls (report intervals ab waits for) */
	bool find_stalls;
	double recent_s[IL_STALL_WINDOW];	/* the last intervals' lengths, a ring */
	size_t recent_n;			/* ... read so far */
};

void il_init(struct interleave *il, double max_flip_s, size_t warmup);
void il_free(struct interleave *il);

/*
 * The arm of the slice to begin next: the warmup slices alternate A, B,
 * ...; then each pair is the next block of the schedule.
 */
enum ab_arm il_next_arm(struct interleave *il, struct ab_schedule *schedule);

/*
 * Ends the open slice at flip_started and opens one in arm from start on;
 * flip_s is the knob write's time, toggled whether it changed the value.
 * 0 or -ENOMEM.
 */
int il_begin_slice(struct interleave *il, enum ab_arm arm, double flip_started,
		   double start, double flip_s, bool toggled);

/*
 * The median length of the last IL_STALL_WINDOW report intervals read (as
 * many as there are); NaN before the first.
 */
double il_recent_median(const struct interleave *il);

/* Puts one report interval where it belongs. */
enum il_placed il_add_interval(struct interleave *il,
			       const struct rate_interval *iv);

/* The slice's own fate: never IL_PARTNER_DROPPED. */
enum il_fate il_slice_fate(const struct interleave *il, size_t index);
/*
 * The fate with its pair's: IL_KEPT only when the pair is kept, IL_OPEN
 * while the other slice is.
 */
enum il_fate il_slice_fate_paired(const struct interleave *il, size_t index);

/* The time from slice index's flip to the next: slice_s, or long. */
double il_slice_length(const struct interleave *il, size_t index);

/* A slice's rate (count / time); NaN without an interval. */
double il_slice_rate(const struct il_slice *slice);

/* Final pairs so far: how many were kept and dropped. */
struct il_pair_counts {
	size_t kept;
	size_t dropped;
	size_t slices_flip_too_long;	/* in final pairs */
	size_t slices_no_interval;
};

void il_count_pairs(const struct interleave *il, struct il_pair_counts *c);

/*
 * The final pairs' slices lost by arm and reason, the time each arm could
 * count and counted in them, judged (ab_losses_judge()) at
 * AB_LOSS_SLICES_ALPHA. 0 or -ENOMEM.
 */
int il_count_losses(const struct interleave *il, struct ab_losses *l);

/* Calls fn for every final pair; stops at the first open one. */
void il_each_final_pair(const struct interleave *il,
			void (*fn)(const struct interleave *il, size_t first,
				   enum il_fate f0, enum il_fate f1, void *arg),
			void *arg);

/* Per-pair values of each arm, gathered in time order. */
struct il_pair_arrays {
	double *a;
	double *b;
	size_t n;
};

/*
 * The kept final pairs' rates into a[] and b[] (room for n / 2 each), in
 * time order; returns how many.
 */
size_t il_kept_pairs(const struct interleave *il, double *a, double *b);

/*
 * Whether the kept pairs are balanced: the order of arms and which arm
 * follows a flip that changed the knob are as even as a fair coin makes
 * them (two-sided binomial p at or above IL_BALANCE_ALPHA each), and the
 * flip-time rule dropped about as large a share of the flips toward A as
 * of those toward B (the shares differ by at most IL_DROP_SKEW_MAX): with
 * few pairs a coin may look fair by chance, a skewed drop rule does not.
 */
#define IL_BALANCE_ALPHA 0.01
#define IL_DROP_SKEW_MAX 0.25

struct il_balance {
	size_t pairs_ab;
	size_t pairs_ba;
	size_t a_after_flip;	/* slices of kept pairs whose flip toggled */
	size_t b_after_flip;
	double order_p;
	double flip_p;
	/* final paired slices whose flip toggled, and those over --max-flip */
	size_t flips_to_a;
	size_t flips_to_b;
	size_t slow_to_a;
	size_t slow_to_b;
	double drop_skew;	/* |slow_to_a / flips_to_a - slow_to_b / flips_to_b| */
	bool balanced;
};

void il_check_balance(const struct interleave *il, struct il_balance *b);

/*
 * Carry-over: B vs A (percent of mean A) in the first and second half of
 * the slices, and the sign-flip test of their difference over the pairs
 * with both halves measured; with --long-every, B vs A in the short and
 * the long pairs and a sign-flip test of that difference too. found: a
 * test's p is below 0.025 (the two together at 0.05).
 */
struct il_carry_over {
	bool checked;		/* slice_s set and at least one such pair */
	size_t pairs;
	double first_pct;
	double second_pct;
	struct stats_signflip test;	/* of first - second */
	/* with --long-every: B vs A in the short and the long pairs */
	bool long_checked;	/* at least 2 pairs of each */
	size_t short_pairs;
	size_t long_pairs;
	double short_pct;
	double long_pct;
	double long_p;		/* sign flips of short against long */
	bool found;		/* the halves or short and long differ */
};

/* What ab --interleave reports. */
struct ab_latency_report;

struct il_report {
	const struct ab_options *opts;
	const struct interleave *il;
	const char *knob_path;
	unsigned long seed;
	bool compared;		/* at least 2 pairs: cmp and test are set */
	/* arm A's kept slices made no progress: no percent exists to test */
	bool no_progress;
	struct stats_paired cmp;
	/* the primary test, in percent: see fit below */
	struct stats_signflip test;
	struct il_balance balance;
	struct il_carry_over carry;
	size_t pairs_needed;	/* for --target; 0 when not asked */
	struct il_pair_counts pairs;
	size_t slices_final;	/* warmup and paired slices that are final */
	size_t slices_unfinished;	/* open when the run ended */
	/* knob writes that changed the value, to B's and back to A's */
	struct stats_summary flip_to_b;
	struct stats_summary flip_to_a;
	double kept_time_s;	/* the report intervals in kept pairs */
	double elapsed_s;
	size_t lines_invalid;	/* rate lines that broke the contract */
	bool precision_reached;
	bool out_of_time;
	bool command_ended;	/* it ended by itself, not by ab */
	/* sanity over the slices of kept pairs, as ab_run_warnings() */
	size_t slices_without_reclaim;
	size_t b_slices_not_skipped;
	size_t a_slices_skipped;
	const struct ab_latency_report *latency;	/* NULL: none reported */
	struct ab_sequential_end sequential;	/* .seq NULL: not --sequential */
	struct ab_losses losses;	/* il_count_losses(); unchecked: none */
	/*
	 * --- The headline's analysis (stats_robust.h), filled by
	 * il_build_report(). test above holds location's figures in
	 * percent: mean is the Hodges-Lehmann estimate, p the signed-rank
	 * p, the CI the test inverted; cmp.mde_pct is this test's MDE. ---
	 */
	struct stats_location location;	/* of the pairs' log ratios */
	struct stats_order_fit fit;	/* the same, order- and drift-adjusted */
	/* the order-adjusted mean of the log ratios and its exact test */
	struct stats_signflip adjusted;
	bool too_few_pairs;	/* p < 0.05 not reachable: no verdict */
};

/*
 * The paired comparison, drops, flips and sanity of il. 0, or -ENOMEM;
 * with fewer than 2 pairs kept, compared is false.
 */
int il_build_report(const struct interleave *il, const struct ab_options *opts,
		    struct il_report *r);

/*
 * "B better", "B worse", "~" (the sign-flip test's p is not below 0.05),
 * or "no verdict" when il_withheld() gives a reason.
 */
const char *il_verdict(const struct il_report *r);

/* Why the verdict is withheld, as bits in the order JSON lists them. */
enum {
	IL_WITHHELD_UNBALANCED = 1u << 0,	/* dropped by flip time, by arm */
	IL_WITHHELD_LOSSES = 1u << 1,		/* any other loss, by arm */
	IL_WITHHELD_TOO_FEW_PAIRS = 1u << 2,	/* p < 0.05 out of reach */
	IL_WITHHELD_CARRY_OVER = 1u << 3,
	IL_WITHHELD_STALLS = 1u << 4,		/* il_stalls_unresolved() */
};

/* The IL_WITHHELD_* reasons that apply, 0 when a verdict is given. */
unsigned int il_withheld(const struct il_report *r);

/* The same reasons as a JSON array of names, empty with a verdict. */
json_t *il_withheld_json(const struct il_report *r);

/* The headline test's p is below STATS_ALPHA. */
bool il_significant(const struct il_report *r);

/*
 * The slices' stalls lean on one arm (ab_losses_stall_lean()) and the
 * headline test does not call that arm worse: no verdict.
 */
bool il_stalls_unresolved(const struct il_report *r);

/* The report intervals read and dropped, as counted so far. */
json_t *il_intervals_json(const struct interleave *il);

/*
 * Slice k as a JSON object, times relative to zero (the first flip), so
 * that they read as the run's seconds.
 */
json_t *il_slice_json(const struct interleave *il, size_t k, double zero);

/*
 * The arm whose expectations a slice meets in the sanity checks: with
 * A = B (an A/A run) every slice is arm A's.
 */
enum ab_arm il_sanity_arm(const struct ab_options *opts, enum ab_arm arm);

#endif
