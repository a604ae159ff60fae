/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loopback TCP under reclaim, in one memory cgroup: what cgroup v2 changes
 * with the knob. vmpressure() is what marks a v2 memcg as under socket
 * pressure (held for a second), and TCP in that memcg then stops growing
 * its buffers and shrinks its receive window; kernels with sock_throttled
 * in memory.events count each time TCP found the pressure.
 *
 * One child joins the memcg (sockets are charged to the memcg of the task
 * that creates them), enters a network namespace of its own where it can
 * (loopback only), and runs three processes there: a receiver that reads
 * NETLOAD_READ_BYTES and then sleeps NETLOAD_READ_PAUSE_US, so its queue
 * stays full; the reclaim hog of reclaim.h; and the sender, which writes
 * until the hog is done and samples its socket meanwhile.
 */
#ifndef VMPCTL_NETLOAD_H
#define VMPCTL_NETLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cgroup.h"
#include "reclaim.h"

#include <jansson.h>

#define NETLOAD_WRITE_BYTES (64u << 10)
#define NETLOAD_READ_BYTES (64u << 10)
#define NETLOAD_READ_PAUSE_US 1000

/* Child exit code: the sockets or the namespace could not be set up. */
#define NETLOAD_EXIT_SETUP 123

/* What the sender and the receiver saw (filled in the child). */
struct net_figures {
	bool private_netns;	/* a network namespace of its own */
	uint64_t bytes;		/* received */
	double seconds;		/* from connect to the last byte sent */
	uint64_t sndbuf_max;	/* SO_SNDBUF of the sender, largest sample */
	uint64_t sndbuf_last;
	uint64_t rcvbuf_max;	/* SO_RCVBUF of the receiver, largest sample */
	uint64_t rcv_ssthresh_min;	/* TCP_INFO of the receiver, after 1 s */
	/*
	 * Times the receiver's rcv_ssthresh went down between two samples.
	 * Left alone it only grows; under memory pressure TCP cuts it to
	 * 4 x advmss (tcp_adjust_rcv_ssthresh(), tcp_clamp_window()).
	 */
	uint64_t rcv_ssthresh_drops;
	uint64_t advmss;		/* the receiver's */
	uint64_t retrans;	/* tcpi_total_retrans of the sender */
	uint64_t samples;
};

/* Received bytes per second; 0 without time. */
double net_throughput(const struct net_figures *f);

/*
 * Runs the three processes in cg until the hog has done job; the figures
 * go to fig, the child's end to result as reclaim_run() reports it
 * (oom_killed when any of the three was). 0 or -errno of fork/mmap.
 */
int netload_run(const struct memcg *cg, const struct reclaim_job *job,
		struct net_figures *fig, struct reclaim_result *result);

/* The figures as a JSON object (a contract with the guest tests). */
json_t *net_figures_json(const struct net_figures *f);

/* sock_throttled from memory.events; -ENOENT where the kernel has none. */
int memcg_read_sock_throttled(const struct memcg *cg, uint64_t *count);

#endif
