/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpctl ab --interleave's status line: on a terminal only (as hyperfine's
 * progress bar), one line on stderr redrawn in place with the time spent
 * and left, the pairs kept of those asked for and the running 95%
 * interval of B vs A. Nothing when stderr is not a terminal or with -q:
 * logs and pipes get the per-pair lines alone.
 */
#ifndef VMPCTL_AB_PROGRESS_H
#define VMPCTL_AB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define AB_STATUS_MAX 160

struct ab_status_line {
	bool on;	/* stderr is a terminal and not -q */
	bool drawn;	/* a line is on the screen: clear it before other output */
	char shown[AB_STATUS_MAX];	/* drawn again only when it changes */
};

/* What the line says. NaN: not known (yet). */
struct ab_status {
	double elapsed_s;
	double left_s;
	size_t kept;
	size_t wanted;
	double diff_pct;
	double ci_lo_pct;
	double ci_hi_pct;
};

void ab_status_init(struct ab_status_line *line, bool quiet);
/* The line's text, without the carriage return; the length snprintf gives. */
int ab_status_format(char *buf, size_t size, const struct ab_status *st);
void ab_status_show(struct ab_status_line *line, const struct ab_status *st);
/* Takes the line off the screen, so that other output starts on a clean line. */
void ab_status_clear(struct ab_status_line *line);

#endif
