/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmpctl prints: one-line errors on stderr, aligned tables for people,
 * JSON for scripts.
 */
#ifndef VMPCTL_OUTPUT_H
#define VMPCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Prints "vmpctl: <message>\n" on stderr. Not called print_error: cmocka
 * exports a function of that name, and ours would replace it in the tests.
 */
void vmpctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes s as a JSON string literal, quotes included. */
void json_write_string(FILE *out, const char *s);

#define TABLE_MAX_COLUMNS 12

struct table {
	size_t columns;
	size_t rows;
	const char *headers[TABLE_MAX_COLUMNS];
	/* Bit i set: column i is right-aligned (numbers). */
	unsigned int right_aligned;
	char **cells;		/* rows * columns, owned */
};

/* headers is a NULL-terminated list; 0 or -EINVAL (none or too many). */
int table_init(struct table *t, const char *const *headers,
	       unsigned int right_aligned);

/* Appends a row of t->columns strings, copied; 0 or -ENOMEM. */
int table_add_row(struct table *t, const char *const *cells);

/* Columns separated by two spaces; no trailing spaces. */
void table_print(const struct table *t, FILE *out);

void table_free(struct table *t);

#endif
