/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output a test reads back: a FILE backed by memory, whose text the test
 * gets as one string once the printer is done. Shared by every test of a
 * printer, so that each asserts on the text and none repeats the plumbing.
 */
#ifndef VMPCTL_TEST_CAPTURE_H
#define VMPCTL_TEST_CAPTURE_H

#include <stdio.h>

/* open_memstream() keeps pointers to text and size: the caller's frame. */
struct capture {
	FILE *out;
	char *text;
	size_t size;
};

/* Opens c->out and returns it; fails the test when it cannot. */
FILE *capture_open(struct capture *c);

/* Closes c->out and returns what was printed to it; the caller frees it. */
char *capture_text(struct capture *c);

/*
 * The same for one JSON document: asserts it ends with what json.h adds
 * to every object (the version "test" and, unless the document has its
 * own, uname's kernel) and returns it without them.
 */
char *capture_json_text(struct capture *c);

/*
 * The widest line of text in characters of the locale's encoding (call
 * setlocale(LC_CTYPE, "C.UTF-8") first for UTF-8), not in bytes.
 */
size_t capture_widest_line(const char *text);

#endif
