// SPDX-License-Identifier: GPL-2.0
#include "args.h"
#include "commands.h"
#include "fileio.h"
#include "output.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>

#define MIB_MAX (1024u * 1024u)

int parse_exit_status(enum parse_result parsed)
{
	return parsed == PARSE_HELP ? 0 : EXIT_USAGE;
}

int arg_mib(const char *cmd, const char *opt, const char *text, uint64_t *mib)
{
	if (parse_u64(text, mib) || *mib == 0 || *mib > MIB_MAX) {
		vmpctl_error("%s: %s: '%s' is not a size in MiB (1..%u)", cmd,
			     opt, text, MIB_MAX);
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
