/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What --rate-regex (source_regex.c) and --count-regex
 * (source_count_regex.c) share: the regex, compiled once the options are
 * read, and the time between matching lines.
 */
#ifndef VMPCTL_AB_SOURCE_REGEX_H
#define VMPCTL_AB_SOURCE_REGEX_H

#include <stdbool.h>

#include "sources.h"

struct ab_regex_state {
	bool started;
	double last_arrival;
};

void ab_regex_describe(const struct ab_source_ops *ops, const char *arg,
		       char *buf, size_t size);
int ab_regex_configure(const struct ab_source_ops *ops, const char *arg,
		       const char *target, void **config);
void ab_regex_unconfigure(void *config);

/*
 * A line matching the regex (config): its number is the work done since
 * the previous one (counts) or a rate per second over that time. The
 * first match only starts the count.
 */
int ab_regex_take(struct ab_regex_state *state, const void *config,
		  const char *line, double arrival, bool counts,
		  struct ab_sample *out);

#endif
