/* SPDX-License-Identifier: GPL-2.0 */
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
 *
 * --counter's source (source_counter.c) reads one as ab's progress;
 * --covariate reads one for the sequential test.
 */
#ifndef VMPCTL_AB_SOURCE_COUNTER_H
#define VMPCTL_AB_SOURCE_COUNTER_H

#include <stddef.h>

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

#endif
