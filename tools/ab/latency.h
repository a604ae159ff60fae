/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency beside the rate in ab --interleave, where the workload reports
 * it per interval (sources.h: pgbench's and fio's means, sysbench's 95th
 * percentile): each slice's latency is the mean of its kept intervals'
 * figures weighted by their length, and the kept pairs are compared like
 * the rate (paired, sign-flip test of 100 (b_i - a_i) / mean A). Lower
 * is better. A percentile averaged over intervals is not the slices'
 * percentile, but it moves with it, which is what a paired test needs.
 * Only the named metric (the rate) gets a verdict, so that a verdict is
 * one test at 5% and needs no correction for many: latency is printed
 * as a figure, its p unadjusted and without a verdict of its own.
 */
#ifndef VMPCTL_AB_LATENCY_H
#define VMPCTL_AB_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "slices.h"
#include "sources.h"
#include "stats_paired.h"
#include "stats_signflip.h"

/* One slice's latencies: sums of figure x interval length, and the lengths. */
struct ab_slice_latency {
	double mean_sum;
	double mean_time_s;
	double pct_sum;
	double pct_time_s;
};

struct ab_latency {
	struct ab_slice_latency *slices;	/* by slice index */
	size_t allocated;
	double pct;		/* the percentile the source reports; NaN none */
};

/*
 * The sample's latency into the slice its interval went to: call after
 * il_add_interval() put it in one. 0 or -ENOMEM.
 */
int ab_latency_add(struct ab_latency *lat, const struct interleave *il,
		   const struct ab_sample *sample);
void ab_latency_free(struct ab_latency *lat);

struct ab_latency_cmp {
	bool compared;		/* at least 2 kept pairs with the figure */
	struct stats_paired cmp;
	struct stats_signflip test;
};

struct ab_latency_report {
	struct ab_latency_cmp mean;
	struct ab_latency_cmp pct;
	double pct_level;
};

/*
 * The kept pairs' latencies compared; 0 or -ENOMEM. Neither compared
 * when the source reports no latency.
 */
int ab_latency_build(const struct ab_latency *lat, const struct interleave *il,
		     unsigned long seed, struct ab_latency_report *r);

/* A line per figure compared; nothing when none was. */
void ab_latency_print_table(FILE *out, const struct ab_latency_report *r);
/* {"mean_ms":{...},"pct":95,"pct_ms":{...}}, or NULL when none was compared. */
json_t *ab_latency_json(const struct ab_latency_report *r);

#endif
