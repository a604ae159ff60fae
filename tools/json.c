// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static bool json_failed;

/* Length of the well-formed UTF-8 sequence at p, 0 when there is none. */
static size_t utf8_sequence(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range excludes overlongs, surrogates, > U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

char *utf8_sanitize(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	/* each invalid byte grows to the three of U+FFFD */
	char *out = malloc(3 * strlen(text) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = utf8_sequence(p);

		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

json_t *json_text(const char *text)
{
	char *valid;
	json_t *s;

	if (!text)
		return json_null();
	valid = utf8_sanitize(text);
	if (!valid)
		return NULL;
	s = json_string(valid);
	free(valid);
	return s;
}

json_t *json_real_or_null(double value)
{
	return isfinite(value) ? json_real(value) : json_null();
}

json_t *json_count(uint64_t value)
{
	/* json_int_t is long long (JSON_INTEGER_IS_LONG_LONG) */
	return json_integer(value > (uint64_t)LLONG_MAX ? LLONG_MAX :
			    (json_int_t)value);
}

json_t *json_pair(double lo, double hi)
{
	json_t *pair = json_array();

	if (pair) {
		json_append(pair, json_real_or_null(lo));
		json_append(pair, json_real_or_null(hi));
	}
	return pair;
}

void json_put(json_t *object, const char *key, json_t *value)
{
	if (!object || !value || json_object_set_new(object, key, value) < 0)
		json_failed = true;
}

void json_put_reals(json_t *object, const char *const *keys,
		    const double *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_put(object, keys[i], json_real_or_null(values[i]));
}

void json_append(json_t *array, json_t *value)
{
	if (!array || !value || json_array_append_new(array, value) < 0)
		json_failed = true;
}

/*
 * Every document says what made it: the tool's version and the running
 * kernel's release, unless it says so itself (status has its "kernel").
 */
static void put_origin(json_t *value)
{
	struct utsname uts;

	if (!json_is_object(value))
		return;
	if (!json_object_get(value, "vmpctl_version"))
		json_put(value, "vmpctl_version", json_text(VMPCTL_VERSION));
	if (!json_object_get(value, "kernel"))
		json_put(value, "kernel", uname(&uts) == 0 ? json_text(uts.release) :
			 json_null());
}

static int print_line(FILE *out, json_t *value, int digits)
{
	int err = 0;

	put_origin(value);
	if (!value || json_failed) {
		err = -ENOMEM;
	} else if (json_dumpf(value, out, JSON_ENCODE_ANY | JSON_COMPACT |
			      JSON_REAL_PRECISION(digits)) < 0 ||
		   fputc('\n', out) == EOF) {
		err = -EIO;
	}
	json_failed = false;
	json_decref(value);
	return err;
}

int json_print_line(FILE *out, json_t *value)
{
	return print_line(out, value, JSON_DIGITS);
}

int json_print_record(FILE *out, json_t *value)
{
	return print_line(out, value, JSON_RECORD_DIGITS);
}
