// SPDX-License-Identifier: GPL-2.0
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int only_trailing_space(const char *p)
{
	while (*p) {
		if (!isspace((unsigned char)*p))
			return 0;
		p++;
	}
	return 1;
}

int parse_u64(const char *text, uint64_t *value)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a sign: the kernel prints neither. */
	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (!only_trailing_space(end))
		return -EINVAL;
	*value = v;
	return 0;
}

int parse_bool01(const char *text, int *value)
{
	if ((text[0] != '0' && text[0] != '1') || !only_trailing_space(text + 1))
		return -EINVAL;
	*value = text[0] - '0';
	return 0;
}

int parse_size(const char *text, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *unit;
	double value;
	char *end;
	int power = 2;	/* no suffix: MiB */

	/* strtod would take hex, "inf", "nan", signs and leading space */
	if (!isdigit((unsigned char)text[0]) || strpbrk(text, "xXpP"))
		return -EINVAL;
	errno = 0;
	value = strtod(text, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end) {
		unit = strchr(units, toupper((unsigned char)*end));
		if (!unit)
			return -EINVAL;
		power = (int)(unit - units) + 1;
		end++;
		if (strcmp(end, "iB") == 0)
			end += 2;
		else if (strcmp(end, "B") == 0)
			end++;
		if (*end)
			return -EINVAL;
	}
	value *= pow(1024.0, power);
	if (!(value >= 1) || value >= 18446744073709551616.0)
		return -ERANGE;
	*bytes = (uint64_t)value;
	return 0;
}
