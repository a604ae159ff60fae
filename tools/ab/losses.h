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
	AB_LOSS_TIMED_OUT,	/* a whole run over --run-timeout, killed */
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
 * the time not counted in final pairs, A's less B's, over the mean time
 * that could be: more apart than this, and one arm losing more time than
 * the other pair by pair (the signed-rank test of B's lost time less
 * A's, below AB_KEPT_TIME_ALPHA), is uneven; chance drops of whole
 * intervals in short slices are neither. The usual level: a skew this
 * large is rare by chance, and at 0.01 a dozen pairs missed a throttled
 * arm that counted a third of its time against A's four fifths
 */
#define AB_KEPT_SHARE_SKEW_MAX 0.10
#define AB_KEPT_TIME_ALPHA 0.05
/*
 * Stalls are counted as their arm's time, not lost (slices.h). Stalls
 * that lean on one arm this far (Fisher's exact test of slices with a
 * stall, A against B) while the rates do not call that arm worse leave
 * no verdict: with a dozen pairs, stalls in a quarter of B's slices are
 * as likely a chance spread (p 2 / 2^k for k stalls all in B) as an
 * effect the signed-rank test cannot resolve, and "~" would deny one
 * that is there. Lenient, since it only ever withholds a verdict.
 */
#define AB_STALL_LEAN_ALPHA 0.25

struct ab_losses {
	bool checked;
	bool slices;			/* slices (interleaved), or whole runs */
	size_t total[2];		/* slices in final pairs, or runs tried */
	size_t lost[AB_LOSS_REASONS][2];
	size_t lost_any[2];
	/*
	 * interleaved, over final pairs: the time that could be counted
	 * (after the flip and --settle, to the next flip), and that was
	 * (none of a slice dropped itself)
	 */
	double ran_s[2];
	double kept_s[2];
	/* two-sided signed-rank p of each final pair's lost time, B's less A's */
	double kept_p;
	/* final paired slices a stall's time is counted in, and their Fisher p */
	size_t stalled[2];
	double stall_p;
	double p;			/* Fisher's exact test of lost_any by arm */
	bool even;
	char why[200];			/* when not even, what is uneven */
};

/*
 * Fisher's exact test, two-sided, of a_k of a_n against b_k of b_n: the
 * probability of a table as unlikely as this one with these margins.
 */
double ab_fisher_exact_p(size_t a_k, size_t a_n, size_t b_k, size_t b_n);

/*
 * Sums lost_any, tests it at alpha, compares the kept shares (kept_p set
 * by the caller); sets even, why.
 */
void ab_losses_judge(struct ab_losses *l, double alpha);

/*
 * Whole runs: tried, failed and timed out (--run-timeout; not among
 * failed) by arm, judged at AB_LOSS_RUNS_ALPHA; checked only when a run
 * was lost, so that a clean A/B reports as before.
 */
void ab_losses_of_runs(struct ab_losses *l, const size_t tried[2],
		       const size_t failed[2], const size_t timed_out[2]);

/* The arm whose slices stall more (AB_STALL_LEAN_ALPHA), or -1. */
int ab_losses_stall_lean(const struct ab_losses *l);

/* The losses as the JSON report and --save's last line hold them. */
json_t *ab_losses_json(const struct ab_losses *l);

/* One line, "losses by arm: ..." (and NO VERDICT's reason when uneven). */
void ab_losses_print(FILE *out, const struct ab_losses *l);

#endif
