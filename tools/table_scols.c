// SPDX-License-Identifier: GPL-2.0
/*
 * Tables through libsmartcols (see table_render() in output.h): widths in
 * characters, the whole table fitted to TABLE_WIDTH by wrapping the text
 * columns, --raw and --noheadings as util-linux prints them.
 */
#include "output.h"

#include <errno.h>
#include <libsmartcols.h>
#include <string.h>

void table_render(const struct table *t, const size_t *columns, size_t n,
		  FILE *out)
{
	struct libscols_table *tb = scols_new_table();
	bool ok = tb != NULL;

	if (ok) {
		scols_table_set_stream(tb, out);
		/* the width of a terminal or not: scripts and logs get it too */
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
		scols_table_set_termwidth(tb, TABLE_WIDTH);
		scols_table_enable_raw(tb, table_format.raw);
		scols_table_enable_noheadings(tb, table_format.noheadings);
		if (!table_format.raw)
			ok = !scols_table_set_column_separator(tb, "  ");
	}
	for (size_t c = 0; ok && c < n; c++) {
		bool right = t->right_aligned & (1u << columns[c]);

		/* numbers stay whole; text (names, intervals) wraps in its cell */
		ok = scols_table_new_column(tb, t->headers[columns[c]], 0,
					    right ? SCOLS_FL_RIGHT : SCOLS_FL_WRAP) != NULL;
	}
	for (size_t r = 0; ok && r < t->rows; r++) {
		struct libscols_line *line = scols_table_new_line(tb, NULL);

		ok = line != NULL;
		for (size_t c = 0; ok && c < n; c++)
			ok = !scols_line_set_data(line, c,
						  t->cells[r * t->columns + columns[c]]);
	}
	if (ok)
		ok = !scols_print_table(tb);
	if (!ok)
		vmpctl_error("a table cannot be printed: %s", strerror(ENOMEM));
	scols_unref_table(tb);
}
