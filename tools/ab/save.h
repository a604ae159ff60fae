/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab --save: each run, or each slice of the interleaved run, as
 * one JSON line the moment it is final; the report's JSON line last.
 * Nothing is written without --save.
 */
#ifndef VMPCTL_AB_SAVE_H
#define VMPCTL_AB_SAVE_H

#include "ab.h"
#include "session.h"

/* The run just added as s->runs[s->n_runs - 1]. */
void ab_save_run(struct ab_session *s, const struct ab_run *run);

/* Slice index of s->il, as it became final (times from the first flip). */
void ab_save_slice(struct ab_session *s, size_t index);

#endif
