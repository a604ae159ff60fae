/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmpctl prints: one-line errors on stderr and aligned tables for
 * people (JSON for scripts is in json.h), and the check at exit that all
 * of it was written.
 */
#ifndef VMPCTL_OUTPUT_H
#define VMPCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Prints "vmpctl: <message>\n" on stderr in one write. Not called
 * print_error: cmocka exports a function of that name, and ours would
 * replace it in the tests. A reader of stderr that went away (EPIPE) is
 * a stop (signals.h).
 */
void vmpctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * util-linux's close_stdout(): flushes and closes stdout and stderr at
 * exit. A write error on stdout (a full disk, /dev/full) is reported on
 * stderr and turns an exit status of 0 into 1; EPIPE is not reported (a
 * reader that went away is not an error of ours). Returns the status to
 * exit with.
 */
int close_stdout(int status);

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
