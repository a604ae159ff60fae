// SPDX-License-Identifier: GPL-2.0
/*
 * Progress from a kernel counter, FILE[:FIELD[+FIELD...]] (see
 * source_counter.h): one lookup that reads the flat keyed files of
 * cgroups and procfs, io.stat's per-device pairs and /proc/net/dev's
 * columns alike; a polled source (sources.h), read by vmpctl on time.
 */
#include "clock.h"
#include "fileio.h"
#include "output.h"
#include "source_counter.h"
#include "sources.h"

#include <stdbool.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cgroup and procfs counter files are small; /proc/net/dev grows per interface */
#define COUNTER_FILE_MAX (256u << 10)

/* /proc/net/dev's columns after "IFACE:", in order */
static const char *const net_dev_columns[] = {
	"rx_bytes", "rx_packets", "rx_errs", "rx_drop", "rx_fifo", "rx_frame",
	"rx_compressed", "rx_multicast", "tx_bytes", "tx_packets", "tx_errs",
	"tx_drop", "tx_fifo", "tx_colls", "tx_carrier", "tx_compressed",
};

int ab_counter_parse(const char *spec, const char *base,
		     struct ab_counter *counter)
{
	const char *colon = strchr(spec, ':');
	size_t file_len = colon ? (size_t)(colon - spec) : strlen(spec);
	char fields[AB_COUNTER_FIELDS_MAX * 64], *save, *field;
	int n;

	memset(counter, 0, sizeof(*counter));
	if (!file_len) {
		vmpctl_error("ab: --counter: '%s' names no file", spec);
		return -EINVAL;
	}
	if (spec[0] == '/')
		n = snprintf(counter->file, sizeof(counter->file), "%.*s",
			     (int)file_len, spec);
	else if (base)
		n = snprintf(counter->file, sizeof(counter->file), "%s/%.*s",
			     base, (int)file_len, spec);
	else {
		vmpctl_error("ab: --counter: '%.*s' is relative: give an absolute path, or --cgroup or --pid to read it from",
			     (int)file_len, spec);
		return -EINVAL;
	}
	if (n < 0 || (size_t)n >= sizeof(counter->file)) {
		vmpctl_error("ab: --counter: '%s': the path is too long", spec);
		return -EINVAL;
	}
	if (!colon)
		return 0;
	if (snprintf(fields, sizeof(fields), "%s", colon + 1) >= (int)sizeof(fields)) {
		vmpctl_error("ab: --counter: '%s': too many fields", spec);
		return -EINVAL;
	}
	for (field = strtok_r(fields, "+", &save); field;
	     field = strtok_r(NULL, "+", &save)) {
		if (counter->n_fields == AB_COUNTER_FIELDS_MAX ||
		    strlen(field) >= sizeof(counter->fields[0]) ||
		    strpbrk(field, " \t\n=")) {
			vmpctl_error("ab: --counter: '%s': '%s' is not a field name (at most %d fields of %zu characters)",
				     spec, field, AB_COUNTER_FIELDS_MAX,
				     sizeof(counter->fields[0]) - 1);
			return -EINVAL;
		}
		strcpy(counter->fields[counter->n_fields++], field);
	}
	if (!counter->n_fields) {
		vmpctl_error("ab: --counter: '%s': an empty field after ':'", spec);
		return -EINVAL;
	}
	return 0;
}

/* A whole number or decimal from s up to white space or the end. */
static int number_at(const char *s, double *value)
{
	char *end;

	*value = strtod(s, &end);
	if (end == s || (*end && *end != ' ' && *end != '\t' && *end != '\n') ||
	    !isfinite(*value))
		return -EINVAL;
	return 0;
}

/* /proc/net/dev: "  eth0: 123 45 ..." with field IFACE.COLUMN */
static int net_dev_value(const char *line, const char *field, double *value)
{
	const char *dot = strrchr(field, '.'), *p;
	size_t name_len, column;
	char *end;

	if (!dot)
		return -ENOENT;
	name_len = (size_t)(dot - field);
	while (*line == ' ')
		line++;
	if (strncmp(line, field, name_len) != 0 || line[name_len] != ':')
		return -ENOENT;
	for (column = 0; column < sizeof(net_dev_columns) / sizeof(net_dev_columns[0]); column++)
		if (strcmp(dot + 1, net_dev_columns[column]) == 0)
			break;
	if (column == sizeof(net_dev_columns) / sizeof(net_dev_columns[0]))
		return -ENOENT;
	p = line + name_len + 1;
	for (size_t i = 0; i <= column; i++) {
		*value = strtod(p, &end);
		if (end == p)
			return -EINVAL;
		p = end;
	}
	return 0;
}

/*
 * io.stat: "8:0 rbytes=1 wbytes=2 ..." per device: key summed over the
 * devices, or MAJ:MIN.key for one of them. found counts the matches.
 */
static int io_stat_value(const char *line, const char *field, double *sum,
			 int *found)
{
	size_t line_len = strcspn(line, "\n");
	const char *end = line + line_len, *dot = strchr(field, '.'), *key = field;
	const char *space = memchr(line, ' ', line_len);
	size_t key_len;
	double value;

	/* every search stays in this line: another's key is not this one's */
	if (!space || !memchr(line, '=', line_len))
		return 0;
	if (dot) {
		if ((size_t)(space - line) != (size_t)(dot - field) ||
		    strncmp(line, field, (size_t)(dot - field)) != 0)
			return 0;
		key = dot + 1;
	}
	key_len = strlen(key);
	for (const char *p = space; (p = memmem(p, (size_t)(end - p), key, key_len));
	     p += key_len) {
		if (p[-1] != ' ' || p[key_len] != '=')
			continue;
		if (number_at(p + key_len + 1, &value))
			return -EINVAL;
		*sum += value;
		(*found)++;
		return 0;
	}
	return 0;
}

static int field_value(const char *text, const char *field, double *value)
{
	size_t len = strlen(field);
	double io_sum = 0;
	int io_found = 0, err;

	for (const char *line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *after = line + len;

		if (strncmp(line, field, len) == 0 &&
		    (*after == ' ' || (*after == ':' && after[1] == ' ')))
			return number_at(after + strspn(after, ": "), value);
		err = net_dev_value(line, field, value);
		if (err != -ENOENT)
			return err;
		err = io_stat_value(line, field, &io_sum, &io_found);
		if (err)
			return err;
	}
	if (!io_found)
		return -ENOENT;
	*value = io_sum;
	return 0;
}

int ab_counter_value(const struct ab_counter *counter, const char *text,
		     double *value)
{
	double one;
	int err;

	if (!counter->n_fields)
		return number_at(text + strspn(text, " \t"), value);
	*value = 0;
	for (size_t i = 0; i < counter->n_fields; i++) {
		err = field_value(text, counter->fields[i], &one);
		if (err)
			return err;
		*value += one;
	}
	return 0;
}

int ab_counter_read(const struct ab_counter *counter, double *value)
{
	char *text = malloc(COUNTER_FILE_MAX);
	int err;

	if (!text)
		return -ENOMEM;
	err = read_text_file(counter->file, text, COUNTER_FILE_MAX);
	if (!err)
		err = ab_counter_value(counter, text, value);
	free(text);
	return err;
}

/* The counter's last reading, between slice boundaries. */
struct counter_state {
	bool have_last;
	double last_t;
	double last_value;
};

static int configure(const struct ab_source_ops *ops, const char *arg,
		     const char *target, void **config)
{
	struct ab_counter *counter = malloc(sizeof(*counter));

	if (!counter) {
		vmpctl_error("ab: --%s: %s", ops->option, strerror(ENOMEM));
		return -EINVAL;
	}
	if (ab_counter_parse(arg, target, counter)) {
		free(counter);
		return -EINVAL;
	}
	*config = counter;
	return 0;
}

static void unconfigure(void *config)
{
	free(config);
}

static int sample(void *state, const void *config, bool since_last,
		  struct ab_sample *out)
{
	const struct ab_counter *counter = config;
	struct counter_state *s = state;
	double value, now;
	int err = ab_counter_read(counter, &value), ret = 0;

	now = monotonic_s();
	if (err) {
		vmpctl_error("ab: --counter: reading %s: %s", counter->file,
			     strerror(-err));
		return err;
	}
	if (since_last && s->have_last && now > s->last_t &&
	    value >= s->last_value) {
		ab_sample_init(out, now, now - s->last_t, value - s->last_value);
		ret = 1;
	}
	s->have_last = true;
	s->last_t = now;
	s->last_value = value;
	return ret;
}

static void describe(const struct ab_source_ops *ops, const char *arg,
		     char *buf, size_t size)
{
	snprintf(buf, size, "%s %s", ops->name, arg);
}

const struct ab_source_ops ab_source_counter = {
	.name = "counter",
	.option = "counter",
	.family = AB_SOURCE_COUNTER,
	.describe = describe,
	.configure = configure,
	.unconfigure = unconfigure,
	.state_size = sizeof(struct counter_state),
	.sample = sample,
};
