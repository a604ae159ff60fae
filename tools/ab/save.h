/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab --save: a header line with the options, then each run, or
 * each slice of the interleaved run, as one JSON line the moment it is
 * final; the report's JSON line last. Nothing is written without --save.
 * load.h reads such a file back.
 */
#ifndef VMPCTL_AB_SAVE_H
#define VMPCTL_AB_SAVE_H

#include "ab.h"
#include "session.h"

/* The version of the lines' layout, in the header */
#define AB_SAVE_FORMAT 1

/*
 * The first line: the options a re-analysis needs (vmpctl ab report),
 * so that a file cut short by a crash can still be read.
 */
void ab_save_header(struct ab_session *s);

/* The run just added as s->runs[s->n_runs - 1]. */
void ab_save_run(struct ab_session *s, const struct ab_run *run);
/*
 * A run of arm that failed or was killed over the run timeout
 * (--ignore-failure goes on), for the losses by arm.
 */
void ab_save_failed_run(struct ab_session *s, enum ab_arm arm, bool timed_out);

/*
 * The slices of s->il not saved yet, in order, as far as they are final
 * (a pair's slices once both are); all: the rest too (the command ended,
 * the open slice last, without an end).
 */
void ab_save_slices(struct ab_session *s, bool all);

#endif
