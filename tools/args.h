/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option values shared by several commands. The parsers print
 * "vmpctl: CMD: --OPT: ..." on bad input and return -EINVAL, so each
 * command's getopt loop stays a list of cases.
 *
 * A short option means the same in every command that has it: -c cgroup,
 * -l level, -m mode, -s size, -L limit, -t seconds, -j json, -q quiet,
 * -h help; the others are ab's own (-r is pft's). Options without one
 * meaning everywhere have only a long name.
 */
#ifndef VMPCTL_ARGS_H
#define VMPCTL_ARGS_H

#include <stdint.h>

#include "pressure.h"

/* What a command's argument parser decided. */
enum parse_result {
	PARSE_RUN,	/* options are valid: run */
	PARSE_HELP,	/* --help was printed: exit 0 */
	PARSE_USAGE,	/* an error was printed: exit EXIT_USAGE */
};

/* Exit status for a parse that does not run the command: 0 or EXIT_USAGE. */
int parse_exit_status(enum parse_result parsed);

/* A whole number in min..max (parse_u64). */
int arg_uint(const char *cmd, const char *opt, const char *text,
	     uint64_t min, uint64_t max, uint64_t *value);
/* A size (parse_size: K/M/G/T suffixes, bare MiB), one page to 1 TiB. */
int arg_size(const char *cmd, const char *opt, const char *text,
	     uint64_t *bytes);
/* A percentage above 0: "0.2%" or "0.2". */
int arg_percent(const char *cmd, const char *opt, const char *text,
		double *pct);
/* A non-negative number of seconds (decimals allowed). */
int arg_seconds(const char *cmd, const char *opt, const char *text,
		double *seconds);
/* low|medium|critical|all to a level mask. */
int arg_levels(const char *cmd, const char *text, unsigned int *mask);
/* default|hierarchy|local. */
int arg_mode(const char *cmd, const char *text, enum pressure_mode *mode);

/*
 * Option strings passed to getopt_long start with ':' so that getopt stays
 * quiet; this prints "vmpctl: CMD: unknown option X" or "... needs a
 * value" for its '?' or ':' result c and returns PARSE_USAGE.
 */
enum parse_result arg_bad_option(const char *cmd, int c, char **argv);

/*
 * Reports what getopt_long left over: an unknown option was already named
 * by getopt; stray operands are named here. Returns PARSE_USAGE, or
 * PARSE_RUN when argv[optind..] is empty.
 */
enum parse_result arg_no_operands(const char *cmd, int argc, char **argv,
				  int optind_now);

#endif
