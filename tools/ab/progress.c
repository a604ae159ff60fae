// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab --interleave's status line on a terminal (progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Erases the cursor's line: a carriage return and ECMA-48's EL */
#define ERASE_LINE "\r\033[K"

void ab_status_init(struct ab_status_line *line, bool quiet)
{
	line->on = !quiet && isatty(STDERR_FILENO);
	line->drawn = false;
}

int ab_status_format(char *buf, size_t size, const struct ab_status *st)
{
	char left[32] = "", ci[64] = "";

	if (isfinite(st->left_s))
		snprintf(left, sizeof(left), ", ~%.0f s left", fmax(st->left_s, 0));
	if (isfinite(st->diff_pct) && isfinite(st->ci_lo_pct) && isfinite(st->ci_hi_pct))
		snprintf(ci, sizeof(ci), ", B vs A %+.2f%% [%+.2f%%, %+.2f%%]",
			 st->diff_pct, st->ci_lo_pct, st->ci_hi_pct);
	else if (isfinite(st->diff_pct))
		snprintf(ci, sizeof(ci), ", B vs A %+.2f%%", st->diff_pct);
	return snprintf(buf, size, "ab: %.0f s%s, %zu of %zu pairs kept%s",
			st->elapsed_s, left, st->kept, st->wanted, ci);
}

void ab_status_show(struct ab_status_line *line, const struct ab_status *st)
{
	char text[AB_STATUS_MAX];

	if (!line->on)
		return;
	ab_status_format(text, sizeof(text), st);
	if (line->drawn && !strcmp(text, line->shown))
		return;
	strcpy(line->shown, text);
	fprintf(stderr, ERASE_LINE "%s", text);
	fflush(stderr);
	line->drawn = true;
}

void ab_status_clear(struct ab_status_line *line)
{
	if (!line->drawn)
		return;
	fputs(ERASE_LINE, stderr);
	line->drawn = false;
}
