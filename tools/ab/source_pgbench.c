// SPDX-License-Identifier: GPL-2.0
/*
 * --preset pgbench: pgbench -P N, which reports on stderr; tested on its
 * recorded output (tests/unit/fixtures/workloads).
 */
#include "sources.h"

#include <stdio.h>

struct pgbench_state {
	double last_stamp;	/* its elapsed seconds */
};

/* progress: 2.0 s, 859.0 tps, lat 1.164 ms stddev 0.324, 0 failed */
static int take(void *state, const void *config, const char *line, size_t len,
		double arrival, struct ab_sample *out)
{
	struct pgbench_state *s = state;
	double stamp, rate, ms;
	int fields = sscanf(line, "progress: %lf s, %lf tps, lat %lf ms",
			    &stamp, &rate, &ms);
	int ret;

	(void)config;
	(void)len;
	if (fields < 2)
		return 0;
	ret = ab_stamped_rate(&s->last_stamp, stamp, rate, arrival, out);
	if (ret == 1 && fields == 3)
		out->lat_mean_ms = ms;
	return ret;
}

const struct ab_source_ops ab_source_pgbench = {
	.name = "pgbench",
	.option = "preset",
	.family = AB_SOURCE_PRESET,
	.on_stderr = true,
	.state_size = sizeof(struct pgbench_state),
	.take = take,
};
