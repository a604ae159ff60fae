// SPDX-License-Identifier: GPL-2.0
/*
 * Tables without libsmartcols, for the static build of the guests only
 * (see table_render() in output.h): columns padded to their widest cell in
 * bytes, two spaces apart, not fitted to TABLE_WIDTH; --raw puts one space
 * between cells, --noheadings drops the header line.
 */
#include "output.h"

#include <string.h>

static void print_line(const struct table *t, const size_t *columns, size_t n,
		       const char *const *cells, const size_t *width, FILE *out)
{
	for (size_t c = 0; c < n; c++) {
		const char *text = cells[columns[c]];
		int pad = (int)(width[c] - strlen(text));

		if (c)
			fputs(table_format.raw ? " " : "  ", out);
		if (table_format.raw || (c + 1 == n && !(t->right_aligned & (1u << columns[c]))))
			fputs(text, out);
		else if (t->right_aligned & (1u << columns[c]))
			fprintf(out, "%*s%s", pad, "", text);
		else
			fprintf(out, "%s%*s", text, pad, "");
	}
	fputc('\n', out);
}

void table_render(const struct table *t, const size_t *columns, size_t n,
		  FILE *out)
{
	size_t width[TABLE_MAX_COLUMNS];

	for (size_t c = 0; c < n; c++) {
		width[c] = strlen(t->headers[columns[c]]);
		for (size_t r = 0; r < t->rows; r++) {
			size_t len = strlen(t->cells[r * t->columns + columns[c]]);

			if (len > width[c])
				width[c] = len;
		}
	}
	if (!table_format.noheadings)
		print_line(t, columns, n, t->headers, width, out);
	for (size_t r = 0; r < t->rows; r++)
		print_line(t, columns, n, (const char *const *)&t->cells[r * t->columns],
			   width, out);
}
