// SPDX-License-Identifier: GPL-2.0
/*
 * --preset sysbench: sysbench --report-interval N, tested on its recorded
 * output (tests/unit/fixtures/workloads).
 */
#include "sources.h"

#include <stdio.h>
#include <string.h>

struct sysbench_state {
	double last_stamp;	/* its elapsed seconds */
};

/*
 *   [ 2s ] thds: 1 eps: 2097.81 lat (ms,95%): 0.51
 *   [ 2s ] thds: 4 tps: 123.45 qps: 2469.01 (r/w/o: ...) lat (ms,95%): 41.10 ...
 *   [ 2s ] 4479.98 MiB/sec
 */
static int take(void *state, const void *config, const char *line, size_t len,
		double arrival, struct ab_sample *out)
{
	struct sysbench_state *s = state;
	double stamp, rate, pct, ms;
	const char *rest, *key;
	int n = 0, ret;

	(void)config;
	(void)len;
	if (sscanf(line, "[ %lfs ]%n", &stamp, &n) != 1 || !n)
		return 0;
	rest = line + n;
	if ((key = strstr(rest, "tps: ")) || (key = strstr(rest, "eps: "))) {
		if (sscanf(key + 5, "%lf", &rate) != 1)
			return -EINVAL;
	} else if (sscanf(rest, " %lf MiB/sec", &rate) != 1) {
		return 0;
	}
	ret = ab_stamped_rate(&s->last_stamp, stamp, rate, arrival, out);
	key = strstr(rest, "lat (ms,");
	if (ret == 1 && key && sscanf(key, "lat (ms,%lf%%): %lf", &pct, &ms) == 2) {
		out->lat_pct = pct;
		out->lat_pct_ms = ms;
	}
	return ret;
}

const struct ab_source_ops ab_source_sysbench = {
	.name = "sysbench",
	.option = "preset",
	.family = AB_SOURCE_PRESET,
	.state_size = sizeof(struct sysbench_state),
	.take = take,
};
