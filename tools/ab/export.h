/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab --export-json/--export-csv/--export-markdown FILE: the report
 * also written to files in those formats, beside what the terminal shows
 * (as hyperfine does), for whole runs and interleaved A/Bs alike.
 */
#ifndef VMPCTL_AB_EXPORT_H
#define VMPCTL_AB_EXPORT_H

#include <stdio.h>

#include "ab.h"
#include "slices.h"

/* Prints report (an ab_report or an il_report) in format; 0 or -errno. */
typedef int (*ab_print_fn)(FILE *out, const void *report, enum ab_format format);

/* Each export asked for, written whole; 0, or -1 with the reason printed. */
int ab_write_exports(const struct ab_options *o, ab_print_fn print,
		     const void *report);

/*
 * --export-benchstat: the runs (il NULL) or il's kept slices, one line
 * each in Go's benchmark format; 0, or -1 with the reason printed.
 */
int ab_write_benchstat(const struct ab_options *o, const char *knob_label,
		       const struct ab_run *runs, size_t n_runs,
		       const struct interleave *il);

#endif
