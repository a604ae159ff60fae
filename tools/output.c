// SPDX-License-Identifier: GPL-2.0
#include "output.h"
#include "exit_codes.h"
#include "signals.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

void vmpctl_error(const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (fprintf(stderr, "vmpctl: %s\n", message) < 0)
		stop_note_write_error(errno);
}

/* Like gnulib's close_stream(): false when anything was lost. */
static bool close_stream(FILE *stream)
{
	bool pending = __fpending(stream) != 0;
	bool failed_before = ferror(stream) != 0;
	bool close_failed = fclose(stream) != 0;

	/* EBADF with nothing pending: the stream was closed from the start */
	if (failed_before || (close_failed && (pending || errno != EBADF))) {
		/* an earlier error's errno is gone: say no reason */
		if (!close_failed)
			errno = 0;
		return false;
	}
	return true;
}

int close_stdout(int status)
{
	if (!close_stream(stdout) && errno != EPIPE) {
		int err = errno;

		fprintf(stderr, "vmpctl: write error%s%s\n", err ? ": " : "",
			err ? strerror(err) : "");
		if (!status)
			status = 1;
	}
	if (!close_stream(stderr) && !status)
		status = 1;
	return status;
}

int table_init(struct table *t, const char *const *headers,
	       unsigned int right_aligned)
{
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	while (headers[n]) {
		if (n == TABLE_MAX_COLUMNS)
			return -EINVAL;
		t->headers[n] = headers[n];
		n++;
	}
	if (n == 0)
		return -EINVAL;
	t->columns = n;
	t->right_aligned = right_aligned;
	return 0;
}

int table_add_row(struct table *t, const char *const *cells)
{
	char **grown;
	size_t i, base = t->rows * t->columns;

	grown = realloc(t->cells, (base + t->columns) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->cells = grown;
	for (i = 0; i < t->columns; i++) {
		t->cells[base + i] = strdup(cells[i]);
		if (!t->cells[base + i]) {
			while (i--)
				free(t->cells[base + i]);
			return -ENOMEM;
		}
	}
	t->rows++;
	return 0;
}

struct table_format table_format;

void table_column_name(const char *header, char *name, size_t size)
{
	const char *end = strstr(header, " for ");
	size_t o = 0;
	bool dash = false;

	if (!end)
		end = header + strlen(header);
	for (; header < end && o + 2 < size; header++) {
		unsigned char c = (unsigned char)*header;

		if (c == '%')
			continue;
		if (isalnum(c)) {
			if (dash && o)
				name[o++] = '-';
			dash = false;
			name[o++] = (char)tolower(c);
		} else {
			dash = true;
		}
	}
	name[o] = '\0';
}

/* Whether header's column name is name (length len, not terminated). */
static bool column_named(const char *header, const char *name, size_t len)
{
	char own[64];

	table_column_name(header, own, sizeof(own));
	return strlen(own) == len && strncmp(own, name, len) == 0;
}

/* Whether the column named name (length len) is one of headers. */
static bool headers_have(const char *const *headers, const char *name, size_t len)
{
	for (; *headers; headers++) {
		if (column_named(*headers, name, len))
			return true;
	}
	return false;
}

int table_format_columns(const char *cmd, const char *list,
			 const char *const *const *tables)
{
	const char *name = list;

	for (;;) {
		size_t len = strcspn(name, ",");
		bool known = false;

		for (const char *const *const *h = tables; *h && !known; h++)
			known = headers_have(*h, name, len);
		if (!known) {
			vmpctl_error("%s: --output: %s '%.*s' (see COLUMNS in vmpctl(1))", cmd,
				     len ? "no table has a column" : "an empty column name in",
				     len ? (int)len : (int)strlen(list), len ? name : list);
			return EXIT_USAGE;
		}
		if (!name[len])
			break;
		name += len + 1;
	}
	table_format.columns = list;
	return 0;
}

int table_format_option(const char *cmd, const char *name, const char *arg,
			const char *const *const *tables)
{
	if (strcmp(name, "raw") == 0)
		table_format.raw = true;
	else if (strcmp(name, "noheadings") == 0)
		table_format.noheadings = true;
	else
		return table_format_columns(cmd, arg, tables);
	return 0;
}

void table_print(const struct table *t, FILE *out)
{
	size_t columns[TABLE_MAX_COLUMNS], n = 0;
	const char *name = table_format.columns;

	if (!name) {
		for (size_t i = 0; i < t->columns; i++) {
			if (!(t->on_request & (1u << i)))
				columns[n++] = i;
		}
		table_render(t, columns, n, out);
		return;
	}
	for (;;) {
		size_t len = strcspn(name, ",");

		for (size_t i = 0; i < t->columns && n < TABLE_MAX_COLUMNS; i++) {
			if (column_named(t->headers[i], name, len))
				columns[n++] = i;
		}
		if (!name[len])
			break;
		name += len + 1;
	}
	if (n)
		table_render(t, columns, n, out);
}

void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->rows * t->columns; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->rows = 0;
}
