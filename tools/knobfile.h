/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Any knob a kernel person would A/B, found, changed and put back exactly.
 *
 * Kinds, told apart by the file system and the text:
 *  - KNOB_FILE: a file on a real file system. Saved byte for byte, written
 *    truncated ("VALUE\n" and nothing else), restored byte for byte.
 *  - KNOB_LIST: a one-line sysfs (or other kernel) file listing choices
 *    with the selected one in brackets, "always [madvise] never". Saved
 *    and compared as the selected token, restored by writing that token;
 *    a value that is not one of the choices is refused before any write.
 *  - KNOB_VALUE: any other one-line kernel file: sysfs attributes, sysctls
 *    under /proc/sys, cgroup control files. Compared with runs of blanks
 *    as one space ("4096\t131072" is "4096 131072"), restored by writing
 *    the line found.
 * Kernel files of several lines are refused: writing one back does not
 * restore them in general.
 *
 * Every open is O_NONBLOCK, fstat()ed before anything is read or written
 * and refused unless it is a regular file, so a FIFO or a device never
 * blocks or gets written. knob_open() also opens the knob for writing
 * (without truncating) to learn whether it can be written at all: as
 * root, access(W_OK) says yes to read-only sysfs files. A knob is
 * restored only when a write to it was attempted.
 */
#ifndef VMPCTL_KNOBFILE_H
#define VMPCTL_KNOBFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A regular file larger than this is not a knob. */
#define KNOB_FILE_MAX 65536
#define KNOB_LINE_MAX 4096

enum knob_kind { KNOB_FILE, KNOB_VALUE, KNOB_LIST };

struct knob {
	char path[PATH_MAX];
	enum knob_kind kind;
	dev_t dev;
	ino_t ino;
	char *found;		/* the bytes read at knob_open() */
	size_t found_len;
	/* the found value as compared: normalized line or selected token */
	char found_value[KNOB_LINE_MAX];
	bool written;		/* a write was attempted since open or restore */
	char why[160];		/* after a failed call: what is wrong, one line */
};

/*
 * Checks path is a readable and writable regular file, reads and keeps
 * what it holds, and works out its kind. 0 or -errno, with k->why set.
 */
int knob_open(struct knob *k, const char *path);
void knob_close(struct knob *k);

const char *knob_kind_name(enum knob_kind kind);

/* The kind of a knob holding text, on a kernel file system or not. */
enum knob_kind knob_kind_of(bool kernel_file, const char *text);

/*
 * The value in text as a knob of this kind compares it: KNOB_FILE the
 * text without its last newline, KNOB_LIST the selected token, KNOB_VALUE
 * the line with runs of blanks as one space.
 */
void knob_value_of(enum knob_kind kind, const char *text, char *buf,
		   size_t size);

/* KNOB_LIST: 0 when value is one of the choices, else -EINVAL and why. */
int knob_accepts(struct knob *k, const char *value);

/* Writes "value\n" (truncating) in one write(2). 0 or -errno, why set. */
int knob_set(struct knob *k, const char *value);

/*
 * The value now, as knob_open() compares it (normalized line, selected
 * token; for KNOB_FILE the content without its last newline).
 */
int knob_read_value(struct knob *k, char *buf, size_t size);

/* Whether now (from knob_read_value) is what writing value gives. */
bool knob_value_matches(const struct knob *k, const char *now,
			const char *value);

/*
 * Puts back what knob_open() found, if anything was written since, and
 * reads it back: 0, -EIO when it reads back differently, or -errno; why
 * set. Later calls do nothing until the next knob_set().
 */
int knob_restore(struct knob *k);

/*
 * Puts back bytes found earlier (a restore file's) instead of what
 * knob_open() found, as knob_restore() does. 0 or -errno, why set.
 */
int knob_restore_found(struct knob *k, const char *found, size_t len);

/* text for messages: one line, control bytes escaped, cut to size. */
const char *knob_text_display(const char *text, char *buf, size_t size);

/* The found value for messages, as knob_text_display() shows it. */
const char *knob_found_display(const struct knob *k, char *buf, size_t size);

#endif
