// SPDX-License-Identifier: GPL-2.0
/* Rate lines: format, parse, and the reporter thread (see rate.h). */
#include "rate.h"
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

int rate_line_format(char *buf, size_t size, double t, double interval_s,
		     uint64_t count)
{
	/* microseconds whatever the uptime: %.6f, not significant digits */
	return snprintf(buf, size,
			"{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%llu,\"rate\":%.6g}\n",
			t, interval_s, (unsigned long long)count,
			interval_s > 0 ? (double)count / interval_s : 0.0);
}

static int number_field(json_t *object, const char *key, double *value)
{
	json_t *v = json_object_get(object, key);

	if (!json_is_number(v))
		return -EINVAL;
	*value = json_number_value(v);
	return isfinite(*value) ? 0 : -EINVAL;
}

int rate_line_parse(const char *line, size_t len, struct rate_interval *out)
{
	json_t *doc;
	int err;

	if (len == 0 || len >= RATE_LINE_MAX || line[0] != '{')
		return -ENOENT;
	doc = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(doc) || !json_object_get(doc, "t")) {
		json_decref(doc);
		return -ENOENT;
	}
	err = number_field(doc, "t", &out->t);
	if (!err)
		err = number_field(doc, "interval_s", &out->interval_s);
	if (!err)
		err = number_field(doc, "count", &out->count);
	if (!err && (!(out->interval_s > 0) || out->count < 0))
		err = -EINVAL;
	json_decref(doc);
	return err;
}

/* One line from the last one to now; the caller holds the lock. */
static void report_now(struct rate_reporter *r)
{
	char line[RATE_LINE_MAX];
	double now = monotonic_s();
	uint64_t count = r->count(r->ctx);
	int len;

	if (!(now > r->last_t))
		return;
	len = rate_line_format(line, sizeof(line), now, now - r->last_t,
			       count - r->last_count);
	r->last_t = now;
	r->last_count = count;
	if (len > 0 && write(r->fd, line, (size_t)len) != len && !r->error)
		r->error = -errno;
}

static struct timespec timespec_of(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)floor(s);
	ts.tv_nsec = (long)((s - floor(s)) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void *reporter_thread(void *arg)
{
	struct rate_reporter *r = arg;
	double next = r->last_t + r->interval_s;

	pthread_mutex_lock(&r->lock);
	while (!r->stopping) {
		struct timespec deadline = timespec_of(next);

		if (pthread_cond_timedwait(&r->wake, &r->lock, &deadline) != ETIMEDOUT)
			continue;
		report_now(r);
		next += r->interval_s;
		/* a thread that overslept skips the deadlines it missed */
		if (next < r->last_t)
			next = r->last_t + r->interval_s;
	}
	report_now(r);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int rate_reporter_start(struct rate_reporter *r, int fd, double interval_s,
			uint64_t (*count)(void *ctx), void *ctx)
{
	pthread_condattr_t attr;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->interval_s = interval_s;
	r->count = count;
	r->ctx = ctx;
	err = pthread_condattr_init(&attr);
	if (err)
		return -err;
	err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!err)
		err = pthread_cond_init(&r->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (err)
		return -err;
	pthread_mutex_init(&r->lock, NULL);
	r->last_t = monotonic_s();
	r->last_count = count(ctx);
	err = pthread_create(&r->thread, NULL, reporter_thread, r);
	if (err) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		return -err;
	}
	r->running = true;
	return 0;
}

int rate_reporter_stop(struct rate_reporter *r)
{
	if (!r->running)
		return 0;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	r->running = false;
	return r->error;
}
