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

/* Prints report (an ab_report or an il_report) in format; 0 or -errno. */
typedef int (*ab_print_fn)(FILE *out, const void *report, enum ab_format format);

/* Each export asked for, written whole; 0, or -1 with the reason printed. */
int ab_write_exports(const struct ab_options *o, ab_print_fn print,
		     const void *report);

#endif
