// SPDX-License-Identifier: GPL-2.0
#include "args.h"
#include "exit_codes.h"
#include "output.h"
#include "parse.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZE_MAX_BYTES (1ULL << 40)

int parse_exit_status(enum parse_result parsed)
{
	return parsed == PARSE_HELP ? 0 : EXIT_USAGE;
}

int arg_uint(const char *cmd, const char *opt, const char *text,
	     uint64_t min, uint64_t max, uint64_t *value)
{
	/* a trailing newline is fine in a kernel file, not in an argument */
	if (parse_u64(text, value) || text[strspn(text, "0123456789")] ||
	    *value < min || *value > max) {
		vmpctl_error("%s: %s: '%s' is not a whole number in %" PRIu64
			     "..%" PRIu64, cmd, opt, text, min, max);
		return -EINVAL;
	}
	return 0;
}

int arg_size(const char *cmd, const char *opt, const char *text,
	     uint64_t *bytes)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (parse_size(text, bytes) || *bytes < page || *bytes > SIZE_MAX_BYTES) {
		vmpctl_error("%s: %s: '%s' is not a size from %" PRIu64
			     "K to 1T (MiB, or with a K, M, G or T suffix)",
			     cmd, opt, text, page >> 10);
		return -EINVAL;
	}
	return 0;
}

int arg_percent(const char *cmd, const char *opt, const char *text,
		double *pct)
{
	char *end;

	*pct = strtod(text, &end);
	if (end == text || (*end == '%' && end[1]) || (*end && *end != '%') ||
	    !isfinite(*pct) || *pct <= 0) {
		vmpctl_error("%s: %s: '%s' is not a percentage above 0", cmd,
			     opt, text);
		return -EINVAL;
	}
	return 0;
}

int arg_seconds(const char *cmd, const char *opt, const char *text,
		double *seconds)
{
	char *end;

	*seconds = strtod(text, &end);
	if (end == text || *end || !isfinite(*seconds) || *seconds < 0) {
		vmpctl_error("%s: %s: '%s' is not a number of seconds", cmd, opt,
			     text);
		return -EINVAL;
	}
	return 0;
}

int arg_levels(const char *cmd, const char *text, unsigned int *mask)
{
	if (pressure_level_parse(text, mask)) {
		vmpctl_error("%s: --level: '%s' is not one of low, medium, critical, all",
			     cmd, text);
		return -EINVAL;
	}
	return 0;
}

int arg_mode(const char *cmd, const char *text, enum pressure_mode *mode)
{
	if (pressure_mode_parse(text, mode)) {
		vmpctl_error("%s: --mode: '%s' is not one of default, hierarchy, local",
			     cmd, text);
		return -EINVAL;
	}
	return 0;
}

enum parse_result arg_no_operands(const char *cmd, int argc, char **argv,
				  int optind_now)
{
	if (optind_now < argc) {
		vmpctl_error("%s: unexpected argument '%s' (see vmpctl %s --help)",
			     cmd, argv[optind_now], cmd);
		return PARSE_USAGE;
	}
	return PARSE_RUN;
}

enum parse_result arg_bad_option(const char *cmd, int c, char **argv)
{
	/*
	 * optind is past the offending word. optopt names an unknown short
	 * option (it is 0 for an unknown long one).
	 */
	const char *word = argv[optind - 1];
	char short_opt[3] = { '-', (char)optopt, '\0' };

	if (c == ':')
		vmpctl_error("%s: option %s needs a value (see vmpctl %s --help)",
			     cmd, word, cmd);
	else
		vmpctl_error("%s: unknown option %s (see vmpctl %s --help)", cmd,
			     optopt ? short_opt : word, cmd);
	return PARSE_USAGE;
}
