/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where vmpctl ab --interleave reads a workload's progress from, besides
 * the project's own rate lines (rate.h): each source turns what it reads
 * into report intervals (struct rate_interval) for the slices.
 *
 * Each source is a plug-in: a struct ab_source_ops in a file of its own
 * (source_NAME.c) with its own state, listed once in source_list.h; the
 * table (source_table.c) and the options (source_options.c) find it
 * there. Lines of the command's output, stamped with CLOCK_MONOTONIC when
 * they arrive:
 *  - --rate-regex REGEX: group 1 (or the match) is a rate per second; the
 *    interval is the time since the previous matching line arrived;
 *  - --count-regex REGEX: group 1 is the work done since the previous
 *    matching line;
 *  - --preset NAME: the periodic reports of a known program. Where the
 *    program stamps its own intervals (sysbench's "[ 2s ]", pgbench's
 *    "progress: 2.0 s", iperf3's "1.00-2.00 sec", fio's timestamp_ms),
 *    the interval's length is the program's and it ends on arrival.
 * The first matching line of a regex, and fio's first report, only start
 * the count: what came before them has no known beginning.
 *
 * A polled source, read by vmpctl itself around every slice boundary
 * whatever the command prints: --counter SPEC, a kernel counter
 * (source_counter.h spells SPEC), for a workload that prints nothing.
 *
 * Latency, where the program reports it per interval, comes with the
 * sample: a mean, and a percentile where the program gives one.
 */
#ifndef VMPCTL_AB_SOURCES_H
#define VMPCTL_AB_SOURCES_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rate.h"

/* One report interval, with latency when the source has it. */
struct ab_sample {
	struct rate_interval iv;
	double lat_mean_ms;	/* NaN: not reported */
	double lat_pct_ms;	/* NaN: not reported */
	double lat_pct;		/* which percentile lat_pct_ms is (95) */
};

/* A sample of count over interval_s ending at arrival, no latency yet. */
static inline void ab_sample_init(struct ab_sample *out, double arrival,
				  double interval_s, double count)
{
	*out = (struct ab_sample){
		.iv = { .t = arrival, .interval_s = interval_s, .count = count },
		.lat_mean_ms = NAN, .lat_pct_ms = NAN, .lat_pct = NAN,
	};
}

/*
 * A rate the program measured over its own interval, from the end of its
 * last one (*last_stamp, then stamp: its elapsed seconds) to this line's
 * arrival: 1 with the sample, or -EINVAL.
 */
static inline int ab_stamped_rate(double *last_stamp, double stamp, double rate,
				  double arrival, struct ab_sample *out)
{
	double interval_s = stamp - *last_stamp;

	*last_stamp = stamp;
	if (!(interval_s > 0) || !(rate >= 0) || !isfinite(rate))
		return -EINVAL;
	ab_sample_init(out, arrival, interval_s, rate * interval_s);
	return 1;
}

/* Which option picks a source; at most one of each, and rules between them. */
enum ab_source_family {
	AB_SOURCE_REGEX,	/* --rate-regex, --count-regex */
	AB_SOURCE_PRESET,	/* --preset NAME */
	AB_SOURCE_COUNTER,	/* --counter */
	AB_SOURCE_FAMILIES
};

/*
 * A source of progress: one file each (source_NAME.c), listed once in
 * source_list.h. A line source has take(), a polled source sample().
 */
struct ab_source_ops {
	const char *name;	/* --preset NAME, or what the warnings call it */
	const char *option;	/* the option that picks it, without dashes */
	enum ab_source_family family;
	bool on_stderr;		/* the program prints its reports on stderr */
	/* "sysbench's reports", ...: what the slices' counts are */
	void (*describe)(const struct ab_source_ops *ops, const char *arg,
			 char *buf, size_t size);
	/*
	 * After all options: what the source needs of arg (*config, freed by
	 * unconfigure); target is the --cgroup directory or /proc/PID, NULL
	 * without one. NULL: nothing. 0 or -EINVAL (printed).
	 */
	int (*configure)(const struct ab_source_ops *ops, const char *arg,
			 const char *target, void **config);
	void (*unconfigure)(void *config);
	/* its state: state_size bytes, zeroed before the first line or reading */
	size_t state_size;
	/*
	 * A line source: one line of output (NUL-terminated, shorter than
	 * RATE_LINE_MAX unless whole_lines), as ab_source_take().
	 */
	bool whole_lines;
	int (*take)(void *state, const void *config, const char *line, size_t len,
		    double arrival, struct ab_sample *out);
	/* the output ended: as ab_source_finish(); NULL: nothing held */
	int (*finish)(void *state, struct ab_sample *out);
	/* A polled source: one reading now, as ab_source_sample(). */
	int (*sample)(void *state, const void *config, bool since_last,
		      struct ab_sample *out);
	/* what the state holds besides itself; NULL: nothing */
	void (*release)(void *state);
};

/* Every source, from source_list.h; NULL-terminated. */
extern const struct ab_source_ops *const ab_sources[];

/* The source --preset name picks; NULL when none. */
const struct ab_source_ops *ab_source_preset(const char *name);
/* The source --option (no dashes) picks, other than a preset; NULL: none. */
const struct ab_source_ops *ab_source_by_option(const char *option);

/*
 * The presets in the table's order, for --help and --preset's error:
 * "sysbench, fio, iperf3 or pgbench".
 */
void ab_source_preset_names(char *buf, size_t size);

/* A source while the command runs. */
struct ab_source {
	const struct ab_source_ops *ops;	/* NULL: the project's rate lines */
	const void *config;
	void *state;
};

/* ops's source with its configuration (NULL: none needed). */
void ab_source_open(struct ab_source *src, const struct ab_source_ops *ops,
		    const void *config);
void ab_source_free(struct ab_source *src);

/* What the warnings call the source: "sysbench", "regex", ... */
const char *ab_source_name(const struct ab_source *src);

/* Whether it reads the command's lines (ab_source_take()). */
bool ab_source_takes_lines(const struct ab_source *src);

/*
 * Whether vmpctl reads it on time (ab_source_sample()): its progress does
 * not wait for the command's reports, so no report interval to stall on.
 */
bool ab_source_polled(const struct ab_source *src);

/*
 * One line of output (without its newline) that arrived at arrival
 * (CLOCK_MONOTONIC seconds): 1 with a sample in *out, 0 when the line
 * gives none, -EINVAL when it is a report whose numbers make no sense
 * (the sample is dropped), -ENOMEM.
 */
int ab_source_take(struct ab_source *src, const char *line, size_t len,
		   double arrival, struct ab_sample *out);

/*
 * The output ended: 1 with a sample held back (iperf3's last interval,
 * waiting for a [SUM] line that did not come), else 0.
 */
int ab_source_finish(struct ab_source *src, struct ab_sample *out);

/*
 * A polled source read now: 1 with the interval since its last reading
 * in *out, 0 when there is none (the first reading, a reading right after
 * a flip with since_last false, or a counter that went back), else -errno
 * (printed).
 */
int ab_source_sample(struct ab_source *src, bool since_last,
		     struct ab_sample *out);

/* One source's option as given. */
struct ab_source_pick {
	const struct ab_source_ops *ops;	/* NULL: not given */
	const char *arg;
};

/* What ab's options say about the source of progress. */
struct ab_source_options {
	struct ab_source_pick picked[AB_SOURCE_FAMILIES];
	void *config;			/* the picked source's, configured */
	bool from_stderr;		/* --rate-stderr, or the preset's */
	const char *cgroup;		/* --cgroup */
	unsigned int pid;		/* --pid; 0: none */
	char target[4096];		/* the cgroup's directory or /proc/PID */
	char *attach_argv[3];		/* no command: what the report names */
	char pid_text[24];
};

/*
 * A source's option by its long name (no dashes): --preset, --rate-regex,
 * --count-regex, --counter; 0 or -EINVAL (printed).
 */
int ab_source_option(const char *name, const char *value,
		     struct ab_source_options *src);

/*
 * After all options: checks they fit together (interleave_s > 0: the
 * mode; has_cmd: a command was given) and configures the picked source.
 * 0 or -EINVAL (printed, nothing left configured).
 */
int ab_source_finish_options(struct ab_source_options *src,
			     double interleave_s, double max_time_s,
			     bool has_cmd);

/* The source the options picked, or the project's rate lines. */
void ab_source_init(struct ab_source *src, const struct ab_source_options *o);

/*
 * What the slices' counts are, for the report: "the command's rate
 * lines", "sysbench's reports", "counter memory.stat:pgfault", ...
 */
const char *ab_source_describe(const struct ab_source_options *src,
			       char *buf, size_t size);

/* No command: ab watches a running cgroup or process. */
bool ab_source_attached(const struct ab_source_options *src);

void ab_source_options_free(struct ab_source_options *src);

#endif
