// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: options, block order, metric capture and sanity (see ab.h). */
#include "ab.h"
#include "fileio.h"
#include "slices.h"
#include "output.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void ab_usage(FILE *out)
{
	fprintf(out,
		"Usage: vmpctl ab [options] -- CMD [ARGS...]\n"
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
		"      --long-every K        --interleave: every K-th pair has slices 4x as\n"
		"                            long, to find carry-over (default: none)\n"
		"      --start-timeout S     --interleave: CMD's first rate line within S\n"
		"                            seconds (default %.0f)\n"
		"      --preset NAME         --interleave: read CMD's periodic reports:\n"
		"                            sysbench, fio, iperf3 or pgbench (vmpctl(1))\n"
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
		"  -q, --quiet               no per-run progress on stderr\n"
		"      --ignore-failure      a failed run drops its block, the A/B goes on\n"
		"      --save FILE           every run (slice pair) as a JSON line the\n"
		"                            moment it is measured, then the report\n"
		"  -h, --help                this text\n"
		"\n"
		"Per run: wall, user and sys time (wait4), /proc/vmstat pgscan and\n"
		"pgsteal, and vmpressure_ctl's skipped. CMD's stdin is /dev/null; of its\n"
		"stdout the last %u MiB are searched. The knob is restored as found on\n"
		"every exit, a stop signal included (see EXIT STATUS in vmpctl(1)).\n"
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
		AB_START_TIMEOUT_DEFAULT, AB_OUTPUT_MAX >> 20);
}

/* An arm's value is written as one line. */
static int check_value(const char *opt, const char *value)
{
	if (!value[0] || strchr(value, '\n')) {
		vmpctl_error("ab: %s: the value must be one non-empty line", opt);
		return -EINVAL;
	}
	return 0;
}

enum { OPT_SEED = 256, OPT_TARGET, OPT_CSV, OPT_INTERLEAVE, OPT_MAX_FLIP,
       OPT_SETTLE, OPT_START_TIMEOUT, OPT_LOWER, OPT_SAVE,
       OPT_IGNORE_FAILURE, OPT_LONG_EVERY, OPT_SOURCE };

enum parse_result ab_parse_args(int argc, char **argv, struct ab_options *opts)
{
	static const struct option longopts[] = {
		{ "runs", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "order", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "metric", required_argument, NULL, 'M' },
		{ "metric-name", required_argument, NULL, 'N' },
		{ "higher-is-better", no_argument, NULL, 'H' },
		{ "lower-is-better", no_argument, NULL, OPT_LOWER },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "until-precision", required_argument, NULL, 'p' },
		{ "max-time", required_argument, NULL, 'T' },
		{ "knob", required_argument, NULL, 'k' },
		{ "switch", required_argument, NULL, 'S' },
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "interleave", required_argument, NULL, OPT_INTERLEAVE },
		{ "max-flip", required_argument, NULL, OPT_MAX_FLIP },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "start-timeout", required_argument, NULL, OPT_START_TIMEOUT },
		{ "long-every", required_argument, NULL, OPT_LONG_EVERY },
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "quiet", no_argument, NULL, 'q' },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "ignore-failure", no_argument, NULL, OPT_IGNORE_FAILURE },
		AB_SOURCE_OPTIONS(OPT_SOURCE),
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool order_given = false, direction_given = false;
	uint64_t number;
	int c, err, index;

	memset(opts, 0, sizeof(*opts));
	opts->runs = AB_RUNS_DEFAULT;
	opts->warmup = AB_WARMUP_DEFAULT;
	opts->value_a = "1";
	opts->value_b = "0";
	opts->metric_name = NULL;
	opts->max_time_s = -1;
	opts->max_flip_s = -1;
	opts->settle_s = -1;
	opts->start_timeout_s = -1;
	optind = 0;	/* glibc: full re-initialisation, argv[0] is the command */
	/* "+": CMD's own options are not ours, even without "--" */
	while ((c = getopt_long(argc, argv, "+:n:w:o:M:N:Hp:T:k:S:a:b:jqh",
				longopts, &index)) != -1) {
		switch (c) {
		case 'n':
			if (arg_uint("ab", "--runs", optarg, 2, 100000, &number))
				return PARSE_USAGE;
			opts->runs = (unsigned int)number;
			break;
		case 'w':
			if (arg_uint("ab", "--warmup", optarg, 0, 100000, &number))
				return PARSE_USAGE;
			opts->warmup = (unsigned int)number;
			break;
		case 'o':
			if (strcmp(optarg, "abba") == 0) {
				opts->order = AB_ORDER_ABBA;
			} else if (strcmp(optarg, "random") == 0) {
				opts->order = AB_ORDER_RANDOM;
			} else {
				vmpctl_error("ab: --order: '%s' is not abba or random",
					     optarg);
				return PARSE_USAGE;
			}
			order_given = true;
			break;
		case OPT_SEED:
			if (arg_uint("ab", "--seed", optarg, 0, ULONG_MAX, &number))
				return PARSE_USAGE;
			opts->seed = (unsigned long)number;
			opts->seed_given = true;
			break;
		case 'M':
			opts->metric_regex = optarg;
			break;
		case 'N':
			opts->metric_name = optarg;
			break;
		case 'H':
		case OPT_LOWER:
			if (direction_given && opts->higher_is_better != (c == 'H')) {
				vmpctl_error("ab: --higher-is-better and --lower-is-better: one direction, please");
				return PARSE_USAGE;
			}
			opts->higher_is_better = c == 'H';
			direction_given = true;
			break;
		case OPT_TARGET:
			if (arg_percent("ab", "--target", optarg, &opts->target_pct))
				return PARSE_USAGE;
			break;
		case 'p':
			if (arg_percent("ab", "--until-precision", optarg,
					&opts->precision_pct))
				return PARSE_USAGE;
			break;
		case 'T':
			if (arg_seconds("ab", "--max-time", optarg, &opts->max_time_s))
				return PARSE_USAGE;
			break;
		case 'k':
			opts->knob = optarg;
			break;
		case 'S':
			opts->switch_cmd = optarg;
			break;
		case 'a':
			if (check_value("--a", optarg))
				return PARSE_USAGE;
			opts->value_a = optarg;
			break;
		case 'b':
			if (check_value("--b", optarg))
				return PARSE_USAGE;
			opts->value_b = optarg;
			break;
		case OPT_INTERLEAVE:
			if (arg_seconds("ab", "--interleave", optarg,
					&opts->interleave_s))
				return PARSE_USAGE;
			if (opts->interleave_s < AB_INTERLEAVE_MIN ||
			    opts->interleave_s > AB_INTERLEAVE_MAX) {
				vmpctl_error("ab: --interleave: '%s' is not between %g and %g seconds",
					     optarg, AB_INTERLEAVE_MIN, AB_INTERLEAVE_MAX);
				return PARSE_USAGE;
			}
			break;
		case OPT_MAX_FLIP:
			if (arg_seconds("ab", "--max-flip", optarg, &opts->max_flip_s))
				return PARSE_USAGE;
			if (opts->max_flip_s <= 0) {
				vmpctl_error("ab: --max-flip: '%s': a flip takes time, so 0 would drop every pair",
					     optarg);
				return PARSE_USAGE;
			}
			break;
		case OPT_SETTLE:
			if (arg_seconds("ab", "--settle", optarg, &opts->settle_s))
				return PARSE_USAGE;
			break;
		case OPT_LONG_EVERY:
			if (arg_uint("ab", "--long-every", optarg, 2, 100000, &number))
				return PARSE_USAGE;
			opts->long_every = (unsigned int)number;
			break;
		case OPT_START_TIMEOUT:
			if (arg_seconds("ab", "--start-timeout", optarg,
					&opts->start_timeout_s))
				return PARSE_USAGE;
			if (opts->start_timeout_s <= 0) {
				vmpctl_error("ab: --start-timeout: '%s' is not a positive number of seconds",
					     optarg);
				return PARSE_USAGE;
			}
			break;
		case 'j':
			opts->format = AB_FORMAT_JSON;
			break;
		case OPT_CSV:
			opts->format = AB_FORMAT_CSV;
			break;
		case 'q':
			opts->quiet = true;
			break;
		case OPT_SAVE:
			opts->save_path = optarg;
			break;
		case OPT_IGNORE_FAILURE:
			opts->ignore_failure = true;
			break;
		case OPT_SOURCE:
			if (ab_source_option(longopts[index].name, optarg,
					     &opts->source))
				return PARSE_USAGE;
			break;
		case 'h':
			ab_usage(stdout);
			return PARSE_HELP;
		default:
			return arg_bad_option("ab", c, argv);
		}
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
	if (opts->interleave_s > 0 && opts->metric_regex) {
		vmpctl_error("ab: --interleave compares the rate of CMD's rate lines: --metric does not apply");
		return PARSE_USAGE;
	}
	if (!(opts->interleave_s > 0) && (opts->max_flip_s >= 0 ||
	    opts->settle_s >= 0 || opts->start_timeout_s >= 0 || opts->long_every)) {
		vmpctl_error("ab: --max-flip, --settle, --start-timeout and --long-every are for --interleave");
		return PARSE_USAGE;
	}
	/* slices of AB, BA, AB, ...: a period of four slices aliases any load of that period */
	if (opts->interleave_s > 0 && order_given && opts->order == AB_ORDER_ABBA) {
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
		if (!order_given)
			opts->order = AB_ORDER_RANDOM;
		if (opts->max_flip_s < 0)
			opts->max_flip_s = IL_MAX_FLIP_FRACTION * opts->interleave_s;
		if (opts->settle_s < 0)
			opts->settle_s = 0;
		if (opts->start_timeout_s < 0)
			opts->start_timeout_s = AB_START_TIMEOUT_DEFAULT;
		/* a rate: more work done per second is better */
		if (!direction_given)
			opts->higher_is_better = true;
	}
	if (opts->max_time_s < 0)
		opts->max_time_s = opts->precision_pct > 0 ? AB_MAX_TIME_DEFAULT : 0;
	if (ab_source_finish_options(&opts->source, opts->interleave_s,
				     opts->max_time_s, optind < argc))
		return PARSE_USAGE;
	opts->cmd = optind < argc ? argv + optind : opts->source.attach_argv;
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

bool ab_checks_vmpressure(const struct ab_options *opts)
{
	return !opts->knob && !opts->switch_cmd;
}

void ab_options_free(struct ab_options *opts)
{
	ab_source_options_free(&opts->source);
	if (opts->metric_regex)
		regfree(&opts->metric);
	opts->metric_regex = NULL;
}
