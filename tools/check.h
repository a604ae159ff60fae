/* SPDX-License-Identifier: GPL-2.0 */
/* vmpctl check: three measurements (knob 1, 0, 1) and their verdict. */
#ifndef VMPCTL_CHECK_H
#define VMPCTL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "measure.h"

#define CHECK_PHASES 3

/* Knob value of each phase: enabled, disabled, re-enabled. */
extern const int check_phase_knob[CHECK_PHASES];
extern const char *const check_phase_name[CHECK_PHASES];

/*
 * The verdict on three complete measurements. With events (levels != 0):
 * events > 0 while enabled, exactly 0 while disabled, > 0 re-enabled.
 * Always: skipped grows while disabled and stays put while enabled (the
 * stock state registers nothing), and every phase reclaimed (pgscan > 0),
 * else vmpressure() never ran and the phase proves nothing.
 * Returns true on pass; reason says why in one line either way.
 */
bool check_judge(const struct measurement phase[CHECK_PHASES], char *reason,
		 size_t size);

/* check's options: measure's and the table's (--raw, --noheadings, --output). */
enum parse_result check_parse_args(int argc, char **argv,
				   struct measure_opts *opts);

void check_print_table(FILE *out, const struct measurement phase[CHECK_PHASES],
		       size_t phases_done);
/* One line; 0 or -errno (json_print_line()). */
int check_print_json(FILE *out, const struct measurement phase[CHECK_PHASES],
		     bool pass, const char *reason);

#endif
