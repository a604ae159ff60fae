/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON output through Debian's jansson: every --json document is built as
 * a jansson value and printed compact, keys in insertion order, on one
 * line. Strings go through json_text(), which makes any bytes valid UTF-8
 * first (jansson itself refuses invalid UTF-8), so the document is valid
 * JSON whatever a command line or a file held.
 */
#ifndef VMPCTL_JSON_H
#define VMPCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* Significant digits of a JSON real. */
#define JSON_DIGITS 10
/* ... in a record read back later: every double survives the round trip */
#define JSON_RECORD_DIGITS 17

/*
 * Copies text into buf as valid UTF-8: every byte that does not start a
 * well-formed sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF) becomes U+FFFD. Returns a malloc'ed string or
 * NULL when out of memory.
 */
char *utf8_sanitize(const char *text);

/* A JSON string of text (NULL: null). */
json_t *json_text(const char *text);
/* A real; null when not finite (JSON has no NaN or infinity). */
json_t *json_real_or_null(double value);
/* An integer (counts above 2^63 - 1 are clamped). */
json_t *json_count(uint64_t value);
/* An array of two reals (each null when not finite). */
json_t *json_pair(double lo, double hi);

/*
 * object[key] = value, taking the reference. A NULL value (jansson out of
 * memory) marks the document as failed; json_print_line() then reports
 * -ENOMEM instead of printing half a document.
 */
void json_put(json_t *object, const char *key, json_t *value);
void json_append(json_t *array, json_t *value);
/* json_put() of keys[i]: json_real_or_null(values[i]) for each i < n. */
void json_put_reals(json_t *object, const char *const *keys,
		    const double *values, size_t n);

/*
 * Prints value on one line and drops the reference; 0, -ENOMEM (a
 * json_put failed) or -EIO (the stream reported an error). An object
 * gets "vmpctl_version" and "kernel" (uname's release) last, unless it
 * has them: every JSON output says what made it.
 */
int json_print_line(FILE *out, json_t *value);

/* The same with JSON_RECORD_DIGITS, for lines a program reads back. */
int json_print_record(FILE *out, json_t *value);

#endif
