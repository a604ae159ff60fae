/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl pft: a page-fault workload after Christoph Lameter's page fault
 * test. T threads touch every page of fresh anonymous memory, R times, and
 * the fault rates come out in the original columns:
 *   Gb Rep Thr CLine User(s) System(s) Wall(s) flt/cpu/s fault/wsec
 * With --memcg-limit the work runs in a temporary memory cgroup below its
 * size, so the faults reclaim and vmpressure() runs on every reclaim pass.
 *
 * --duration S touches at a steady rate for S seconds instead of R fresh
 * mappings: each thread cycles through its part of one mapping, dropping
 * each chunk (MADV_DONTNEED) before it touches it again, so every touch
 * still faults a fresh page, and in a memcg the reclaim runs all along
 * instead of starting over with each repetition. --report-interval prints
 * a rate line (rate.h) of the pages touched every interval, for
 * vmpctl ab --interleave.
 */
#ifndef VMPCTL_PFT_H
#define VMPCTL_PFT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"

/* More than this much off between touched pages and minor faults: warn */
#define PFT_FAULT_TOLERANCE 0.10
/* --duration: pages dropped and touched again at a time, per thread */
#define PFT_CHUNK_PAGES 256

struct pft_options {
	uint64_t bytes;		/* per repetition */
	unsigned int threads;
	unsigned int reps;
	bool whole_page;	/* CLine 0: every cache line; else one per page */
	uint64_t memcg_limit;	/* 0: run where we are */
	bool json;
	double duration_s;	/* > 0: steady touching for this long, not reps */
	double report_interval_s;	/* > 0: a rate line this often */
	int report_fd;		/* where rate lines go (cmd_pft: stdout) */
};

struct pft_result {
	uint64_t pages_touched;
	uint64_t minor_faults;
	uint64_t major_faults;
	double user_s;
	double system_s;
	double wall_s;
};

/* Parses argv (argv[0] is "pft"), printing help or the usage error. */
enum parse_result pft_parse_args(int argc, char **argv,
				 struct pft_options *opts);

/*
 * The workload in this process, with the rate lines of
 * --report-interval on opts->report_fd. 0 or -errno.
 */
int pft_run(const struct pft_options *opts, struct pft_result *result);

/* Whole passes over the memory: reps, or with --duration as many as done. */
uint64_t pft_passes(const struct pft_options *opts,
		    const struct pft_result *result);

double pft_faults_per_cpu_second(const struct pft_result *result);
double pft_faults_per_wall_second(const struct pft_result *result);

/* Whether minor faults are within PFT_FAULT_TOLERANCE of pages touched. */
bool pft_faults_match(const struct pft_result *result);

/* The headers of the table, for --output (output.h). */
extern const char *const *const pft_tables[];

void pft_print_table(FILE *out, const struct pft_options *opts,
		     const struct pft_result *result);
/* One line; 0 or -errno (json_print_line()). */
int pft_print_json(FILE *out, const struct pft_options *opts,
		   const struct pft_result *result);

#endif
