// SPDX-License-Identifier: GPL-2.0
/*
 * --preset iperf3: iperf3 -i N --forceflush (3.12 has no --json-stream),
 * tested on its recorded output (tests/unit/fixtures/workloads).
 */
#include "sources.h"

#include <stdio.h>
#include <string.h>

/* One interval's stream lines, until its [SUM] or the next interval. */
struct iperf3_state {
	bool pending;
	struct ab_sample pending_sample;
	double pending_begin;	/* the program's interval */
	double pending_end;
};

static double unit_bytes(const char *unit)
{
	static const char prefixes[] = "KMGT";
	const char *p;

	if (strcmp(unit, "Bytes") == 0)
		return 1;
	p = strchr(prefixes, unit[0]);
	if (!unit[0] || !p || strcmp(unit + 1, "Bytes") != 0)
		return NAN;
	/* iperf3 counts transfers in powers of 1024 */
	return pow(1024, (double)(p - prefixes + 1));
}

/*
 * One line per stream and interval, then a [SUM] line when there are
 * several streams; the totals at the end name their side.
 *   [  5]   1.00-2.00   sec  2.10 GBytes  18.0 Gbits/sec   20   2.50 MBytes
 *   [SUM]   1.00-2.01   sec  1.23 GBytes  10.5 Gbits/sec   36
 * A stream's interval is held until the next line says whether a [SUM]
 * follows it.
 */
static int take(void *state, const void *config, const char *line, size_t len,
		double arrival, struct ab_sample *out)
{
	struct iperf3_state *s = state;
	char tag[16], unit[16];
	double begin, end, amount, scale;
	int ret = 0;

	(void)config;
	(void)len;
	if (sscanf(line, "[%15[^]]] %lf-%lf sec %lf %15s", tag, &begin, &end,
		   &amount, unit) != 5 ||
	    strstr(line, "sender") || strstr(line, "receiver"))
		return 0;
	scale = unit_bytes(unit);
	if (!isfinite(scale) || !(end > begin) || !(amount >= 0))
		return -EINVAL;
	if (strstr(tag, "SUM")) {
		/* the streams' lines held back were this interval's parts */
		s->pending = false;
		ab_sample_init(out, arrival, end - begin, amount * scale);
		return 1;
	}
	if (s->pending && begin == s->pending_begin && end == s->pending_end) {
		/* another stream of the same interval */
		s->pending_sample.iv.count += amount * scale;
		s->pending_sample.iv.t = arrival;
		return 0;
	}
	if (s->pending) {
		*out = s->pending_sample;
		ret = 1;
	}
	ab_sample_init(&s->pending_sample, arrival, end - begin, amount * scale);
	s->pending_begin = begin;
	s->pending_end = end;
	s->pending = true;
	return ret;
}

/* The last interval, when no [SUM] line came after it. */
static int finish(void *state, struct ab_sample *out)
{
	struct iperf3_state *s = state;

	if (!s->pending)
		return 0;
	*out = s->pending_sample;
	s->pending = false;
	return 1;
}

const struct ab_source_ops ab_source_iperf3 = {
	.name = "iperf3",
	.option = "preset",
	.family = AB_SOURCE_PRESET,
	.state_size = sizeof(struct iperf3_state),
	.take = take,
	.finish = finish,
};
