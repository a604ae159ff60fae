/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rate lines: what a workload prints with --report-interval, and what
 * vmpctl ab --interleave reads from any command. One JSON object per line
 * on stdout, one per interval:
 *
 *   {"t":1234.567890,"interval_s":0.100012,"count":4711,"rate":47104.4}
 *
 *   t           CLOCK_MONOTONIC seconds (clock_gettime(2)) at the end of
 *               the interval: the clock every process of the machine
 *               shares, unless a time namespace sits in between
 *   interval_s  the interval's length in seconds (> 0): it began at
 *               t - interval_s
 *   count       the work done in the interval (faults, bytes, ...): a
 *               number >= 0, summed over a slice by vmpctl ab
 *   rate        count / interval_s, for people; a reader computes its
 *               own from count and interval_s
 *
 * Intervals follow each other without gaps (each begins where the last
 * ended) and the last one, when the workload ends, may be shorter. Other
 * keys may follow and are ignored; so are other lines.
 *
 * The reporter thread does this for a workload that counts its work in a
 * function: the workload keeps running, the thread wakes every interval
 * (an absolute deadline on CLOCK_MONOTONIC, so the lines do not drift),
 * reads the count and writes the line in one write(2) (below PIPE_BUF:
 * never torn).
 */
#ifndef VMPCTL_RATE_H
#define VMPCTL_RATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A rate line is shorter than this; longer lines are not rate lines. */
#define RATE_LINE_MAX 512
/* --report-interval's range, seconds */
#define RATE_INTERVAL_MIN 0.001
#define RATE_INTERVAL_MAX 3600.0

struct rate_interval {
	double t;		/* end, CLOCK_MONOTONIC seconds */
	double interval_s;
	double count;
};

/* The line for one interval, with its newline; snprintf's result. */
int rate_line_format(char *buf, size_t size, double t, double interval_s,
		     uint64_t count);

/*
 * One line (without its newline) as a rate line: 0; -ENOENT when it is
 * not one (not a JSON object with a "t"); -EINVAL when it has "t" but a
 * field is missing, not a number, or out of range.
 */
int rate_line_parse(const char *line, size_t len, struct rate_interval *out);

struct rate_reporter {
	int fd;
	double interval_s;
	uint64_t (*count)(void *ctx);	/* the work done so far */
	void *ctx;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	bool running;
	int error;		/* the first write error, -errno */
	double last_t;		/* end of the last interval written */
	uint64_t last_count;
};

/*
 * Starts a thread that writes a rate line to fd every interval_s seconds,
 * counting from now. 0 or -errno.
 */
int rate_reporter_start(struct rate_reporter *r, int fd, double interval_s,
			uint64_t (*count)(void *ctx), void *ctx);

/*
 * Stops the thread, which first writes the last, shorter interval (from
 * its last line to now). 0, or the first write error as -errno.
 */
int rate_reporter_stop(struct rate_reporter *r);

#endif
