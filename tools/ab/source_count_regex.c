// SPDX-License-Identifier: GPL-2.0
/* --count-regex REGEX: group 1 is the work done since the previous match. */
#include "source_regex.h"

static int take_count(void *state, const void *config, const char *line,
		      size_t len, double arrival, struct ab_sample *out)
{
	(void)len;
	return ab_regex_take(state, config, line, arrival, true, out);
}

const struct ab_source_ops ab_source_count_regex = {
	.name = "regex",
	.option = "count-regex",
	.family = AB_SOURCE_REGEX,
	.describe = ab_regex_describe,
	.configure = ab_regex_configure,
	.unconfigure = ab_regex_unconfigure,
	.state_size = sizeof(struct ab_regex_state),
	.take = take_count,
};
