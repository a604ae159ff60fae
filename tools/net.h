/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl net: a network workload for the A/B on cgroup v2. Loopback TCP
 * (netload.h) runs in a temporary memory cgroup that a reclaim hog holds
 * at its limit, and the figures come out as one row or one JSON object:
 * throughput, retransmits, the socket buffers TCP reached and, where the
 * kernel counts it, sock_throttled. `vmpctl ab -- vmpctl net --json`
 * then says what vmpressure's socket throttling costs this workload.
 */
#ifndef VMPCTL_NET_H
#define VMPCTL_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "measure.h"

/* The size of the earlier 7.3 measurement that moved sock_throttled. */
#define NET_LIMIT_DEFAULT (64ULL << 20)
#define NET_SECONDS_DEFAULT 6.0

struct net_options {
	const char *cgroup;	/* NULL: a temporary cgroup of our own */
	uint64_t limit;		/* memory.max of the temporary cgroup */
	uint64_t size;		/* what the hog touches; 0: 1.5 x limit */
	double seconds;		/* how long the hog touches it, and TCP runs */
	bool json;
};

/* Parses argv (argv[0] is "net"), printing help or the usage error. */
enum parse_result net_parse_args(int argc, char **argv,
				 struct net_options *opts);

/* One run's figures as a table row with its header. */
/* The headers of the table, for --output (output.h). */
extern const char *const *const net_tables[];

void net_print_table(FILE *out, const struct net_options *opts,
		     const struct measurement *m);
/*
 * One line: {"limit":N,"size":N,"seconds":F,"MB/s":F,"bytes":N,
 * "retrans":N,"sndbuf_max":N,"sndbuf_last":N,"rcvbuf_max":N,
 * "rcv_ssthresh_min":N,"rcv_ssthresh_drops":N,"advmss":N,
 * "sock_throttled":N,"private_netns":B,
 * "cgroup_version":N}; sock_throttled null where the kernel has no such
 * counter, rcv_ssthresh_min null without a sample. 0 or -errno.
 */
int net_print_json(FILE *out, const struct net_options *opts,
		   const struct measurement *m);

#endif
