// SPDX-License-Identifier: GPL-2.0
/* --rate-regex REGEX: group 1 (or the match) is a rate per second. */
#include "ab.h"
#include "output.h"
#include "source_regex.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ab_regex_describe(const struct ab_source_ops *ops, const char *arg,
		       char *buf, size_t size)
{
	snprintf(buf, size, "--%s '%s'", ops->option, arg);
}

int ab_regex_configure(const struct ab_source_ops *ops, const char *arg,
		       const char *target, void **config)
{
	regex_t *re = malloc(sizeof(*re));
	char why[128];
	int err;

	(void)target;	/* a regex reads lines, no file */
	if (!re) {
		vmpctl_error("ab: --%s: %s", ops->option, strerror(ENOMEM));
		return -EINVAL;
	}
	err = regcomp(re, arg, REG_EXTENDED);
	if (!err) {
		*config = re;
		return 0;
	}
	regerror(err, re, why, sizeof(why));
	vmpctl_error("ab: --%s: '%s': %s", ops->option, arg, why);
	free(re);
	return -EINVAL;
}

void ab_regex_unconfigure(void *config)
{
	regfree(config);
	free(config);
}

int ab_regex_take(struct ab_regex_state *state, const void *config,
		  const char *line, double arrival, bool counts,
		  struct ab_sample *out)
{
	double value, interval_s = arrival - state->last_arrival;
	bool first = !state->started;
	int err = ab_extract_metric(config, line, &value);

	if (err == -ENOENT)
		return 0;
	if (err || !(value >= 0))
		return -EINVAL;
	state->started = true;
	state->last_arrival = arrival;
	if (first || !(interval_s > 0))
		return 0;
	ab_sample_init(out, arrival, interval_s, counts ? value : value * interval_s);
	return 1;
}

static int take_rate(void *state, const void *config, const char *line,
		     size_t len, double arrival, struct ab_sample *out)
{
	(void)len;
	return ab_regex_take(state, config, line, arrival, false, out);
}

const struct ab_source_ops ab_source_regex = {
	.name = "regex",
	.option = "rate-regex",
	.family = AB_SOURCE_REGEX,
	.describe = ab_regex_describe,
	.configure = ab_regex_configure,
	.unconfigure = ab_regex_unconfigure,
	.state_size = sizeof(struct ab_regex_state),
	.take = take_rate,
};
