/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ab --sequential's answer in the report: which of its three rules ended
 * the run, the always-valid interval, what each adjustment removed, and
 * the covariate's balance (text and JSON; the JSON goes to --save too).
 */
#ifndef VMPCTL_AB_SEQUENTIAL_H
#define VMPCTL_AB_SEQUENTIAL_H

#include <stdio.h>

#include "ab.h"
#include "json.h"
#include "stats_seq.h"

/* How a --sequential run ended. */
struct ab_sequential_end {
	const struct stats_seq *seq;
	bool stopped;		/* its answer ended the run */
	bool out_of_time;	/* else -T */
	bool command_ended;	/* else the command's end, else ab stopped it */
};

/* The "sequential:" lines under the table. */
void ab_sequential_print(FILE *out, const struct ab_options *o,
			 const struct ab_sequential_end *end);

/* The report's "sequential" object. */
json_t *ab_sequential_json(const struct ab_options *o,
			   const struct ab_sequential_end *end);

#endif
