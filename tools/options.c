// SPDX-License-Identifier: GPL-2.0
#include "options.h"
#include "output.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for the long-only option at table index i */
#define LONG_ONLY_BASE 256

static bool takes_argument(const struct opt *o)
{
	switch (o->kind) {
	case OPT_TRUE:
		return false;
	case OPT_TABLE:
	case OPT_CALL:
		return o->has_arg;
	default:
		return true;
	}
}

/* getopt_long's tables from p's, with --help last; NULL when out of memory. */
static struct option *build_getopt(const struct opt_parser *p, char *shortopts)
{
	struct option *longopts = calloc(p->n_options + 2, sizeof(*longopts));
	char *s = shortopts;
	size_t i;

	if (!longopts)
		return NULL;
	if (p->operands == OPT_STOP_AT_OPERAND)
		*s++ = '+';
	*s++ = ':';	/* quiet getopt: arg_bad_option() says what was wrong */
	for (i = 0; i < p->n_options; i++) {
		const struct opt *o = &p->table[i];

		longopts[i] = (struct option){
			.name = o->name,
			.has_arg = takes_argument(o) ? required_argument : no_argument,
			.val = o->short_name ? o->short_name : LONG_ONLY_BASE + (int)i,
		};
		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (takes_argument(o))
				*s++ = ':';
		}
	}
	longopts[i] = (struct option){ .name = "help", .val = 'h' };
	*s++ = 'h';
	*s = '\0';
	return longopts;
}

static const struct opt *find_option(const struct opt_parser *p, int c)
{
	size_t i;

	if (c >= LONG_ONLY_BASE && c < LONG_ONLY_BASE + (int)p->n_options)
		return &p->table[c - LONG_ONLY_BASE];
	for (i = 0; i < p->n_options; i++)
		if (p->table[i].short_name && p->table[i].short_name == c)
			return &p->table[i];
	return NULL;
}

/* Takes one option's value into p->fields; 0 or -EINVAL (printed). */
static int take_option(const struct opt_parser *p, const struct opt *o,
		       const char *arg)
{
	char *field = (char *)p->fields + o->offset;
	const char *cmd = p->cmd;
	char opt[32];
	uint64_t number;

	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->kind) {
	case OPT_TRUE:
		*(bool *)field = true;
		break;
	case OPT_TEXT:
		*(const char **)field = arg;
		break;
	case OPT_UINT:
		if (arg_uint(cmd, opt, arg, o->min, o->max, &number))
			return -EINVAL;
		*(unsigned int *)field = (unsigned int)number;
		break;
	case OPT_SECONDS:
		if (arg_seconds(cmd, opt, arg, (double *)field))
			return -EINVAL;
		break;
	case OPT_PERCENT:
		if (arg_percent(cmd, opt, arg, (double *)field))
			return -EINVAL;
		break;
	case OPT_SIZE:
		if (arg_size(cmd, opt, arg, (uint64_t *)field))
			return -EINVAL;
		break;
	case OPT_LEVELS:
		if (arg_levels(cmd, arg, (unsigned int *)field))
			return -EINVAL;
		break;
	case OPT_MODE:
		if (arg_mode(cmd, arg, (enum pressure_mode *)field))
			return -EINVAL;
		break;
	case OPT_TABLE:
		if (table_format_option(cmd, o->name, arg, p->tables))
			return -EINVAL;
		break;
	case OPT_CALL:
		break;
	}
	return o->set ? o->set(p->ctx, opt, arg) : 0;
}

enum parse_result opt_parse(const struct opt_parser *p, int argc, char **argv,
			    int *first_operand)
{
	char shortopts[3 + 2 * p->n_options + 2];
	struct option *longopts = build_getopt(p, shortopts);
	enum parse_result parsed = PARSE_RUN;
	int c;

	if (!longopts) {
		vmpctl_error("%s: parsing options: %s", p->cmd, strerror(ENOMEM));
		return PARSE_USAGE;
	}
	optind = 0;	/* glibc: full re-initialisation, argv[0] is the command */
	while (parsed == PARSE_RUN &&
	       (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct opt *o = find_option(p, c);

		if (c == 'h') {
			p->usage(stdout);
			parsed = PARSE_HELP;
		} else if (!o) {
			parsed = arg_bad_option(p->cmd, c, argv);
		} else if (take_option(p, o, optarg)) {
			parsed = PARSE_USAGE;
		}
	}
	free(longopts);
	if (parsed != PARSE_RUN)
		return parsed;
	if (first_operand)
		*first_operand = optind;
	if (p->operands == OPT_NO_OPERANDS)
		return arg_no_operands(p->cmd, argc, argv, optind);
	return PARSE_RUN;
}
