/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where vmpctl ab --interleave reads a workload's progress from, besides
 * the project's own rate lines (rate.h): each source turns what it reads
 * into report intervals (struct rate_interval) for the slices.
 *
 * Lines of the command's output (source_lines.c), stamped with
 * CLOCK_MONOTONIC when they arrive:
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
 * A kernel counter (source_counter.c), read by vmpctl itself at every
 * slice boundary, for a workload that prints nothing: see
 * ab_counter_parse().
 *
 * Latency, where the program reports it per interval, comes with the
 * sample: a mean, and a percentile where the program gives one.
 */
#ifndef VMPCTL_AB_SOURCES_H
#define VMPCTL_AB_SOURCES_H

#include <getopt.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rate.h"

enum ab_preset {
	AB_PRESET_NONE,
	AB_PRESET_SYSBENCH,	/* --report-interval N */
	AB_PRESET_FIO,		/* --status-interval N --output-format=json */
	AB_PRESET_IPERF3,	/* -i N --forceflush (3.12 has no --json-stream) */
	AB_PRESET_PGBENCH,	/* -P N, on stderr */
};

/* "sysbench" to AB_PRESET_SYSBENCH; AB_PRESET_NONE when unknown. */
enum ab_preset ab_preset_by_name(const char *name);
const char *ab_preset_name(enum ab_preset preset);
/* Whether the program prints its reports on stderr. */
bool ab_preset_on_stderr(enum ab_preset preset);

/* One report interval, with latency when the source has it. */
struct ab_sample {
	struct rate_interval iv;
	double lat_mean_ms;	/* NaN: not reported */
	double lat_pct_ms;	/* NaN: not reported */
	double lat_pct;		/* which percentile lat_pct_ms is (95) */
};

enum ab_regex_kind { AB_REGEX_RATE, AB_REGEX_COUNT };

struct ab_line_source {
	enum ab_preset preset;	/* AB_PRESET_NONE: the regex */
	const regex_t *re;
	enum ab_regex_kind kind;
	/* between lines */
	bool started;
	double last_arrival;
	double last_stamp;	/* the program's own clock, seconds */
	/* fio: one JSON document over many lines, and its cumulative sums */
	char *doc;
	size_t doc_len;
	size_t doc_size;
	double last_bytes;
	double last_ios;
	double last_lat_ns_sum;
	/* iperf3: one interval's stream lines, until its [SUM] or the next */
	bool pending;
	struct ab_sample pending_sample;
	double pending_begin;	/* the program's interval */
	double pending_end;
};

/* A preset's source, or the regex's (preset AB_PRESET_NONE). */
void ab_line_source_init(struct ab_line_source *src, enum ab_preset preset,
			 const regex_t *re, enum ab_regex_kind kind);
void ab_line_source_free(struct ab_line_source *src);

/*
 * One line of output (without its newline) that arrived at arrival
 * (CLOCK_MONOTONIC seconds): 1 with a sample in *out, 0 when the line
 * gives none, -EINVAL when it is a report whose numbers make no sense
 * (the sample is dropped), -ENOMEM.
 */
int ab_line_source_take(struct ab_line_source *src, const char *line,
			size_t len, double arrival, struct ab_sample *out);

/*
 * The output ended: 1 with a sample held back (iperf3's last interval,
 * waiting for a [SUM] line that did not come), else 0.
 */
int ab_line_source_finish(struct ab_line_source *src, struct ab_sample *out);

/*
 * A kernel counter, one spelling for all of them: FILE[:FIELD[+FIELD...]]
 *
 *   FILE    an absolute path, or a name relative to the target: the
 *           --cgroup directory, or /proc/PID with --pid
 *   FIELD   the value of that key in FILE, which may be
 *             "key value" lines (memory.stat, cpu.stat, /proc/vmstat),
 *             "key: value" lines (/proc/PID/io),
 *             "DEV key=value ..." lines (io.stat: summed over devices,
 *             or one device as MAJ:MIN.key),
 *             /proc/net/dev (IFACE.rx_bytes, IFACE.tx_packets, ...);
 *           several joined by '+' are summed; no FIELD: FILE holds one
 *           number (/sys/class/net/IFACE/statistics/rx_bytes)
 *
 * e.g. memory.stat:pgfault, cpu.stat:usage_usec, io.stat:rbytes+wbytes,
 * /proc/vmstat:pgfault, /proc/net/dev:eth0.rx_bytes, io:write_bytes.
 */
#define AB_COUNTER_FIELDS_MAX 8

struct ab_counter {
	char file[4096];
	size_t n_fields;
	char fields[AB_COUNTER_FIELDS_MAX][64];
};

/*
 * Parses spec; a relative FILE is joined to base (NULL: no target, so a
 * relative FILE is an error). 0 or -EINVAL (printed, naming the option).
 */
int ab_counter_parse(const char *spec, const char *base,
		     struct ab_counter *counter);

/*
 * The counter's value in text (FILE's contents): 0, or -ENOENT when a
 * field is not there, -EINVAL when its value is not a number.
 */
int ab_counter_value(const struct ab_counter *counter, const char *text,
		     double *value);

/* Reads FILE and finds the value: 0 or -errno. */
int ab_counter_read(const struct ab_counter *counter, double *value);

/* The counter's last reading, between slice boundaries. */
struct ab_counter_sampler {
	bool have_last;
	double last_t;
	double last_value;
};

/*
 * Reads the counter now: 1 with the interval since the last reading in
 * *iv, 0 when there is none (the first reading, a reading right after a
 * flip with since_last false, or a counter that went back), else -errno
 * (printed).
 */
int ab_counter_sample(const struct ab_counter *counter,
		      struct ab_counter_sampler *sampler, bool since_last,
		      struct rate_interval *iv);

/* What ab's options say about the source of progress. */
struct ab_source_options {
	const char *regex_text;		/* --rate-regex or --count-regex */
	enum ab_regex_kind regex_kind;
	regex_t regex;
	bool regex_compiled;
	enum ab_preset preset;		/* --preset */
	bool from_stderr;		/* --rate-stderr, or the preset's */
	const char *counter_spec;	/* --counter */
	struct ab_counter counter;
	const char *cgroup;		/* --cgroup */
	unsigned long pid;		/* --pid; 0: none */
	char target[4096];		/* the cgroup's directory or /proc/PID */
	char *attach_argv[3];		/* no command: what the report names */
	char pid_text[24];
};

/* A progress-source option by its long name (no dashes); 0 or -EINVAL (printed). */
int ab_source_option(const char *name, const char *value,
		     struct ab_source_options *src);

/*
 * After all options: checks they fit together (interleave_s > 0: the
 * mode; has_cmd: a command was given) and resolves the counter's path.
 * 0 or -EINVAL (printed).
 */
int ab_source_finish_options(struct ab_source_options *src,
			     double interleave_s, double max_time_s,
			     bool has_cmd);

/* Whether the command's output is read through a preset or regex. */
bool ab_source_reads_lines(const struct ab_source_options *src);

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
