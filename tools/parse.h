/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text to numbers: the one integer parser and the one size parser every
 * command and every kernel file read goes through. Each returns 0,
 * -EINVAL (not that kind of number) or -ERANGE (too large).
 */
#ifndef VMPCTL_PARSE_H
#define VMPCTL_PARSE_H

#include <stdint.h>

/*
 * Unsigned decimal, as the kernel prints it: digits only (no sign, no
 * leading space), optionally followed by whitespace such as the newline
 * of a sysfs attribute.
 */
int parse_u64(const char *text, uint64_t *value);

/* "0" or "1" with optional trailing whitespace. */
int parse_bool01(const char *text, int *value);

/*
 * A size: a decimal number (a fraction allowed) with an optional binary
 * suffix K, M, G or T (any case, optionally followed by "iB" or "B"); a
 * bare number is MiB. "64", "64M", "64MiB" and "0.0625G" are all 64 MiB.
 * Rounded down to whole bytes; below one byte is -ERANGE.
 */
int parse_size(const char *text, uint64_t *bytes);

#endif
