/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each arm lost, by reason, whichever design measured it: slices or
 * runs dropped or failed, and the time each arm kept of what it ran. A
 * loss that depends on the arm selects what is compared (a slower arm's
 * long report intervals dropped more, so its kept ones are its fast
 * ones; a failing arm's failures left out), so an uneven loss is itself
 * the finding and the rest gets no verdict.
 */
#ifndef VMPCTL_AB_LOSSES_H
#define VMPCTL_AB_LOSSES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* Why a slice or a run of an arm was not compared. */
enum ab_loss {
	AB_LOSS_SLOW_FLIP,	/* a flip over --max-flip */
	AB_LOSS_NO_INTERVAL,	/* a slice without report interval time */
	AB_LOSS_FAILED,		/* a whole run that failed (--ignore-failure) */
	AB_LOSS_REASONS,
};

/*
 * The level of the test of uneven losses: slices are many and a skew in
 * them biases quietly, so a strict level keeps false alarms rare; a run
 * that fails is rare and its asymmetry the answer, so the usual 0.05.
 */
#define AB_LOSS_SLICES_ALPHA 0.01
#define AB_LOSS_RUNS_ALPHA 0.05
/*
 * the time not counted in kept pairs, A's less B's, over the mean time
 * that could be: more apart than this, and one arm losing more in more
 * pairs than a fair coin gives (sign test below AB_LOSS_SLICES_ALPHA), is
 * uneven; chance drops of whole intervals in short slices are neither
 */
#define AB_KEPT_SHARE_SKEW_MAX 0.10

struct ab_losses {
	bool checked;
	bool slices;			/* slices (interleaved), or whole runs */
	size_t total[2];		/* slices in final pairs, or runs tried */
	size_t lost[AB_LOSS_REASONS][2];
	size_t lost_any[2];
	/*
	 * interleaved, over kept pairs: the time that could be counted
	 * (after the flip and --settle, to the next flip), and that was
	 */
	double ran_s[2];
	double kept_s[2];
	/* kept pairs whose arm lost more countable time than the other's */
	size_t pairs_losing_more[2];
	double kept_p;			/* two-sided sign test of those */
	double p;			/* Fisher's exact test of lost_any by arm */
	bool even;
	char why[200];			/* when not even, what is uneven */
};

/*
 * Fisher's exact test, two-sided, of a_k of a_n against b_k of b_n: the
 * probability of a table as unlikely as this one with these margins.
 */
double ab_fisher_exact_p(size_t a_k, size_t a_n, size_t b_k, size_t b_n);

/* Sums lost_any, tests it at alpha, compares the kept shares; sets even, why. */
void ab_losses_judge(struct ab_losses *l, double alpha);

/*
 * Whole runs: tried and failed by arm, judged at AB_LOSS_RUNS_ALPHA;
 * checked only when a run failed, so that a clean A/B reports as before.
 */
void ab_losses_of_runs(struct ab_losses *l, const size_t tried[2],
		       const size_t failed[2]);

/* The losses as the JSON report and --save's last line hold them. */
json_t *ab_losses_json(const struct ab_losses *l);

/* One line, "losses by arm: ..." (and NO VERDICT's reason when uneven). */
void ab_losses_print(FILE *out, const struct ab_losses *l);

#endif
