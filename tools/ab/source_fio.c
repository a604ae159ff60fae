// SPDX-License-Identifier: GPL-2.0
/*
 * --preset fio: fio --status-interval N --output-format=json, tested on
 * its recorded output (tests/unit/fixtures/workloads).
 */
#include "sources.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* fio's JSON report of one interval is some 10 KiB per job */
#define FIO_DOC_MAX (4u << 20)

/* One JSON document over many lines, and the cumulative sums before it. */
struct fio_state {
	char *doc;
	size_t doc_len;
	size_t doc_size;
	bool started;
	double last_stamp;	/* its timestamp_ms, in seconds */
	double last_bytes;
	double last_ios;
	double last_lat_ns_sum;
};

static double number_at(json_t *object, const char *key)
{
	json_t *v = json_object_get(object, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * One of fio's JSON reports: cumulative bytes and I/Os of every job and
 * direction since the start, and its own timestamp_ms. The difference to
 * the report before is the interval's; so is the mean latency, from the
 * cumulative means.
 */
static int take_document(struct fio_state *s, double arrival,
			 struct ab_sample *out)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	double bytes = 0, ios = 0, lat_ns_sum = 0, stamp, interval_s;
	json_t *doc = json_loadb(s->doc, s->doc_len, 0, NULL);
	json_t *jobs = json_object_get(doc, "jobs"), *job;
	size_t i;
	int ret = 1;

	stamp = number_at(doc, "timestamp_ms") / 1e3;
	if (!json_is_array(jobs) || !isfinite(stamp)) {
		json_decref(doc);
		return json_is_object(doc) ? -EINVAL : 0;
	}
	json_array_foreach(jobs, i, job) {
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			json_t *dir = json_object_get(job, dirs[d]);
			double n = number_at(dir, "total_ios");
			double mean = number_at(json_object_get(dir, "lat_ns"), "mean");

			bytes += number_at(dir, "io_bytes");
			if (n > 0 && isfinite(mean)) {
				ios += n;
				lat_ns_sum += n * mean;
			}
		}
	}
	json_decref(doc);
	if (!isfinite(bytes))
		return -EINVAL;
	interval_s = stamp - s->last_stamp;
	if (!s->started) {
		ret = 0;
	} else if (!(interval_s > 0) || bytes < s->last_bytes) {
		ret = -EINVAL;
	} else {
		ab_sample_init(out, arrival, interval_s, bytes - s->last_bytes);
		if (ios > s->last_ios)
			out->lat_mean_ms = (lat_ns_sum - s->last_lat_ns_sum) /
				(ios - s->last_ios) / 1e6;
	}
	s->started = true;
	s->last_stamp = stamp;
	s->last_bytes = bytes;
	s->last_ios = ios;
	s->last_lat_ns_sum = lat_ns_sum;
	return ret;
}

/* fio's reports begin with "{" and end with "}", each on a line alone. */
static int take(void *state, const void *config, const char *line, size_t len,
		double arrival, struct ab_sample *out)
{
	struct fio_state *s = state;
	bool opening = len == 1 && line[0] == '{';
	bool closing = len == 1 && line[0] == '}';
	int ret;

	(void)config;
	if (!s->doc_len && !opening)
		return 0;
	if (s->doc_len + len + 2 > FIO_DOC_MAX) {
		s->doc_len = 0;
		return -EINVAL;
	}
	if (s->doc_len + len + 2 > s->doc_size) {
		size_t size = s->doc_size ? s->doc_size : 65536;
		char *doc;

		while (size < s->doc_len + len + 2)
			size *= 2;
		doc = realloc(s->doc, size);
		if (!doc)
			return -ENOMEM;
		s->doc = doc;
		s->doc_size = size;
	}
	memcpy(s->doc + s->doc_len, line, len);
	s->doc_len += len;
	s->doc[s->doc_len++] = '\n';
	if (!closing)
		return 0;
	s->doc[s->doc_len] = '\0';
	ret = take_document(s, arrival, out);
	s->doc_len = 0;
	return ret;
}

static void release(void *state)
{
	struct fio_state *s = state;

	free(s->doc);
	s->doc = NULL;
}

const struct ab_source_ops ab_source_fio = {
	.name = "fio",
	.option = "preset",
	.family = AB_SOURCE_PRESET,
	.state_size = sizeof(struct fio_state),
	.whole_lines = true,
	.take = take,
	.release = release,
};
