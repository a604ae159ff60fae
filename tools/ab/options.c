// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: options, block order, metric capture and sanity (see ab.h). */
#include "ab.h"
#include "fileio.h"
#include "options.h"
#include "slices.h"
#include "output.h"
#include "summary.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void ab_usage(FILE *out)
{
	char presets[256];

	ab_source_preset_names(presets, sizeof(presets));
	fprintf(out,
		"Usage: vmpctl ab [options] -- CMD [ARGS...]\n"
		"       vmpctl ab report [--baseline FILE2] FILE   (a --save file again)\n"
		"       vmpctl ab --interleave S --cgroup PATH|--pid PID --counter SPEC -T S\n"
		"\n"
		"Run CMD alternately with the knob at A (stock) and B, then compare.\n"
		"\n"
		"  -n, --runs N              runs per arm (default %d); pairs of slices\n"
		"                            with --interleave\n"
		"  -w, --warmup K            discarded runs (slices) first, alternating arms\n"
		"                            (default %d)\n"
		"  -o, --order ORDER         abba or random blocks (default: abba; random\n"
		"                            with --interleave)\n"
		"      --seed N              seed of the random order (default: printed)\n"
		"  -M, --metric REGEX        number from CMD's stdout: group 1 of the first\n"
		"                            match, or the match (default: wall time)\n"
		"  -N, --metric-name NAME    the metric's label (default: metric)\n"
		"  -H, --higher-is-better    the metric's direction (times: lower is better;\n"
		"                            rates with --interleave: higher)\n"
		"      --lower-is-better     the other way\n"
		"      --target X%%           runs per arm needed to detect X%%\n"
		"  -p, --until-precision X%%  add blocks until the difference's 95%% CI\n"
		"                            half-width is below X%%\n"
		"  -T, --max-time S          start no run after S seconds (default %.0f with -p)\n"
		"      --sequential          --interleave: stop when an always-valid 95%% CI\n"
		"                            excludes 0 or lies within +-X%% (--target)\n"
		"      --covariate COUNTER   --sequential: regress each pair on this\n"
		"                            counter's rate per slice (CUPED); refused\n"
		"                            once the knob is seen to change it\n"
		"  -k, --knob PATH           the knob (default: vmpressure_ctl's enabled): a\n"
		"                            file, sysfs value or [list], sysctl or cgroup file\n"
		"  -S, --switch CMD          no knob: enter an arm by running 'CMD VALUE'\n"
		"                            with /bin/sh (e.g. load/unload a module);\n"
		"                            ends in arm A\n"
		"  -a, --a VALUE             arm A's value (default 1: stock)\n"
		"  -b, --b VALUE             arm B's value (default 0: short-circuited)\n"
		"      --interleave S        one long run of CMD, the knob flipped every S\n"
		"                            seconds, slices compared in adjacent pairs; CMD\n"
		"                            prints rate lines (pft --report-interval)\n"
		"      --max-flip S          --interleave: drop a pair whose knob write took\n"
		"                            longer (> 0; default: a quarter of the slice)\n"
		"      --settle S            --interleave: do not count the first S seconds\n"
		"                            after every flip, in both arms (default 0)\n"
		"      --split-intervals     --interleave: count a report interval across a\n"
		"                            flip or --settle in part, by overlap, instead of\n"
		"                            dropping it (an arm with longer intervals then\n"
		"                            loses no more than the other)\n"
		"      --long-every K        --interleave: every K-th pair has slices 4x as\n"
		"                            long, to find carry-over (default: none)\n"
		"      --start-timeout S     --interleave: CMD's first rate line within S\n"
		"                            seconds (default %.0f)\n"
		"      --stall-timeout S     --interleave: no progress for S seconds ends\n"
		"                            the A/B, exit 5 (default: %d report\n"
		"                            intervals, at least two slices and %.0f s;\n"
		"                            none for a --counter)\n"
		"      --preset NAME         --interleave: read CMD's periodic reports:\n"
		"                            %s (vmpctl(1))\n"
		"      --rate-regex REGEX    --interleave: group 1 of CMD's lines is a rate\n"
		"      --count-regex REGEX   ... the work done since the last such line\n"
		"      --rate-stderr         read CMD's stderr too (pgbench's -P is there)\n"
		"      --counter SPEC        --interleave: progress from a kernel counter,\n"
		"                            FILE[:FIELD[+FIELD...]], read at slice ends\n"
		"      --cgroup PATH         --counter's relative FILE is in PATH; without\n"
		"                            CMD, watch that cgroup until --max-time\n"
		"      --pid PID             the same with /proc/PID\n"
		"  -j, --json                JSON instead of the table\n"
		"      --csv                 CSV, one line per metric\n"
		"      --raw                 tables unaligned, one space between cells\n"
		"      --noheadings          tables without their header line\n"
		"      --output COLUMNS      only these columns of the tables, in this\n"
		"                            order (names: COLUMNS in vmpctl(1))\n"
		"  -q, --quiet               no per-run progress on stderr\n"
		"      --ignore-failure      a failed run drops its block, the A/B goes on\n"
		"      --run-timeout S       whole runs: kill a run (its process group)\n"
		"                            after S seconds, a failure of its arm (default\n"
		"                            %d times the longest run, not before -T ends,\n"
		"                            else %.0f s; before any ended, -T or %.0f s)\n"
		"      --save FILE           every run (slice) as a JSON line the moment\n"
		"                            it is final, then the report\n"
		"      --export-json FILE    the report also as JSON in FILE\n"
		"      --export-csv FILE     ... as CSV\n"
		"      --export-markdown FILE  ... as a Markdown table\n"
		"      --export-benchstat FILE  every run (kept slice) in Go's benchmark\n"
		"                            format, for benchstat -col /arm FILE\n"
		"      --restore FILE        no A/B: put back the knob a restore file\n"
		"                            names (vmpctl was killed during an A/B)\n"
		"  -h, --help                this text\n"
		"\n"
		"Per run: wall, user and sys time (wait4), /proc/vmstat pgscan and\n"
		"pgsteal, and vmpressure_ctl's skipped. CMD's stdin is /dev/null; of its\n"
		"stdout the last %u MiB are searched. The knob is restored as found on\n"
		"every exit, a stop signal included (see EXIT STATUS in vmpctl(1)); the\n"
		"value found is kept in $VMPCTL_RUN_DIR (default /run/vmpctl) until then.\n"
		"\n"
		"Examples:\n"
		"  vmpctl ab --metric '\"fault/wsec\":([0-9.]+)' --metric-name fault/wsec \\\n"
		"      --higher-is-better \\\n"
		"      -- vmpctl pft --json --size 64M --memcg-limit 16M\n"
		"  vmpctl ab --interleave 1 -n 100 -T 300 --higher-is-better -- \\\n"
		"      vmpctl pft -s 64M --memcg-limit 16M --duration 600 --report-interval 0.1\n"
		"  vmpctl ab --interleave 3 -n 50 --preset sysbench -- \\\n"
		"      sysbench cpu --time=600 --report-interval=1 run\n"
		"  vmpctl ab --interleave 5 -T 600 --cgroup /sys/fs/cgroup/db.service \\\n"
		"      --counter io.stat:rbytes+wbytes\n"
		"  vmpctl ab --metric 'Time: ([0-9.]+)' -- hackbench -g 4 -l 200\n"
		"  vmpctl ab --knob /sys/kernel/mm/transparent_hugepage/enabled \\\n"
		"      --a madvise --b always -- CMD\n",
		AB_RUNS_DEFAULT, AB_WARMUP_DEFAULT, AB_MAX_TIME_DEFAULT,
		AB_START_TIMEOUT_DEFAULT, AB_STALL_INTERVALS, AB_STALL_MIN_S,
		presets, AB_RUN_TIMEOUT_FACTOR,
		AB_RUN_TIMEOUT_MIN_S, AB_FIRST_RUN_TIMEOUT_S, AB_OUTPUT_MAX >> 20);
}

/* Parsing state beyond the options themselves. */
struct ab_parse {
	struct ab_options *opts;
	bool order_given;
	bool direction_given;
};

/* An arm's value is written as one line. */
static int check_value(const char *opt, const char *value)
{
	if (!value[0] || strchr(value, '\n')) {
		vmpctl_error("ab: %s: the value must be one non-empty line", opt);
		return -EINVAL;
	}
	return 0;
}

static int set_order(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	(void)opt;
	if (strcmp(arg, "abba") == 0) {
		p->opts->order = AB_ORDER_ABBA;
	} else if (strcmp(arg, "random") == 0) {
		p->opts->order = AB_ORDER_RANDOM;
	} else {
		vmpctl_error("ab: --order: '%s' is not abba or random", arg);
		return -EINVAL;
	}
	p->order_given = true;
	return 0;
}

static int set_seed(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;
	uint64_t number;

	if (arg_uint("ab", opt, arg, 0, ULONG_MAX, &number))
		return -EINVAL;
	p->opts->seed = (unsigned long)number;
	p->opts->seed_given = true;
	return 0;
}

static int set_direction(struct ab_parse *p, bool higher)
{
	if (p->direction_given && p->opts->higher_is_better != higher) {
		vmpctl_error("ab: --higher-is-better and --lower-is-better: one direction, please");
		return -EINVAL;
	}
	p->opts->higher_is_better = higher;
	p->direction_given = true;
	return 0;
}

static int set_higher(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	(void)opt;
	(void)arg;
	return set_direction(p, true);
}

static int set_lower(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	(void)opt;
	(void)arg;
	return set_direction(p, false);
}

static int set_value_a(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	if (check_value(opt, arg))
		return -EINVAL;
	p->opts->value_a = arg;
	return 0;
}

static int set_value_b(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	if (check_value(opt, arg))
		return -EINVAL;
	p->opts->value_b = arg;
	return 0;
}

int ab_opt_format_json(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	*(enum ab_format *)ctx = AB_FORMAT_JSON;
	return 0;
}

int ab_opt_format_csv(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	*(enum ab_format *)ctx = AB_FORMAT_CSV;
	return 0;
}

int ab_opt_format_markdown(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	*(enum ab_format *)ctx = AB_FORMAT_MARKDOWN;
	return 0;
}

static int set_json(void *ctx, const char *opt, const char *arg)
{
	return ab_opt_format_json(&((struct ab_parse *)ctx)->opts->format, opt, arg);
}

static int set_csv(void *ctx, const char *opt, const char *arg)
{
	return ab_opt_format_csv(&((struct ab_parse *)ctx)->opts->format, opt, arg);
}

static int check_interleave(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;
	double s = p->opts->interleave_s;

	if (s >= AB_INTERLEAVE_MIN && s <= AB_INTERLEAVE_MAX)
		return 0;
	vmpctl_error("ab: %s: '%s' is not between %g and %g seconds", opt, arg,
		     AB_INTERLEAVE_MIN, AB_INTERLEAVE_MAX);
	return -EINVAL;
}

static int check_max_flip(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	if (p->opts->max_flip_s > 0)
		return 0;
	vmpctl_error("ab: %s: '%s': a flip takes time, so 0 would drop every pair",
		     opt, arg);
	return -EINVAL;
}

static int check_start_timeout(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	if (p->opts->start_timeout_s > 0)
		return 0;
	vmpctl_error("ab: %s: '%s' is not a positive number of seconds", opt, arg);
	return -EINVAL;
}

/* --stall-timeout and --run-timeout: 0 would end everything at once. */
static int check_timeout(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	if ((strstr(opt, "stall") ? p->opts->stall_timeout_s : p->opts->run_timeout_s) > 0)
		return 0;
	vmpctl_error("ab: %s: '%s' is not a positive number of seconds", opt, arg);
	return -EINVAL;
}

/* The options that pick a source: sources.h checks and keeps them. */
static int set_source(void *ctx, const char *opt, const char *arg)
{
	struct ab_parse *p = ctx;

	return ab_source_option(opt + 2, arg, &p->opts->source);
}

#define AB_FIELD(field) offsetof(struct ab_options, field)

static const struct opt ab_option_table[] = {
	{ "runs", 'n', OPT_UINT, AB_FIELD(runs), 2, 100000, false, NULL },
	{ "warmup", 'w', OPT_UINT, AB_FIELD(warmup), 0, 100000, false, NULL },
	{ "order", 'o', OPT_CALL, 0, 0, 0, true, set_order },
	{ "seed", 0, OPT_CALL, 0, 0, 0, true, set_seed },
	{ "metric", 'M', OPT_TEXT, AB_FIELD(metric_regex), 0, 0, false, NULL },
	{ "metric-name", 'N', OPT_TEXT, AB_FIELD(metric_name), 0, 0, false, NULL },
	{ "higher-is-better", 'H', OPT_CALL, 0, 0, 0, false, set_higher },
	{ "lower-is-better", 0, OPT_CALL, 0, 0, 0, false, set_lower },
	{ "target", 0, OPT_PERCENT, AB_FIELD(target_pct), 0, 0, false, NULL },
	{ "until-precision", 'p', OPT_PERCENT, AB_FIELD(precision_pct), 0, 0,
	  false, NULL },
	{ "max-time", 'T', OPT_SECONDS, AB_FIELD(max_time_s), 0, 0, false, NULL },
	{ "sequential", 0, OPT_TRUE, AB_FIELD(sequential), 0, 0, false, NULL },
	{ "covariate", 0, OPT_TEXT, AB_FIELD(covariate_spec), 0, 0, false, NULL },
	{ "knob", 'k', OPT_TEXT, AB_FIELD(knob), 0, 0, false, NULL },
	{ "switch", 'S', OPT_TEXT, AB_FIELD(switch_cmd), 0, 0, false, NULL },
	{ "a", 'a', OPT_CALL, 0, 0, 0, true, set_value_a },
	{ "b", 'b', OPT_CALL, 0, 0, 0, true, set_value_b },
	{ "interleave", 0, OPT_SECONDS, AB_FIELD(interleave_s), 0, 0, false,
	  check_interleave },
	{ "max-flip", 0, OPT_SECONDS, AB_FIELD(max_flip_s), 0, 0, false,
	  check_max_flip },
	{ "settle", 0, OPT_SECONDS, AB_FIELD(settle_s), 0, 0, false, NULL },
	{ "split-intervals", 0, OPT_TRUE, AB_FIELD(split_intervals), 0, 0, false,
	  NULL },
	{ "start-timeout", 0, OPT_SECONDS, AB_FIELD(start_timeout_s), 0, 0,
	  false, check_start_timeout },
	{ "stall-timeout", 0, OPT_SECONDS, AB_FIELD(stall_timeout_s), 0, 0,
	  false, check_timeout },
	{ "run-timeout", 0, OPT_SECONDS, AB_FIELD(run_timeout_s), 0, 0,
	  false, check_timeout },
	{ "long-every", 0, OPT_UINT, AB_FIELD(long_every), 2, 100000, false,
	  NULL },
	{ "json", 'j', OPT_CALL, 0, 0, 0, false, set_json },
	{ "csv", 0, OPT_CALL, 0, 0, 0, false, set_csv },
	OPT_TABLE_FORMAT,
	{ "quiet", 'q', OPT_TRUE, AB_FIELD(quiet), 0, 0, false, NULL },
	{ "save", 0, OPT_TEXT, AB_FIELD(save_path), 0, 0, false, NULL },
	{ "ignore-failure", 0, OPT_TRUE, AB_FIELD(ignore_failure), 0, 0, false,
	  NULL },
	{ "restore", 0, OPT_TEXT, AB_FIELD(restore_path), 0, 0, false, NULL },
	{ "export-json", 0, OPT_TEXT, AB_FIELD(export_json), 0, 0, false, NULL },
	{ "export-csv", 0, OPT_TEXT, AB_FIELD(export_csv), 0, 0, false, NULL },
	{ "export-markdown", 0, OPT_TEXT, AB_FIELD(export_markdown), 0, 0, false,
	  NULL },
	{ "export-benchstat", 0, OPT_TEXT, AB_FIELD(export_benchstat), 0, 0, false,
	  NULL },
	{ "rate-regex", 0, OPT_CALL, 0, 0, 0, true, set_source },
	{ "count-regex", 0, OPT_CALL, 0, 0, 0, true, set_source },
	{ "preset", 0, OPT_CALL, 0, 0, 0, true, set_source },
	{ "rate-stderr", 0, OPT_TRUE, AB_FIELD(source.from_stderr), 0, 0, false,
	  NULL },
	{ "counter", 0, OPT_CALL, 0, 0, 0, true, set_source },
	{ "cgroup", 0, OPT_TEXT, AB_FIELD(source.cgroup), 0, 0, false, NULL },
	/* PID_MAX_LIMIT */
	{ "pid", 0, OPT_UINT, AB_FIELD(source.pid), 1, 4194304, false, NULL },
};

enum parse_result ab_parse_args(int argc, char **argv, struct ab_options *opts)
{
	struct ab_parse p = { .opts = opts };
	const struct opt_parser parser = {
		.cmd = "ab", .table = ab_option_table,
		.n_options = OPT_COUNT(ab_option_table), .fields = opts, .ctx = &p,
		.tables = ab_tables, .usage = ab_usage,
		.operands = OPT_STOP_AT_OPERAND,
	};
	enum parse_result parsed;
	int err;

	memset(opts, 0, sizeof(*opts));
	opts->runs = AB_RUNS_DEFAULT;
	opts->warmup = AB_WARMUP_DEFAULT;
	opts->value_a = "1";
	opts->value_b = "0";
	opts->max_time_s = -1;
	opts->max_flip_s = -1;
	opts->settle_s = -1;
	opts->start_timeout_s = -1;
	parsed = opt_parse(&parser, argc, argv, NULL);
	if (parsed != PARSE_RUN)
		return parsed;
	if (opts->restore_path) {
		if (optind < argc || argc > 3) {
			vmpctl_error("ab: --restore FILE puts a knob back and runs nothing: no other options or command");
			return PARSE_USAGE;
		}
		return PARSE_RUN;
	}
	if (!opts->metric_name)
		opts->metric_name = opts->interleave_s > 0 ? "rate" : "metric";
	if (strpbrk(opts->metric_name, ",\"\\\n") || !opts->metric_name[0]) {
		vmpctl_error("ab: --metric-name: '%s' is empty or has a comma, quote, backslash or newline",
			     opts->metric_name);
		return PARSE_USAGE;
	}
	if (opts->interleave_s > 0 && opts->ignore_failure) {
		vmpctl_error("ab: --ignore-failure is for whole runs: --interleave has one run");
		return PARSE_USAGE;
	}
	if (opts->interleave_s > 0 && opts->run_timeout_s > 0) {
		vmpctl_error("ab: --run-timeout is for whole runs: --interleave has --stall-timeout");
		return PARSE_USAGE;
	}
	if (!(opts->interleave_s > 0) && opts->stall_timeout_s > 0) {
		vmpctl_error("ab: --stall-timeout is for --interleave: whole runs have --run-timeout");
		return PARSE_USAGE;
	}
	if (opts->interleave_s > 0 && opts->metric_regex) {
		vmpctl_error("ab: --interleave compares the rate of CMD's rate lines: --metric does not apply");
		return PARSE_USAGE;
	}
	if (!(opts->interleave_s > 0) && (opts->max_flip_s >= 0 ||
	    opts->settle_s >= 0 || opts->start_timeout_s >= 0 || opts->long_every ||
	    opts->split_intervals)) {
		vmpctl_error("ab: --max-flip, --settle, --split-intervals, --start-timeout and --long-every are for --interleave");
		return PARSE_USAGE;
	}
	/* slices of AB, BA, AB, ...: a period of four slices aliases any load of that period */
	if (opts->interleave_s > 0 && p.order_given && opts->order == AB_ORDER_ABBA) {
		vmpctl_error("ab: --order abba with --interleave: its fixed period of four slices turns a periodic load into a difference; the pairs' order must be random");
		return PARSE_USAGE;
	}
	if (opts->interleave_s > 0 && opts->settle_s >= opts->interleave_s) {
		vmpctl_error("ab: --settle %g: not shorter than the slice (--interleave %g), nothing would be counted",
			     opts->settle_s, opts->interleave_s);
		return PARSE_USAGE;
	}
	if (opts->higher_is_better && !opts->metric_regex &&
	    !(opts->interleave_s > 0)) {
		vmpctl_error("ab: --higher-is-better needs --metric (times are lower-is-better)");
		return PARSE_USAGE;
	}
	if (opts->knob && opts->switch_cmd) {
		vmpctl_error("ab: --knob and --switch: one way to change arms, please");
		return PARSE_USAGE;
	}
	/* interleaved, A = B is the null calibration: slices, flips, no effect */
	if (strcmp(opts->value_a, opts->value_b) == 0 && !(opts->interleave_s > 0)) {
		vmpctl_error("ab: --a and --b are both '%s': nothing to compare (an A/A run needs --interleave)",
			     opts->value_a);
		return PARSE_USAGE;
	}
	if (opts->interleave_s > 0) {
		if (!p.order_given)
			opts->order = AB_ORDER_RANDOM;
		if (opts->max_flip_s < 0)
			opts->max_flip_s = IL_MAX_FLIP_FRACTION * opts->interleave_s;
		if (opts->settle_s < 0)
			opts->settle_s = 0;
		if (opts->start_timeout_s < 0)
			opts->start_timeout_s = AB_START_TIMEOUT_DEFAULT;
		/* a rate: more work done per second is better */
		if (!p.direction_given)
			opts->higher_is_better = true;
	}
	if (opts->sequential && (!(opts->interleave_s > 0) || !(opts->target_pct > 0) ||
				 opts->precision_pct > 0)) {
		vmpctl_error("ab: --sequential needs --interleave and --target X%% (its stop rule), and replaces --until-precision");
		return PARSE_USAGE;
	}
	if (opts->covariate_spec && !opts->sequential) {
		vmpctl_error("ab: --covariate needs --sequential (the test that adjusts for it)");
		return PARSE_USAGE;
	}
	if (opts->max_time_s < 0)
		opts->max_time_s = opts->precision_pct > 0 || opts->sequential ?
			AB_MAX_TIME_DEFAULT : 0;
	if (ab_source_finish_options(&opts->source, opts->interleave_s,
				     opts->max_time_s, optind < argc))
		return PARSE_USAGE;
	opts->cmd = optind < argc ? argv + optind : opts->source.attach_argv;
	/* ab exits on a usage error without freeing: the source's too */
	if (opts->covariate_spec &&
	    ab_counter_parse(opts->covariate_spec, opts->source.target[0] ?
			     opts->source.target : NULL, &opts->covariate)) {
		ab_source_options_free(&opts->source);
		return PARSE_USAGE;
	}
	if (opts->metric_regex) {
		err = regcomp(&opts->metric, opts->metric_regex, REG_EXTENDED);
		if (err) {
			char why[128];

			regerror(err, &opts->metric, why, sizeof(why));
			vmpctl_error("ab: --metric: '%s': %s", opts->metric_regex, why);
			opts->metric_regex = NULL;
			return PARSE_USAGE;
		}
	}
	return PARSE_RUN;
}

void ab_options_free(struct ab_options *opts)
{
	ab_source_options_free(&opts->source);
	if (opts->metric_regex)
		regfree(&opts->metric);
	opts->metric_regex = NULL;
}
