/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every command's options as one table: a row names the option, the kind
 * of value it takes and where that value goes; opt_parse() builds
 * getopt_long's tables from it, checks each value with args.h's parsers
 * and answers --help with the command's usage. A command's own rules
 * between options (one excludes another, a default from a third) stay in
 * the command, after the parse.
 */
#ifndef VMPCTL_OPTIONS_H
#define VMPCTL_OPTIONS_H

#include "args.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_TRUE,	/* no value; the bool field becomes true */
	OPT_TEXT,	/* the value itself, as a const char * field */
	OPT_UINT,	/* unsigned int field, min..max */
	OPT_SECONDS,	/* double field, 0 or more */
	OPT_PERCENT,	/* double field, above 0 */
	OPT_SIZE,	/* uint64_t field, bytes (arg_size) */
	OPT_LEVELS,	/* unsigned int field, a pressure level mask */
	OPT_MODE,	/* enum pressure_mode field */
	OPT_TABLE,	/* --raw, --noheadings, --output: opt_parser's tables */
	OPT_CALL,	/* set() alone; has_arg says whether it takes a value */
};

struct opt {
	const char *name;
	int short_name;			/* 0: long name only */
	enum opt_kind kind;
	size_t offset;			/* of the field in opt_parser.fields */
	uint64_t min, max;		/* OPT_UINT */
	bool has_arg;			/* OPT_CALL */
	/* after the field is set (if any): 0, or -EINVAL with the error printed */
	int (*set)(void *ctx, const char *opt, const char *arg);
};

/* The table rows every command with a table output shares. */
#define OPT_TABLE_FORMAT \
	{ "raw", 0, OPT_TABLE, 0, 0, 0, false, NULL }, \
	{ "noheadings", 0, OPT_TABLE, 0, 0, 0, false, NULL }, \
	{ "output", 0, OPT_TABLE, 0, 0, 0, true, NULL }

enum opt_operands {
	OPT_NO_OPERANDS,	/* a word that is not an option is an error */
	OPT_OPERANDS,		/* operands anywhere, options around them */
	/* the first operand ends our options: a command of the user's follows */
	OPT_STOP_AT_OPERAND,
};

struct opt_parser {
	const char *cmd;			/* in error messages */
	const struct opt *table;
	size_t n_options;
	void *fields;				/* where offsets point */
	void *ctx;				/* set()'s first argument */
	const char *const *const *tables;	/* OPT_TABLE's column names */
	void (*usage)(FILE *out);		/* --help */
	enum opt_operands operands;
};

#define OPT_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/*
 * Parses argv[1..] (argv[0] is the command's name). Unless operands is
 * OPT_NO_OPERANDS, *first_operand is the index in argv of the first
 * operand (argc when none); it may be NULL otherwise.
 */
enum parse_result opt_parse(const struct opt_parser *p, int argc, char **argv,
			    int *first_operand);

#endif
