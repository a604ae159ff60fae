// SPDX-License-Identifier: GPL-2.0
/*
 * A number a regex finds in a text (ab.h): whole runs' --metric and the
 * line sources' --rate-regex share it, so it lives below both.
 */
#include "ab.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ab_extract_metric(const regex_t *re, const char *text, double *value)
{
	regmatch_t match[2];
	char number[64];
	size_t len;
	char *end;
	int group;

	if (regexec(re, text, 2, match, 0) != 0)
		return -ENOENT;
	group = re->re_nsub >= 1 && match[1].rm_so >= 0 ? 1 : 0;
	len = (size_t)(match[group].rm_eo - match[group].rm_so);
	if (len == 0 || len >= sizeof(number))
		return -EINVAL;
	memcpy(number, text + match[group].rm_so, len);
	number[len] = '\0';
	*value = strtod(number, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == number || *end || !isfinite(*value))
		return -EINVAL;
	return 0;
}
