/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads back what vmpctl ab --save wrote (save.h): the header's options,
 * then the runs or the final slices, as they were measured. A file cut
 * short (a crash, a kill -9) is read as far as it goes; the report line
 * at its end, when there is one, is not needed.
 */
#ifndef VMPCTL_AB_LOAD_H
#define VMPCTL_AB_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "ab.h"
#include "slices.h"

struct ab_saved {
	const char *path;
	struct ab_options opts;	/* strings owned by header */
	const char *knob_label;
	bool interleaved;
	struct ab_run *runs;	/* whole runs */
	size_t n_runs;
	size_t runs_failed[2];	/* whole runs: failed_run lines by arm */
	size_t runs_timed_out[2];	/* ... of them "why":"timed out" (not in runs_failed) */
	struct interleave il;	/* --interleave: the final slices */
	double elapsed_s;	/* to the end of the last saved slice */
	json_t *header;
};

/* 0, or the exit status with the reason printed ("ab report: FILE: ..."). */
int ab_saved_load(const char *path, struct ab_saved *saved);
void ab_saved_free(struct ab_saved *saved);

#endif
