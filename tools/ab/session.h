/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmpctl ab's two modes share (session.c): the session, the one way
 * to change arms (knob write and read-back, or --switch) and to put the
 * knob back, and the kernel counters of the sanity checks. Whole runs
 * live in run.c, the interleaved mode in interleave.c; command.c drives
 * them.
 */
#ifndef VMPCTL_AB_SESSION_H
#define VMPCTL_AB_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ab.h"
#include "child.h"
#include "latency.h"
#include "knobfile.h"
#include "slices.h"
#include "stats_seq.h"

/* How the interleaved run ended. */
struct ab_interleave_end {
	double elapsed_s;
	size_t lines_invalid;	/* rate lines that broke the contract */
	bool out_of_time;
	bool precision_reached;
	bool command_ended;	/* by itself, before ab had its pairs */
	bool stalled;		/* the watchdog ended it */
	double stalled_s;	/* ... after this long without progress */
	struct stats_seq sequential;	/* --sequential */
	bool sequential_stopped;	/* ... its answer ended the run */
};

struct ab_session {
	struct ab_options opts;
	struct knob knob;		/* unless --switch */
	char knob_label[PATH_MAX + 32];	/* the path, or "--switch 'CMD'" */
	bool vmpressure_knob;
	bool readback_warned;
	bool cut_warned;
	bool switched;			/* --switch ran at least once */
	const char *knob_value;		/* the arm value in force; NULL unknown */
	struct ab_run *runs;		/* whole runs */
	size_t n_runs;
	size_t runs_allocated;
	/*
	 * runs of blocks begun (warmup not), those that failed and those
	 * killed over the run timeout (not among failed), by arm
	 */
	size_t runs_tried[2];
	size_t runs_failed[2];
	size_t runs_timed_out[2];
	double longest_run_s;		/* wall time, warmup included */
	double max_time_end_s;		/* -T's end, monotonic; INFINITY without */
	struct interleave il;		/* --interleave */
	struct ab_interleave_end il_end;
	struct ab_latency latency;	/* --interleave, where the source reports it */
	FILE *save;			/* --save; NULL without */
	size_t slices_saved;
	char restore_path[PATH_MAX];	/* the restore file; "" none */		/* --save: s->il.slices[0..slices_saved) */
};

struct ab_counters {
	bool have_reclaim;
	uint64_t pgscan;
	uint64_t pgsteal;
	bool have_skipped;
	uint64_t skipped;
};

/* Progress on stderr; a reader that went away (EPIPE) stops the A/B. */
void ab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* /proc/vmstat's reclaim counters, and skipped with the vmpressure knob. */
void ab_read_counters(const struct ab_session *s, struct ab_counters *c);
void ab_counter_deltas(const struct ab_counters *before,
		       const struct ab_counters *after, struct ab_run *run);

/* The end of a failed command's stdout, on stderr. */
void ab_print_failed_output(const struct child_output *out);

/*
 * Puts the knob at arm's value (or runs --switch) and reads it back;
 * run->knob_write_s and run->knob_toggled say how long it took and
 * whether the value changed. 0, -EINTR on a stop, else the failure was
 * printed.
 */
int ab_set_arm(struct ab_session *s, enum ab_arm arm, struct ab_run *run);

/* Opens and checks the knob, writing nothing. 0 or the exit status. */
int ab_open_knob(struct ab_session *s);

/*
 * Writes the knob's value as found to a restore file (restorefile.h)
 * before anything changes it; a failure is a warning, the A/B goes on.
 */
void ab_keep_found_value(struct ab_session *s);

/*
 * Back as found (or --switch to arm A), and the restore file removed; 0,
 * or the failure was printed (the restore file is kept and named).
 */
int ab_restore_knob(struct ab_session *s);

/*
 * How long a whole run started at now may take: --run-timeout, else
 * AB_RUN_TIMEOUT_FACTOR times the longest run so far, never before -T
 * ends (without -T, before AB_RUN_TIMEOUT_MIN_S, or AB_FIRST_RUN_TIMEOUT_S
 * while no run has ended): finite, so a hung run always ends.
 */
double ab_run_timeout(const struct ab_session *s, double now);

/*
 * Whole runs: warmup, then blocks until --runs (and --until-precision)
 * are done, into s->runs; report gets the time, the stop reason and the
 * dropped blocks. 0, -EINTR on a stop, -ETIMEDOUT when a run was killed
 * over the run timeout (unless --ignore-failure took it), else the
 * failure was printed.
 */
int ab_run_all(struct ab_session *s, struct ab_schedule *schedule,
	       struct ab_report *report);

/*
 * --interleave: the one long run of the command with the knob flipped
 * every DURATION, into s->il. 0, -EINTR on a stop, -ETIMEDOUT when the
 * watchdog ended it (s->il_end.stalled), else the failure was printed.
 */
int ab_interleave_run(struct ab_session *s, struct ab_schedule *schedule);

#endif
