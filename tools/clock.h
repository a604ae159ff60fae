/* SPDX-License-Identifier: GPL-2.0 */
/* The one clock for durations (CLOCK_MONOTONIC), and rusage times. */
#ifndef VMPCTL_CLOCK_H
#define VMPCTL_CLOCK_H

#include <sys/time.h>

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double monotonic_s(void);

/* A struct timeval (rusage CPU times) in seconds. */
double timeval_s(const struct timeval *tv);

#endif
