/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One measurement: force reclaim in a memory cgroup and count what
 * happened (pressure events per level, the module's skipped delta, pages
 * scanned). `vmpctl measure` prints one; `vmpctl check` takes three.
 */
#ifndef VMPCTL_MEASURE_H
#define VMPCTL_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgroup.h"
#include "netload.h"
#include "options.h"
#include "pressure.h"
#include "reclaim.h"
#include "worktrace.h"

#include <jansson.h>

#define MEASURE_LIMIT_DEFAULT (32ULL << 20)
#define MEASURE_PASSES_DEFAULT 2

struct measure_opts {
	const char *cgroup;	/* NULL: a temporary cgroup of our own */
	uint64_t size;		/* bytes; 0: twice limit */
	uint64_t limit;		/* bytes */
	double seconds;		/* 0: MEASURE_PASSES_DEFAULT full passes */
	unsigned int levels;
	enum pressure_mode mode;
	bool json;
};

/* The option table rows of measure, which check has too. */
#define MEASURE_OPTIONS \
	{ "cgroup", 'c', OPT_TEXT, offsetof(struct measure_opts, cgroup), 0, 0, false, NULL }, \
	{ "level", 'l', OPT_LEVELS, offsetof(struct measure_opts, levels), 0, 0, false, NULL }, \
	{ "mode", 'm', OPT_MODE, offsetof(struct measure_opts, mode), 0, 0, false, NULL }, \
	{ "size", 's', OPT_SIZE, offsetof(struct measure_opts, size), 0, 0, false, NULL }, \
	{ "limit", 'L', OPT_SIZE, offsetof(struct measure_opts, limit), 0, 0, false, NULL }, \
	{ "seconds", 't', OPT_SECONDS, offsetof(struct measure_opts, seconds), 0, 0, false, NULL }, \
	{ "json", 'j', OPT_TRUE, offsetof(struct measure_opts, json), 0, 0, false, NULL }

/* measure's options. */
enum parse_result measure_parse_args(int argc, char **argv,
				     struct measure_opts *opts);
/*
 * A parser whose table holds MEASURE_OPTIONS into opts, run with the
 * defaults set first and --size's default (2 x --limit) after.
 */
enum parse_result measure_parse_options(const struct opt_parser *parser,
					int argc, char **argv,
					struct measure_opts *opts);
/* The usage of measure and check: what the command does, its -j output, more options. */
void measure_print_usage(FILE *out, const char *cmd, const char *what,
			 const char *json_what, const char *more_options);

struct measurement {
	int cgroup_version;
	unsigned int levels;		/* registered levels; 0: no events */
	uint64_t events[PRESSURE_LEVELS];
	bool have_skipped;		/* module loaded */
	uint64_t skipped_delta;
	bool have_pgscan;
	uint64_t pgscan;
	double seconds;
	struct reclaim_result child;
	bool have_net;			/* cgroup v2: TCP ran next to the reclaim */
	struct net_figures net;
	bool have_sock_throttled;	/* memory.events has sock_throttled */
	uint64_t sock_throttled;	/* its delta */
	bool have_work_fn;		/* the kernel's tracer counted (worktrace.h) */
	uint64_t work_fn_runs;		/* runs of vmpressure_work_fn */
};

uint64_t measurement_events_total(const struct measurement *m);

/*
 * The JSON object of vmpctl measure --json (a contract: the VM guest
 * tests parse it): {"cgroup_version":N,"events":{"low":N,"medium":N,
 * "critical":N},"skipped_delta":N,"pgscan":N,"seconds":F,
 * "sock_throttled":N,"net":{...}}. events is null without registered
 * levels, a level not registered is null, skipped_delta is null without
 * the module, pgscan null when unreadable; sock_throttled is null where
 * memory.events has no such counter, net (net_figures_json()) null on
 * cgroup v1, where no TCP runs.
 */
json_t *measurement_json(const struct measurement *m);

struct measure_session {
	const char *cmd;
	struct memcg cg;
	struct pressure_listener listener;
	struct reclaim_job job;
	/* Why there are no events: -ENOENT (no memory.pressure_level), ... */
	int events_error;
	/* cgroup v2: loopback TCP next to the reclaim (netload.h) */
	bool socket_load;
	bool have_sock_throttled;
	/* cgroup v2 without sock_throttled: the kernel's count of vmpressure's work */
	struct work_trace trace;
	bool have_work_trace;
};

/*
 * Creates or opens the cgroup and registers the listener. Prints its own
 * errors; returns 0 or the exit code. On failure nothing is left behind.
 */
int measure_open(struct measure_session *s, const struct measure_opts *opts,
		 const char *cmd);

/* Runs one child and fills m. Prints its own errors; 0 or exit code. */
int measure_run(struct measure_session *s, struct measurement *m);

/* Unregisters and removes the temporary cgroup; 0 or exit code. */
int measure_close(struct measure_session *s);

/* Prints "vmpctl: CMD: interrupted by SIGxxx" and re-raises the signal. */
void measure_report_interrupt(const char *cmd, const char *what_was_restored);

#endif
