// SPDX-License-Identifier: GPL-2.0
/* vmpctl watch: print memory pressure events as they arrive. */
#include "args.h"
#include "cgroup.h"
#include "commands.h"
#include "output.h"
#include "pressure.h"
#include "signals.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How often to look whether the cgroup still exists when nothing happens. */
#define WATCH_POLL_MS 1000

/* A reader that went away (EPIPE) ends the watch. */
static void print_event(FILE *out, enum pressure_level level, uint64_t count)
{
	struct timespec now;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "%s.%03ldZ  %-8s  %llu\n", stamp, now.tv_nsec / 1000000,
		pressure_level_name(level), (unsigned long long)count);
	if (fflush(out) == EOF)
		stop_note_write_error(errno);
}

static bool still_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static enum parse_result watch_parse_args(int argc, char **argv,
					  const char **cgroup,
					  unsigned int *levels,
					  enum pressure_mode *mode)
{
	static const struct option longopts[] = {
		{ "cgroup", required_argument, NULL, 'c' },
		{ "level", required_argument, NULL, 'l' },
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*cgroup = NULL;
	*levels = PRESSURE_ALL_LEVELS;
	*mode = PRESSURE_MODE_DEFAULT;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":c:l:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			*cgroup = optarg;
			break;
		case 'l':
			if (arg_levels("watch", optarg, levels))
				return PARSE_USAGE;
			break;
		case 'm':
			if (arg_mode("watch", optarg, mode))
				return PARSE_USAGE;
			break;
		case 'h':
			printf("Usage: vmpctl watch [options]\n"
			       "\n"
			       "Print each memory pressure event (UTC time, level, count) until\n"
			       "interrupted or until the cgroup is removed.\n"
			       "\n"
			       "Options:\n"
			       "  -c, --cgroup PATH   cgroup-v1 memory cgroup (default: the hierarchy root)\n"
			       "  -l, --level LEVEL   low, medium, critical or all (default all)\n"
			       "  -m, --mode MODE     default, hierarchy or local (default default)\n"
			       "  -h, --help          show this help\n");
			return PARSE_HELP;
		default:
			return arg_bad_option("watch", c, argv);
		}
	}
	return arg_no_operands("watch", argc, argv, optind);
}

static int resolve_cgroup(const char *wanted, struct memcg *cg)
{
	struct cgroup_layout layout;
	int err;

	if (!wanted) {
		err = cgroup_layout_detect(&layout);
		if (err) {
			vmpctl_error("watch: reading /proc/mounts: %s", strerror(-err));
			return EXIT_ENVIRONMENT;
		}
		if (!layout.v1_memory[0]) {
			vmpctl_error("watch: no cgroup-v1 memory hierarchy mounted: memory.pressure_level is not available%s",
				     layout.v2_root[0] ? " (pure cgroup v2)" : "");
			return EXIT_ENVIRONMENT;
		}
		wanted = layout.v1_memory;
	}
	err = memcg_open_existing(wanted, cg);
	if (err == -ENODEV || err == -ENOTDIR) {
		vmpctl_error("watch: %s: not a memory cgroup", wanted);
		return EXIT_ENVIRONMENT;
	}
	if (err) {
		vmpctl_error("watch: %s: %s", wanted, strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	if (!memcg_has_pressure_level(cg)) {
		vmpctl_error("watch: %s: no memory.pressure_level (cgroup v%d)%s",
			     wanted, cg->version, cg->version == 2 ?
			     ": pressure events need a cgroup-v1 memory cgroup" : "");
		return EXIT_ENVIRONMENT;
	}
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct pressure_listener listener;
	enum pressure_mode mode;
	const char *wanted;
	unsigned int levels;
	struct memcg cg;
	enum parse_result parsed;
	int rc, err, i;

	parsed = watch_parse_args(argc, argv, &wanted, &levels, &mode);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	rc = resolve_cgroup(wanted, &cg);
	if (rc)
		return rc;
	stop_signals_install();
	err = pressure_listen(&listener, cg.path, levels, mode);
	if (err) {
		vmpctl_error("watch: registering on %s/memory.pressure_level: %s",
			     cg.path, strerror(-err));
		return err == -EACCES || err == -EPERM || err == -EOPNOTSUPP ?
		       EXIT_ENVIRONMENT : EXIT_CHECK_FAILED;
	}
	fprintf(stderr, "vmpctl: watch: listening on %s (%s mode); ^C to stop\n",
		cg.path, pressure_mode_name(mode));
	rc = 0;
	while (!stop_requested()) {
		uint64_t counts[PRESSURE_LEVELS] = { 0 };

		err = pressure_wait(&listener, WATCH_POLL_MS);
		if (err == -EINTR)
			continue;
		if (err < 0) {
			vmpctl_error("watch: waiting for events: %s", strerror(-err));
			rc = EXIT_CHECK_FAILED;
			break;
		}
		/* Removal signals every eventfd once: check before printing. */
		if (!still_exists(cg.path)) {
			fprintf(stderr, "vmpctl: watch: %s was removed; stopping\n",
				cg.path);
			break;
		}
		if (err == 0)
			continue;
		err = pressure_drain(&listener, counts);
		if (err) {
			vmpctl_error("watch: reading pressure eventfds: %s", strerror(-err));
			rc = EXIT_CHECK_FAILED;
			break;
		}
		for (i = 0; i < PRESSURE_LEVELS; i++)
			if (counts[i])
				print_event(stdout, i, counts[i]);
	}
	pressure_close(&listener);
	return rc;
}
