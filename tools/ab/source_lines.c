// SPDX-License-Identifier: GPL-2.0
/*
 * Progress from the lines a workload prints: --rate-regex, --count-regex
 * and the presets of known programs (see sources.h). Each preset's parser
 * is tested on the program's recorded output (tests/unit/fixtures/workloads).
 */
#include "ab.h"
#include "sources.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* fio's JSON report of one interval is some 10 KiB per job */
#define FIO_DOC_MAX (4u << 20)

static const char *const preset_names[] = {
	[AB_PRESET_SYSBENCH] = "sysbench",
	[AB_PRESET_FIO] = "fio",
	[AB_PRESET_IPERF3] = "iperf3",
	[AB_PRESET_PGBENCH] = "pgbench",
};

enum ab_preset ab_preset_by_name(const char *name)
{
	for (size_t i = 1; i < sizeof(preset_names) / sizeof(preset_names[0]); i++)
		if (strcmp(name, preset_names[i]) == 0)
			return (enum ab_preset)i;
	return AB_PRESET_NONE;
}

const char *ab_preset_name(enum ab_preset preset)
{
	return preset == AB_PRESET_NONE ? "regex" : preset_names[preset];
}

bool ab_preset_on_stderr(enum ab_preset preset)
{
	return preset == AB_PRESET_PGBENCH;
}

void ab_line_source_init(struct ab_line_source *src, enum ab_preset preset,
			 const regex_t *re, enum ab_regex_kind kind)
{
	memset(src, 0, sizeof(*src));
	src->preset = preset;
	src->re = re;
	src->kind = kind;
}

void ab_line_source_free(struct ab_line_source *src)
{
	free(src->doc);
	src->doc = NULL;
}

static void sample_init(struct ab_sample *out, double arrival,
			double interval_s, double count)
{
	out->iv.t = arrival;
	out->iv.interval_s = interval_s;
	out->iv.count = count;
	out->lat_mean_ms = NAN;
	out->lat_pct_ms = NAN;
	out->lat_pct = NAN;
}

/*
 * A rate the program measured over its own interval, from the end of its
 * last one (stamp: its elapsed seconds) to this line's arrival.
 */
static int stamped_rate(struct ab_line_source *src, double stamp, double rate,
			double arrival, struct ab_sample *out)
{
	double interval_s = stamp - src->last_stamp;

	src->last_stamp = stamp;
	if (!(interval_s > 0) || !(rate >= 0) || !isfinite(rate))
		return -EINVAL;
	sample_init(out, arrival, interval_s, rate * interval_s);
	return 1;
}

/*
 * sysbench --report-interval:
 *   [ 2s ] thds: 1 eps: 2097.81 lat (ms,95%): 0.51
 *   [ 2s ] thds: 4 tps: 123.45 qps: 2469.01 (r/w/o: ...) lat (ms,95%): 41.10 ...
 *   [ 2s ] 4479.98 MiB/sec
 */
static int sysbench_line(struct ab_line_source *src, const char *line,
			 double arrival, struct ab_sample *out)
{
	double stamp, rate, pct, ms;
	const char *rest, *key;
	int n = 0, ret;

	if (sscanf(line, "[ %lfs ]%n", &stamp, &n) != 1 || !n)
		return 0;
	rest = line + n;
	if ((key = strstr(rest, "tps: ")) || (key = strstr(rest, "eps: "))) {
		if (sscanf(key + 5, "%lf", &rate) != 1)
			return -EINVAL;
	} else if (sscanf(rest, " %lf MiB/sec", &rate) != 1) {
		return 0;
	}
	ret = stamped_rate(src, stamp, rate, arrival, out);
	key = strstr(rest, "lat (ms,");
	if (ret == 1 && key && sscanf(key, "lat (ms,%lf%%): %lf", &pct, &ms) == 2) {
		out->lat_pct = pct;
		out->lat_pct_ms = ms;
	}
	return ret;
}

/* pgbench -P: progress: 2.0 s, 859.0 tps, lat 1.164 ms stddev 0.324, 0 failed */
static int pgbench_line(struct ab_line_source *src, const char *line,
			double arrival, struct ab_sample *out)
{
	double stamp, rate, ms;
	int fields = sscanf(line, "progress: %lf s, %lf tps, lat %lf ms",
			    &stamp, &rate, &ms);
	int ret;

	if (fields < 2)
		return 0;
	ret = stamped_rate(src, stamp, rate, arrival, out);
	if (ret == 1 && fields == 3)
		out->lat_mean_ms = ms;
	return ret;
}

static double iperf3_unit(const char *unit)
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
 * iperf3 -i: one line per stream and interval, then a [SUM] line when
 * there are several streams; the totals at the end name their side.
 *   [  5]   1.00-2.00   sec  2.10 GBytes  18.0 Gbits/sec   20   2.50 MBytes
 *   [SUM]   1.00-2.01   sec  1.23 GBytes  10.5 Gbits/sec   36
 * A stream's interval is held until the next line says whether a [SUM]
 * follows it.
 */
static int iperf3_line(struct ab_line_source *src, const char *line,
		       double arrival, struct ab_sample *out)
{
	char tag[16], unit[16];
	double begin, end, amount, scale;
	int ret = 0;

	if (sscanf(line, "[%15[^]]] %lf-%lf sec %lf %15s", tag, &begin, &end,
		   &amount, unit) != 5 ||
	    strstr(line, "sender") || strstr(line, "receiver"))
		return 0;
	scale = iperf3_unit(unit);
	if (!isfinite(scale) || !(end > begin) || !(amount >= 0))
		return -EINVAL;
	if (strstr(tag, "SUM")) {
		/* the streams' lines held back were this interval's parts */
		src->pending = false;
		sample_init(out, arrival, end - begin, amount * scale);
		return 1;
	}
	if (src->pending && begin == src->pending_begin && end == src->pending_end) {
		/* another stream of the same interval */
		src->pending_sample.iv.count += amount * scale;
		src->pending_sample.iv.t = arrival;
		return 0;
	}
	if (src->pending) {
		*out = src->pending_sample;
		ret = 1;
	}
	sample_init(&src->pending_sample, arrival, end - begin, amount * scale);
	src->pending_begin = begin;
	src->pending_end = end;
	src->pending = true;
	return ret;
}

static double json_number_at(json_t *object, const char *key)
{
	json_t *v = json_object_get(object, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * One of fio's JSON reports (--status-interval with --output-format=json):
 * cumulative bytes and I/Os of every job and direction since the start,
 * and its own timestamp_ms. The difference to the report before is the
 * interval's; so is the mean latency, from the cumulative means.
 */
static int fio_document(struct ab_line_source *src, double arrival,
			struct ab_sample *out)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	double bytes = 0, ios = 0, lat_ns_sum = 0, stamp, interval_s;
	json_t *doc = json_loadb(src->doc, src->doc_len, 0, NULL);
	json_t *jobs = json_object_get(doc, "jobs"), *job;
	size_t i;
	int ret = 1;

	stamp = json_number_at(doc, "timestamp_ms") / 1e3;
	if (!json_is_array(jobs) || !isfinite(stamp)) {
		json_decref(doc);
		return json_is_object(doc) ? -EINVAL : 0;
	}
	json_array_foreach(jobs, i, job) {
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			json_t *dir = json_object_get(job, dirs[d]);
			double n = json_number_at(dir, "total_ios");
			double mean = json_number_at(json_object_get(dir, "lat_ns"), "mean");

			bytes += json_number_at(dir, "io_bytes");
			if (n > 0 && isfinite(mean)) {
				ios += n;
				lat_ns_sum += n * mean;
			}
		}
	}
	json_decref(doc);
	if (!isfinite(bytes))
		return -EINVAL;
	interval_s = stamp - src->last_stamp;
	if (!src->started) {
		ret = 0;
	} else if (!(interval_s > 0) || bytes < src->last_bytes) {
		ret = -EINVAL;
	} else {
		sample_init(out, arrival, interval_s, bytes - src->last_bytes);
		if (ios > src->last_ios)
			out->lat_mean_ms = (lat_ns_sum - src->last_lat_ns_sum) /
				(ios - src->last_ios) / 1e6;
	}
	src->started = true;
	src->last_stamp = stamp;
	src->last_bytes = bytes;
	src->last_ios = ios;
	src->last_lat_ns_sum = lat_ns_sum;
	return ret;
}

/* fio's reports begin with "{" and end with "}", each on a line alone. */
static int fio_line(struct ab_line_source *src, const char *line, size_t len,
		    double arrival, struct ab_sample *out)
{
	bool opening = len == 1 && line[0] == '{';
	bool closing = len == 1 && line[0] == '}';
	int ret;

	if (!src->doc_len && !opening)
		return 0;
	if (src->doc_len + len + 2 > FIO_DOC_MAX) {
		src->doc_len = 0;
		return -EINVAL;
	}
	if (src->doc_len + len + 2 > src->doc_size) {
		size_t size = src->doc_size ? src->doc_size : 65536;
		char *doc;

		while (size < src->doc_len + len + 2)
			size *= 2;
		doc = realloc(src->doc, size);
		if (!doc)
			return -ENOMEM;
		src->doc = doc;
		src->doc_size = size;
	}
	memcpy(src->doc + src->doc_len, line, len);
	src->doc_len += len;
	src->doc[src->doc_len++] = '\n';
	if (!closing)
		return 0;
	src->doc[src->doc_len] = '\0';
	ret = fio_document(src, arrival, out);
	src->doc_len = 0;
	return ret;
}

static int regex_line(struct ab_line_source *src, const char *line,
		      double arrival, struct ab_sample *out)
{
	double value, interval_s = arrival - src->last_arrival;
	bool first = !src->started;
	int err = ab_extract_metric(src->re, line, &value);

	if (err == -ENOENT)
		return 0;
	if (err || !(value >= 0))
		return -EINVAL;
	src->started = true;
	src->last_arrival = arrival;
	if (first || !(interval_s > 0))
		return 0;
	sample_init(out, arrival, interval_s,
		    src->kind == AB_REGEX_RATE ? value * interval_s : value);
	return 1;
}

int ab_line_source_take(struct ab_line_source *src, const char *line,
			size_t len, double arrival, struct ab_sample *out)
{
	char text[RATE_LINE_MAX];

	if (src->preset == AB_PRESET_FIO)
		return fio_line(src, line, len, arrival, out);
	/* the other reports are short lines; longer ones are something else */
	if (len >= sizeof(text))
		return 0;
	memcpy(text, line, len);
	text[len] = '\0';
	switch (src->preset) {
	case AB_PRESET_SYSBENCH:
		return sysbench_line(src, text, arrival, out);
	case AB_PRESET_PGBENCH:
		return pgbench_line(src, text, arrival, out);
	case AB_PRESET_IPERF3:
		return iperf3_line(src, text, arrival, out);
	default:
		return regex_line(src, text, arrival, out);
	}
}

int ab_line_source_finish(struct ab_line_source *src, struct ab_sample *out)
{
	if (!src->pending)
		return 0;
	*out = src->pending_sample;
	src->pending = false;
	return 1;
}
