// SPDX-License-Identifier: GPL-2.0
#include "measure.h"
#include "commands.h"
#include "fileio.h"
#include "json.h"
#include "knob.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void measure_print_usage(FILE *out, const char *cmd, const char *what,
			 const char *json_what, const char *more_options)
{
	fprintf(out,
		"Usage: vmpctl %s [options]\n"
		"\n"
		"%s\n"
		"\n"
		"Options:\n"
		"  -c, --cgroup PATH   use this memory cgroup instead of a temporary one\n"
		"  -l, --level LEVEL   low, medium, critical or all (default all)\n"
		"  -m, --mode MODE     default, hierarchy or local (default default)\n"
		"  -s, --size SIZE     memory the child touches (default 2 x --limit)\n"
		"  -L, --limit SIZE    limit of the temporary cgroup (default %lluM)\n"
		"  -t, --seconds S     touch for S seconds (default: %d full passes)\n"
		"  -j, --json          print one JSON %s\n"
		"%s"
		"  -h, --help          show this help\n"
		"\n"
		"SIZE: MiB, or with a K, M, G or T suffix (64, 64M, 1G).\n",
		cmd, what, MEASURE_LIMIT_DEFAULT >> 20, MEASURE_PASSES_DEFAULT,
		json_what, more_options);
}

static void measure_usage(FILE *out)
{
	measure_print_usage(out, "measure",
			    "Force reclaim in a memory cgroup once and report pressure events per\n"
			    "level, the module's skipped delta and pages scanned.",
			    "line", "");
}

enum parse_result measure_parse_options(const struct opt_parser *parser,
					int argc, char **argv,
					struct measure_opts *opts)
{
	enum parse_result parsed;

	*opts = (struct measure_opts){
		.limit = MEASURE_LIMIT_DEFAULT,
		.levels = PRESSURE_ALL_LEVELS,
		.mode = PRESSURE_MODE_DEFAULT,
	};
	parsed = opt_parse(parser, argc, argv, NULL);
	if (parsed == PARSE_RUN && !opts->size)
		opts->size = 2 * opts->limit;
	return parsed;
}

enum parse_result measure_parse_args(int argc, char **argv,
				     struct measure_opts *opts)
{
	static const struct opt table[] = { MEASURE_OPTIONS };
	const struct opt_parser parser = {
		.cmd = "measure", .table = table, .n_options = OPT_COUNT(table),
		.fields = opts, .usage = measure_usage,
	};

	return measure_parse_options(&parser, argc, argv, opts);
}

uint64_t measurement_events_total(const struct measurement *m)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < PRESSURE_LEVELS; i++)
		total += m->events[i];
	return total;
}

json_t *measurement_json(const struct measurement *m)
{
	json_t *o = json_object(), *events = json_null();
	int i;

	json_put(o, "cgroup_version", json_integer(m->cgroup_version));
	if (m->levels) {
		events = json_object();
		for (i = 0; i < PRESSURE_LEVELS; i++)
			json_put(events, pressure_level_name(i),
				 m->levels & (1u << i) ? json_count(m->events[i]) :
				 json_null());
	}
	json_put(o, "events", events);
	json_put(o, "skipped_delta", m->have_skipped ?
		 json_count(m->skipped_delta) : json_null());
	json_put(o, "pgscan", m->have_pgscan ? json_count(m->pgscan) : json_null());
	/* milliseconds are what the clock of a reclaim run is good for */
	json_put(o, "seconds", json_real_or_null(round(m->seconds * 1000) / 1000));
	json_put(o, "sock_throttled", m->have_sock_throttled ?
		 json_count(m->sock_throttled) : json_null());
	json_put(o, "work_fn_runs", m->have_work_fn ?
		 json_count(m->work_fn_runs) : json_null());
	json_put(o, "net", m->have_net ? net_figures_json(&m->net) : json_null());
	return o;
}

static int environment_error(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENODEV ||
	       err == -EROFS || err == -ENOENT || err == -ENOTDIR ?
	       EXIT_ENVIRONMENT : EXIT_CHECK_FAILED;
}

static int open_cgroup(struct measure_session *s,
		       const struct measure_opts *opts)
{
	struct cgroup_layout layout;
	int err;

	if (opts->cgroup) {
		err = memcg_open_existing(opts->cgroup, &s->cg);
		if (err == -ENODEV || err == -ENOTDIR) {
			vmpctl_error("%s: %s: not a memory cgroup (no memory controller files there)",
				     s->cmd, opts->cgroup);
			return EXIT_ENVIRONMENT;
		}
		if (err) {
			vmpctl_error("%s: %s: %s", s->cmd, opts->cgroup, strerror(-err));
			return environment_error(err);
		}
		return 0;
	}
	if (geteuid() != 0) {
		vmpctl_error("%s: creating a memory cgroup needs root (or pass --cgroup with a delegated one)",
			     s->cmd);
		return EXIT_ENVIRONMENT;
	}
	err = cgroup_layout_detect(&layout);
	if (err) {
		vmpctl_error("%s: reading /proc/mounts: %s", s->cmd, strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	err = memcg_create_temp(&layout, opts->limit, &s->cg);
	if (err == -ENODEV) {
		vmpctl_error("%s: no memory controller: neither a cgroup-v1 memory hierarchy nor cgroup2 with memory is mounted",
			     s->cmd);
		return EXIT_ENVIRONMENT;
	}
	if (err) {
		vmpctl_error("%s: creating memory cgroup %s: %s", s->cmd,
			     s->cg.path[0] ? s->cg.path : "(none)", strerror(-err));
		return environment_error(err);
	}
	return 0;
}

/*
 * Anonymous memory over the limit can only be reclaimed into swap: without
 * any, the child is OOM-killed and nothing is measured. 0 or exit code.
 */
static int require_swap(const char *cmd)
{
	char meminfo[8192];
	uint64_t swap_kib;
	int err;

	err = read_text_file("/proc/meminfo", meminfo, sizeof(meminfo));
	if (!err)
		err = find_meminfo_kib(meminfo, "SwapTotal", &swap_kib);
	if (err) {
		vmpctl_error("%s: reading SwapTotal from /proc/meminfo: %s", cmd,
			     strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	if (swap_kib == 0) {
		vmpctl_error("%s: no swap: anonymous memory over the limit cannot be reclaimed (enable swap, e.g. zram)",
			     cmd);
		return EXIT_ENVIRONMENT;
	}
	return 0;
}

int measure_open(struct measure_session *s, const struct measure_opts *opts,
		 const char *cmd)
{
	int rc, err;

	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	pressure_init(&s->listener);
	s->job.bytes = opts->size;
	s->job.seconds = opts->seconds;
	s->job.passes = MEASURE_PASSES_DEFAULT;

	rc = require_swap(cmd);
	if (rc)
		return rc;
	rc = open_cgroup(s, opts);
	if (rc)
		return rc;
	if (s->cg.version == 2) {
		uint64_t count;

		s->socket_load = true;
		s->have_sock_throttled =
			memcg_read_sock_throttled(&s->cg, &count) == 0;
		if (!s->have_sock_throttled)
			s->have_work_trace = work_trace_open(&s->trace) == 0;
	}
	if (!memcg_has_pressure_level(&s->cg)) {
		s->events_error = -ENOENT;
		return 0;
	}
	err = pressure_listen(&s->listener, s->cg.path, opts->levels, opts->mode);
	if (err) {
		/* PREEMPT_RT refuses registration: skipped can still tell. */
		s->events_error = err;
		vmpctl_error("%s: registering on %s/memory.pressure_level: %s; counting skipped only",
			     cmd, s->cg.path, strerror(-err));
	}
	return 0;
}

static void settle(void)
{
	/* vmpressure() defers the notification to a work item: let it run. */
	const struct timespec wait = { 0, 300 * 1000 * 1000 };

	nanosleep(&wait, NULL);
}

/*
 * vmpressure() holds a memcg's socket pressure for one second: what an
 * earlier run raised must be over before this run's counting starts.
 */
static void socket_pressure_expire(void)
{
	const struct timespec wait = { 1, 200 * 1000 * 1000 };

	nanosleep(&wait, NULL);
}

int measure_run(struct measure_session *s, struct measurement *m)
{
	uint64_t discarded[PRESSURE_LEVELS] = { 0 };
	uint64_t skipped_before = 0, skipped_after, scan_before = 0, scan_after;
	uint64_t throttled_before = 0, throttled_after;
	char why[128];
	int err;

	memset(m, 0, sizeof(*m));
	m->cgroup_version = s->cg.version;
	m->levels = s->listener.levels;
	/* Events from before this run (an earlier phase) are not ours. */
	err = pressure_drain(&s->listener, discarded);
	if (err) {
		vmpctl_error("%s: reading pressure eventfds: %s", s->cmd, strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	m->have_skipped = vmp_module_loaded() &&
			  vmp_read_skipped(&skipped_before) == 0;
	m->have_pgscan = memcg_read_pgscan(&s->cg, &scan_before) == 0;
	if (s->socket_load)
		socket_pressure_expire();
	m->have_sock_throttled = s->have_sock_throttled &&
		memcg_read_sock_throttled(&s->cg, &throttled_before) == 0;

	m->have_work_fn = s->have_work_trace &&
			  work_trace_start(&s->trace) == 0;

	m->have_net = s->socket_load;
	if (s->socket_load)
		err = netload_run(&s->cg, &s->job, &m->net, &m->child);
	else
		err = reclaim_run(&s->cg, &s->job, &m->child);
	if (err) {
		vmpctl_error("%s: starting the reclaim child: %s", s->cmd, strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	m->seconds = m->child.elapsed;
	if (m->child.interrupted)
		return EXIT_CHECK_FAILED;
	settle();

	err = pressure_drain(&s->listener, m->events);
	if (err) {
		vmpctl_error("%s: reading pressure eventfds: %s", s->cmd, strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (m->have_skipped && vmp_read_skipped(&skipped_after) == 0)
		m->skipped_delta = skipped_after - skipped_before;
	else
		m->have_skipped = false;
	if (m->have_pgscan && memcg_read_pgscan(&s->cg, &scan_after) == 0)
		m->pgscan = scan_after - scan_before;
	else
		m->have_pgscan = false;
	if (m->have_sock_throttled &&
	    memcg_read_sock_throttled(&s->cg, &throttled_after) == 0)
		m->sock_throttled = throttled_after - throttled_before;
	else
		m->have_sock_throttled = false;
	if (m->have_work_fn)
		m->have_work_fn = work_trace_stop(&s->trace, &m->work_fn_runs) == 0;

	if (reclaim_failure(&m->child, why, sizeof(why))) {
		vmpctl_error("%s: reclaim child in %s: %s", s->cmd, s->cg.path, why);
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

int measure_close(struct measure_session *s)
{
	int err;

	pressure_close(&s->listener);
	work_trace_close(&s->trace);
	err = memcg_remove(&s->cg);
	if (err) {
		vmpctl_error("%s: removing cgroup %s: %s", s->cmd, s->cg.path,
			     strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

void measure_report_interrupt(const char *cmd, const char *what_was_restored)
{
	char name[32];

	vmpctl_error("%s: interrupted by %s; %s", cmd,
		     stop_signal_name(stop_signal(), name, sizeof(name)),
		     what_was_restored);
	stop_signals_reraise();
}

static void print_measurement_text(const struct measure_session *s,
				   const struct measurement *m)
{
	char label[32];
	int i;

	printf("%-17s %s (v%d)\n", "cgroup:", s->cg.path, m->cgroup_version);
	for (i = 0; i < PRESSURE_LEVELS; i++) {
		if (!(m->levels & (1u << i)))
			continue;
		snprintf(label, sizeof(label), "events %s:", pressure_level_name(i));
		printf("%-17s %llu\n", label, (unsigned long long)m->events[i]);
	}
	if (!m->levels)
		printf("%-17s n/a (%s)\n", "events:",
		       s->events_error == -ENOENT ?
		       "no memory.pressure_level in this cgroup" :
		       strerror(-s->events_error));
	if (m->have_skipped)
		printf("%-17s %llu\n", "skipped delta:",
		       (unsigned long long)m->skipped_delta);
	else
		printf("%-17s n/a (%s)\n", "skipped delta:",
		       vmp_module_loaded() ? "not counted: loaded with count_skipped=0" :
		       VMP_MODULE_NAME " is not loaded");
	if (m->have_pgscan)
		printf("%-17s %llu%s\n", "pgscan:", (unsigned long long)m->pgscan,
		       memcg_pgscan_is_local(&s->cg) ? "" :
		       " (system-wide: cgroup v1 has no per-memcg scan counter)");
	else
		printf("%-17s n/a\n", "pgscan:");
	if (m->have_sock_throttled)
		printf("%-17s %llu\n", "sock_throttled:",
		       (unsigned long long)m->sock_throttled);
	if (m->have_work_fn)
		printf("%-17s %llu (the kernel's function tracer)\n", "vmpressure work:",
		       (unsigned long long)m->work_fn_runs);
	if (m->have_net)
		printf("%-17s %.2f MB/s, sndbuf max %llu, rcvbuf max %llu, retrans %llu%s\n",
		       "loopback TCP:", net_throughput(&m->net) / 1e6,
		       (unsigned long long)m->net.sndbuf_max,
		       (unsigned long long)m->net.rcvbuf_max,
		       (unsigned long long)m->net.retrans,
		       m->net.private_netns ? "" : " (host network namespace)");
	printf("%-17s %.3f\n", "seconds:", m->seconds);
}

int cmd_measure(int argc, char **argv)
{
	struct measure_opts opts;
	struct measure_session s;
	struct measurement m;
	enum parse_result parsed;
	int rc, close_rc;

	parsed = measure_parse_args(argc, argv, &opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	stop_signals_install();
	rc = measure_open(&s, &opts, "measure");
	if (rc)
		return rc;
	rc = measure_run(&s, &m);
	close_rc = measure_close(&s);
	if (stop_requested())
		measure_report_interrupt("measure", "cgroup removed");
	if (rc)
		return rc;
	if (opts.json) {
		int err = json_print_line(stdout, measurement_json(&m));

		if (err) {
			vmpctl_error("measure: writing JSON: %s", strerror(-err));
			return EXIT_CHECK_FAILED;
		}
	} else {
		print_measurement_text(&s, &m);
	}
	return close_rc;
}
