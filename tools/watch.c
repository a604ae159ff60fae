// SPDX-License-Identifier: GPL-2.0
/* vmpctl watch: print memory pressure events as they arrive. */
#include "cgroup.h"
#include "commands.h"
#include "fileio.h"
#include "netload.h"
#include "options.h"
#include "output.h"
#include "pressure.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How often to look whether the cgroup still exists when nothing happens. */
#define WATCH_POLL_MS 1000

/* A reader that went away (EPIPE) ends the watch. */
static void print_event(FILE *out, const char *what, uint64_t count)
{
	struct timespec now;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, "%s.%03ldZ  %-8s  %llu\n", stamp, now.tv_nsec / 1000000,
		what, (unsigned long long)count);
	if (fflush(out) == EOF)
		stop_note_write_error(errno);
}

static bool still_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static void watch_usage(FILE *out)
{
	fputs("Usage: vmpctl watch [options]\n"
	      "\n"
	      "Print each memory pressure event (UTC time, level, count) until\n"
	      "interrupted or until the cgroup is removed. Given a cgroup-v2\n"
	      "cgroup, print each increment of its memory.events sock_throttled\n"
	      "(TCP throttled by socket pressure) the same way.\n"
	      "\n"
	      "Options:\n"
	      "  -c, --cgroup PATH   memory cgroup (default: the v1 hierarchy root)\n"
	      "  -l, --level LEVEL   low, medium, critical or all (default all)\n"
	      "  -m, --mode MODE     default, hierarchy or local (default default)\n"
	      "  -h, --help          show this help\n", out);
}

struct watch_opts {
	const char *cgroup;
	unsigned int levels;
	enum pressure_mode mode;
};

static enum parse_result watch_parse_args(int argc, char **argv,
					  struct watch_opts *opts)
{
	static const struct opt table[] = {
		{ "cgroup", 'c', OPT_TEXT, offsetof(struct watch_opts, cgroup), 0, 0, false, NULL },
		{ "level", 'l', OPT_LEVELS, offsetof(struct watch_opts, levels), 0, 0, false, NULL },
		{ "mode", 'm', OPT_MODE, offsetof(struct watch_opts, mode), 0, 0, false, NULL },
	};
	const struct opt_parser parser = {
		.cmd = "watch", .table = table, .n_options = OPT_COUNT(table),
		.fields = opts, .usage = watch_usage,
	};

	*opts = (struct watch_opts){
		.levels = PRESSURE_ALL_LEVELS,
		.mode = PRESSURE_MODE_DEFAULT,
	};
	return opt_parse(&parser, argc, argv, NULL);
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
	if (cg->version == 2) {
		uint64_t count;

		err = memcg_read_sock_throttled(cg, &count);
		if (!err)
			return 0;
		vmpctl_error("watch: %s: %s", wanted, err == -ENOENT ?
			     "its memory.events has no sock_throttled (this kernel does not count it; cgroup v2 has no pressure events)" :
			     strerror(-err));
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

static int read_sock_throttled_fd(int fd, uint64_t *count)
{
	char text[1024];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	if (n < 0)
		return -errno;
	text[n] = '\0';
	return find_keyed_u64(text, "sock_throttled", count);
}

/*
 * cgroup v2: the kernel notifies a change of memory.events (kernfs
 * POLLPRI); the timeout also catches the cgroup's removal.
 */
static int watch_sock_throttled(const struct memcg *cg)
{
	char path[PATH_MAX];
	uint64_t last, now;
	int fd, err, rc = 0;

	err = memcg_file(cg, "memory.events", path, sizeof(path));
	fd = err ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vmpctl_error("watch: opening %s/memory.events: %s", cg->path,
			     strerror(err ? -err : errno));
		return EXIT_ENVIRONMENT;
	}
	err = read_sock_throttled_fd(fd, &last);
	if (err) {
		vmpctl_error("watch: reading %s: %s", path, strerror(-err));
		close(fd);
		return EXIT_CHECK_FAILED;
	}
	fprintf(stderr, "vmpctl: watch: sock_throttled of %s, now %llu; ^C to stop\n",
		cg->path, (unsigned long long)last);
	while (!stop_requested()) {
		struct pollfd fds[2] = {
			{ .fd = fd, .events = POLLPRI },
			{ .fd = stop_wake_fd(), .events = POLLIN },
		};

		if (poll(fds, 2, WATCH_POLL_MS) < 0 && errno != EINTR) {
			vmpctl_error("watch: waiting on %s: %s", path, strerror(errno));
			rc = EXIT_CHECK_FAILED;
			break;
		}
		if (stop_requested())
			break;
		if (!still_exists(cg->path)) {
			fprintf(stderr, "vmpctl: watch: %s was removed; stopping\n",
				cg->path);
			break;
		}
		err = read_sock_throttled_fd(fd, &now);
		if (err) {
			vmpctl_error("watch: reading %s: %s", path, strerror(-err));
			rc = EXIT_CHECK_FAILED;
			break;
		}
		if (now > last)
			print_event(stdout, "sock_throttled", now - last);
		last = now;
	}
	close(fd);
	return rc;
}

int cmd_watch(int argc, char **argv)
{
	struct pressure_listener listener;
	struct watch_opts opts;
	struct memcg cg;
	enum parse_result parsed;
	int rc, err, i;

	parsed = watch_parse_args(argc, argv, &opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	rc = resolve_cgroup(opts.cgroup, &cg);
	if (rc)
		return rc;
	stop_signals_install();
	if (cg.version == 2)
		return watch_sock_throttled(&cg);
	err = pressure_listen(&listener, cg.path, opts.levels, opts.mode);
	if (err) {
		vmpctl_error("watch: registering on %s/memory.pressure_level: %s",
			     cg.path, strerror(-err));
		return err == -EACCES || err == -EPERM || err == -EOPNOTSUPP ?
		       EXIT_ENVIRONMENT : EXIT_CHECK_FAILED;
	}
	fprintf(stderr, "vmpctl: watch: listening on %s (%s mode); ^C to stop\n",
		cg.path, pressure_mode_name(opts.mode));
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
				print_event(stdout, pressure_level_name(i), counts[i]);
	}
	pressure_close(&listener);
	return rc;
}
