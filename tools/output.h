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
	/*
	 * Bit i set: column i prints only when --output names it, so that
	 * the default columns fit TABLE_WIDTH with the widest figures.
	 */
	unsigned int on_request;
	char **cells;		/* rows * columns, owned */
};

/* headers is a NULL-terminated list; 0 or -EINVAL (none or too many). */
int table_init(struct table *t, const char *const *headers,
	       unsigned int right_aligned);

/* Appends a row of t->columns strings, copied; 0 or -ENOMEM. */
int table_add_row(struct table *t, const char *const *cells);

/*
 * How tables print, from the options of the command that prints them
 * (--raw, --noheadings, -o/--output): columns is NULL (all) or a comma
 * list of column names, as table_column_name() makes them.
 */
struct table_format {
	bool raw;
	bool noheadings;
	const char *columns;
};
extern struct table_format table_format;

#define TABLE_WIDTH 100

/*
 * A column's name for -o: its header lowercased, a parameter after " for "
 * left out ("pairs for 1%" is "pairs"), '%' dropped, every other run of
 * characters but letters and digits one '-' ("95% CI" is "95-ci").
 */
void table_column_name(const char *header, char *name, size_t size);

/*
 * Checks -o's list against the headers of the tables cmd prints (a
 * NULL-terminated list of NULL-terminated header lists) and keeps it in
 * table_format. 0, or EXIT_USAGE with "vmpctl: CMD: -o: ..." printed.
 */
int table_format_columns(const char *cmd, const char *list,
			 const char *const *const *tables);

/*
 * --raw, --noheadings or --output (getopt_long's name of the option, arg
 * its value) into table_format, for a command whose tables have the
 * headers in tables (as table_format_columns()). 0 or EXIT_USAGE.
 */
int table_format_option(const char *cmd, const char *name, const char *arg,
			const char *const *const *tables);

/*
 * getopt_long's entries of those three options: each returns TABLE_OPTION
 * (above every command's own option values), and its longindex names it.
 */
#define TABLE_OPTION 0x1000
#define TABLE_FORMAT_LONGOPTS \
	{ "raw", no_argument, NULL, TABLE_OPTION }, \
	{ "noheadings", no_argument, NULL, TABLE_OPTION }, \
	{ "output", required_argument, NULL, TABLE_OPTION }

/*
 * Prints the columns table_format selects, in -o's order (nothing when it
 * selects none of t's), or without --output every column but those
 * on_request: aligned, widths in characters (not bytes), fitted
 * to TABLE_WIDTH by wrapping the columns of text, with a header line;
 * or --raw, one space between cells.
 */
void table_print(const struct table *t, FILE *out);

/*
 * Renders the columns columns[0..n) of t as table_print() says: through
 * libsmartcols (table_scols.c), or without it in the static build of the
 * guests, which Debian has no static libsmartcols for (table_plain.c:
 * columns padded by bytes, not fitted to TABLE_WIDTH).
 */
void table_render(const struct table *t, const size_t *columns, size_t n,
		  FILE *out);

void table_free(struct table *t);

#endif
