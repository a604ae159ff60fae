// SPDX-License-Identifier: GPL-2.0
#include "output.h"
#include "signals.h"

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

static void print_cell(FILE *out, const char *text, size_t width,
		       bool right, bool last)
{
	size_t pad = width - strlen(text);

	if (right)
		fprintf(out, "%*s%s", (int)pad, "", text);
	else if (last)
		fputs(text, out);
	else
		fprintf(out, "%s%*s", text, (int)pad, "");
}

static void print_line(const struct table *t, FILE *out,
		       const char *const *cells, const size_t *width)
{
	size_t i;

	for (i = 0; i < t->columns; i++) {
		if (i)
			fputs("  ", out);
		print_cell(out, cells[i], width[i], t->right_aligned & (1u << i),
			   i + 1 == t->columns);
	}
	fputc('\n', out);
}

void table_print(const struct table *t, FILE *out)
{
	size_t width[TABLE_MAX_COLUMNS];
	size_t r, i;

	for (i = 0; i < t->columns; i++) {
		width[i] = strlen(t->headers[i]);
		for (r = 0; r < t->rows; r++) {
			size_t len = strlen(t->cells[r * t->columns + i]);

			if (len > width[i])
				width[i] = len;
		}
	}
	print_line(t, out, t->headers, width);
	for (r = 0; r < t->rows; r++)
		print_line(t, out, (const char *const *)&t->cells[r * t->columns],
			   width);
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
