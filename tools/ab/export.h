/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab --export-json/--export-csv/--export-markdown FILE: the report
 * also written to files in those formats, beside what the terminal shows
 * (as hyperfine does), for whole runs and interleaved A/Bs alike; and
 * --export-benchstat FILE, every run or kept slice in Go's benchmark format.
 */
#ifndef VMPCTL_AB_EXPORT_H
#define VMPCTL_AB_EXPORT_H

#include "result.h"

/* Each --export-* the options ask for; 0, or -1 with the reason printed. */
int ab_result_export(const struct ab_result *r);

#endif
