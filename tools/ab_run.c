// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the knob, the runs and their counters; the command itself. */
#include "ab.h"
#include "commands.h"
#include "fileio.h"
#include "knob.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ab_session {
	struct ab_options opts;
	char knob_path[4096];
	struct knob_saved saved;
	bool vmpressure_knob;
	bool readback_warned;
	char found_value[sizeof(((struct knob_saved *)0)->value)];
	const char *knob_value;	/* what the knob holds now, trimmed */
	char *output;		/* CMD's stdout of the current run */
	size_t output_len;
	struct ab_run *runs;
	size_t n_runs;
	size_t runs_allocated;
};

struct ab_counters {
	bool have_reclaim;
	uint64_t pgscan;
	uint64_t pgsteal;
	bool have_skipped;
	uint64_t skipped;
};

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double timeval_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static const char *arm_value(const struct ab_session *s, enum ab_arm arm)
{
	return arm == AB_ARM_A ? s->opts.value_a : s->opts.value_b;
}

static void trim_trailing_space(char *text)
{
	size_t len = strlen(text);

	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' ||
		       text[len - 1] == '\t'))
		text[--len] = '\0';
}

static void read_counters(const struct ab_session *s, struct ab_counters *c)
{
	static char vmstat[32768];

	memset(c, 0, sizeof(*c));
	c->have_reclaim = read_text_file("/proc/vmstat", vmstat,
					 sizeof(vmstat)) == 0 &&
		ab_parse_reclaim(vmstat, &c->pgscan, &c->pgsteal) == 0;
	if (s->vmpressure_knob)
		c->have_skipped = vmp_read_skipped(&c->skipped) == 0;
}

static void counter_deltas(const struct ab_counters *before,
			   const struct ab_counters *after, struct ab_run *run)
{
	run->have_reclaim = before->have_reclaim && after->have_reclaim;
	if (run->have_reclaim) {
		run->pgscan = after->pgscan - before->pgscan;
		run->pgsteal = after->pgsteal - before->pgsteal;
	}
	run->have_skipped = before->have_skipped && after->have_skipped;
	if (run->have_skipped)
		run->skipped = after->skipped - before->skipped;
}

/* Forwards our stop signal once, so CMD can clean up (pft removes its memcg). */
static void forward_stop(pid_t pid, bool *forwarded)
{
	if (stop_requested() && !*forwarded) {
		kill(pid, stop_signal());
		*forwarded = true;
	}
}

static void append_output(struct ab_session *s, const char *data, size_t len)
{
	if (s->output_len + len > AB_OUTPUT_MAX)
		len = AB_OUTPUT_MAX - s->output_len;
	memcpy(s->output + s->output_len, data, len);
	s->output_len += len;
	s->output[s->output_len] = '\0';
}

/* Runs argv once, stdout captured; 0 with run times and status, or -errno. */
static int exec_argv(struct ab_session *s, char *const argv[],
		     struct ab_run *run, int *status)
{
	bool forwarded = false;
	struct rusage usage;
	char chunk[4096];
	int pipefd[2];
	double start;
	pid_t pid;

	s->output_len = 0;
	s->output[0] = '\0';
	if (pipe(pipefd) < 0)
		return -errno;
	fflush(NULL);
	start = monotonic_s();
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(pipefd[1]);
		execvp(argv[0], argv);
		vmpctl_error("ab: running %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n = read(pipefd[0], chunk, sizeof(chunk));

		if (n > 0)
			append_output(s, chunk, (size_t)n);
		else if (n == 0 || errno != EINTR)
			break;
		forward_stop(pid, &forwarded);
	}
	close(pipefd[0]);
	while (wait4(pid, status, 0, &usage) < 0) {
		if (errno != EINTR)
			return -errno;
		forward_stop(pid, &forwarded);
	}
	run->wall_s = monotonic_s() - start;
	run->user_s = timeval_s(&usage.ru_utime);
	run->sys_s = timeval_s(&usage.ru_stime);
	return 0;
}

static void print_failed_output(const struct ab_session *s)
{
	if (s->output_len)
		fprintf(stderr, "--- stdout of the failed run ---\n%.2000s%s---\n",
			s->output,
			s->output[s->output_len - 1] == '\n' ? "" : "\n");
}

/*
 * --switch: runs sh -c 'CMD "$1"' VALUE when the arm changes, timed like a
 * knob write. The state before the first switch is unknown, so that one
 * does not count as a toggle.
 */
static int run_switch(struct ab_session *s, const char *value,
		      struct ab_run *run)
{
	size_t size = strlen(s->opts.switch_cmd) + sizeof(" \"$1\"");
	char *argv[] = { "/bin/sh", "-c", malloc(size), "vmpctl-ab",
			 (char *)value, NULL };
	struct ab_run timing;
	int status, err;

	if (!argv[2])
		return -ENOMEM;
	snprintf(argv[2], size, "%s \"$1\"", s->opts.switch_cmd);
	if (s->knob_value && strcmp(s->knob_value, value) == 0) {
		free(argv[2]);
		return 0;
	}
	err = exec_argv(s, argv, &timing, &status);
	free(argv[2]);
	if (err) {
		vmpctl_error("ab: --switch: %s", strerror(-err));
		return err;
	}
	if (WIFSIGNALED(status)) {
		vmpctl_error("ab: --switch '%s' %s was killed by signal %d",
			     s->opts.switch_cmd, value, WTERMSIG(status));
		return -ECHILD;
	}
	if (WEXITSTATUS(status) != 0) {
		vmpctl_error("ab: --switch '%s' %s exited with status %d",
			     s->opts.switch_cmd, value, WEXITSTATUS(status));
		print_failed_output(s);
		return -ECHILD;
	}
	run->knob_toggled = s->knob_value != NULL;
	run->knob_write_s = timing.wall_s;
	s->knob_value = value;
	return 0;
}

/*
 * Writes the arm's value and reads it back, timing both: a write that
 * changes the value is a toggle, and its latency is reported. The
 * vmpressure knob must read back exactly; other knobs may print a value
 * differently (a list with the choice in brackets), so a mismatch there is
 * a warning, once.
 */
static int set_knob(struct ab_session *s, enum ab_arm arm, struct ab_run *run)
{
	const char *value = arm_value(s, arm);
	char text[512], back[512];
	double start = monotonic_s();
	int err;

	if (s->opts.switch_cmd)
		return run_switch(s, value, run);
	snprintf(text, sizeof(text), "%s\n", value);
	err = write_text_file(s->knob_path, text);
	if (err) {
		vmpctl_error("ab: writing '%s' to %s: %s", value, s->knob_path,
			     strerror(-err));
		return err;
	}
	err = read_text_file(s->knob_path, back, sizeof(back));
	run->knob_write_s = monotonic_s() - start;
	run->knob_toggled = strcmp(s->knob_value, value) != 0;
	s->knob_value = value;
	if (err)
		return 0;
	trim_trailing_space(back);
	if (strcmp(back, value) == 0)
		return 0;
	if (s->vmpressure_knob) {
		vmpctl_error("ab: %s reads back '%s' after writing '%s'",
			     s->knob_path, back, value);
		return -EIO;
	}
	if (!s->readback_warned)
		vmpctl_error("ab: warning: %s reads back '%s' after writing '%s'",
			     s->knob_path, back, value);
	s->readback_warned = true;
	return 0;
}

static void report_warnings(const struct ab_session *s, size_t index,
			    const struct ab_run *run)
{
	unsigned int w = ab_run_warnings(run, s->vmpressure_knob);

	if (w & AB_WARN_NO_RECLAIM)
		vmpctl_error("ab: WARNING: run %zu (arm %s) did no reclaim (pgscan +0): vmpressure() never ran, so this run cannot show a difference",
			     index, ab_arm_name(run->arm));
	if (w & AB_WARN_B_NOT_SKIPPED)
		vmpctl_error("ab: WARNING: run %zu (arm B) reclaimed but skipped did not grow: the knob did not short-circuit vmpressure()",
			     index);
	if (w & AB_WARN_A_SKIPPED)
		vmpctl_error("ab: WARNING: run %zu (arm A, stock) grew skipped by %llu: arm A was short-circuited",
			     index, (unsigned long long)run->skipped);
}

static void print_progress(const struct ab_session *s, const char *what,
			   size_t index, size_t total, const struct ab_run *run)
{
	if (s->opts.quiet)
		return;
	fprintf(stderr, "ab: %s %zu/%zu %s: wall %.3f s, user %.3f s, sys %.3f s",
		what, index, total, ab_arm_name(run->arm), run->wall_s,
		run->user_s, run->sys_s);
	if (s->opts.metric_regex)
		fprintf(stderr, ", metric %.6g", run->metric);
	if (run->have_reclaim)
		fprintf(stderr, ", pgscan +%llu", (unsigned long long)run->pgscan);
	if (run->have_skipped)
		fprintf(stderr, ", skipped +%llu", (unsigned long long)run->skipped);
	fputc('\n', stderr);
}

/*
 * One run of arm: knob, counters, CMD, counters. 0 on success; else the
 * failure was printed and the A/B must stop.
 */
static int run_arm(struct ab_session *s, enum ab_arm arm, struct ab_run *run,
		   const char *what, size_t index, size_t total)
{
	struct ab_counters before, after;
	int status, err;

	/* a stop between two runs must not start another */
	if (stop_requested())
		return -EINTR;
	memset(run, 0, sizeof(*run));
	run->arm = arm;
	run->metric = NAN;
	err = set_knob(s, arm, run);
	if (err)
		return err;
	read_counters(s, &before);
	err = exec_argv(s, s->opts.cmd, run, &status);
	if (err) {
		vmpctl_error("ab: starting %s: %s", s->opts.cmd[0], strerror(-err));
		return err;
	}
	read_counters(s, &after);
	counter_deltas(&before, &after, run);
	if (stop_requested())
		return -EINTR;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFSIGNALED(status))
			vmpctl_error("ab: %s %zu (arm %s): %s was killed by signal %d (%s)",
				     what, index, ab_arm_name(arm), s->opts.cmd[0],
				     WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			vmpctl_error("ab: %s %zu (arm %s): %s exited with status %d",
				     what, index, ab_arm_name(arm), s->opts.cmd[0],
				     WEXITSTATUS(status));
		print_failed_output(s);
		return -ECHILD;
	}
	if (s->opts.metric_regex) {
		err = ab_extract_metric(&s->opts.metric, s->output, &run->metric);
		if (err) {
			vmpctl_error("ab: %s %zu (arm %s): --metric /%s/ %s in the output",
				     what, index, ab_arm_name(arm), s->opts.metric_regex,
				     err == -ENOENT ? "matches nothing" :
				     "matches no number");
			print_failed_output(s);
			return err;
		}
	}
	print_progress(s, what, index, total, run);
	return 0;
}

static int add_run(struct ab_session *s, const struct ab_run *run)
{
	if (s->n_runs == s->runs_allocated) {
		size_t n = s->runs_allocated ? 2 * s->runs_allocated : 64;
		struct ab_run *grown = realloc(s->runs, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->runs = grown;
		s->runs_allocated = n;
	}
	s->runs[s->n_runs++] = *run;
	return 0;
}

static bool precision_reached(struct ab_session *s)
{
	struct ab_report report;
	const struct stats_comparison *c;

	if (ab_build_report(&s->opts, s->runs, s->n_runs, &report))
		return false;
	c = &report.metrics[0].cmp;
	return (c->diff_ci_hi_pct - c->diff_ci_lo_pct) / 2 < s->opts.precision_pct;
}

/* Warmup, then blocks until --runs (and --until-precision) are done. */
static int run_all(struct ab_session *s, struct ab_schedule *schedule,
		   struct ab_report *report)
{
	const struct ab_options *o = &s->opts;
	double start = monotonic_s();
	size_t total = 2 * (size_t)o->runs;
	unsigned int blocks = 0;
	struct ab_run run;
	int err;

	for (unsigned int i = 0; i < o->warmup; i++) {
		err = run_arm(s, i % 2 ? AB_ARM_B : AB_ARM_A, &run, "warmup",
			      i + 1, o->warmup);
		if (err)
			return err;
	}
	for (;;) {
		enum ab_arm arms[2];

		if (blocks >= o->runs &&
		    (o->precision_pct <= 0 || report->precision_reached))
			break;
		if (o->max_time_s > 0 && monotonic_s() - start >= o->max_time_s) {
			report->out_of_time = true;
			break;
		}
		ab_schedule_next(schedule, arms);
		for (int i = 0; i < 2; i++) {
			err = run_arm(s, arms[i], &run, "run", s->n_runs + 1,
				      total > s->n_runs ? total : s->n_runs + 1);
			if (err)
				return err;
			err = add_run(s, &run);
			if (err)
				return err;
			report_warnings(s, s->n_runs, &run);
		}
		blocks++;
		if (o->precision_pct > 0 && blocks >= o->runs)
			report->precision_reached = precision_reached(s);
	}
	report->elapsed_s = monotonic_s() - start;
	return 0;
}

static int open_knob(struct ab_session *s)
{
	int err, rc;

	if (s->opts.switch_cmd) {
		snprintf(s->knob_path, sizeof(s->knob_path), "--switch '%s'",
			 s->opts.switch_cmd);
		return 0;
	}
	s->vmpressure_knob = ab_checks_vmpressure(&s->opts);
	if (s->vmpressure_knob) {
		rc = knob_write_preflight("ab");
		if (rc)
			return rc;
		err = vmp_attr_path(s->knob_path, sizeof(s->knob_path), "enabled");
	} else {
		err = strlen(s->opts.knob) < sizeof(s->knob_path) ? 0 : -ENAMETOOLONG;
		if (!err) {
			strcpy(s->knob_path, s->opts.knob);
			if (access(s->knob_path, R_OK | W_OK) < 0)
				err = -errno;
		}
	}
	if (!err)
		err = knob_save(&s->saved, s->knob_path);
	if (!err) {
		strcpy(s->found_value, s->saved.value);
		trim_trailing_space(s->found_value);
		s->knob_value = s->found_value;
	}
	if (err) {
		vmpctl_error("ab: knob %s: %s", s->opts.knob ? s->opts.knob :
			     s->knob_path, strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	return 0;
}

static void print_report(const struct ab_report *report)
{
	switch (report->opts->format) {
	case AB_FORMAT_TABLE:
		ab_print_table(stdout, report);
		break;
	case AB_FORMAT_JSON:
		ab_print_json(stdout, report);
		break;
	case AB_FORMAT_CSV:
		ab_print_csv(stdout, report);
		break;
	}
}

int cmd_ab(int argc, char **argv)
{
	struct ab_session s = { 0 };
	struct ab_schedule schedule;
	struct ab_report report = { 0 };
	enum parse_result parsed;
	unsigned long seed;
	int rc, err;

	parsed = ab_parse_args(argc, argv, &s.opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	seed = s.opts.seed_given ? s.opts.seed :
		(unsigned long)time(NULL) ^ (unsigned long)getpid();
	s.output = malloc(AB_OUTPUT_MAX + 1);
	if (!s.output || ab_schedule_init(&schedule, s.opts.order, seed)) {
		vmpctl_error("ab: %s", strerror(ENOMEM));
		free(s.output);
		ab_options_free(&s.opts);
		return EXIT_CHECK_FAILED;
	}
	rc = open_knob(&s);
	if (rc)
		goto out;
	stop_signals_install();

	err = run_all(&s, &schedule, &report);
	rc = err ? EXIT_CHECK_FAILED : 0;
	if (s.opts.switch_cmd) {
		struct ab_run ignored;

		if (run_switch(&s, s.opts.value_a, &ignored)) {
			vmpctl_error("ab: could not return to arm A (%s)",
				     s.opts.value_a);
			rc = EXIT_CHECK_FAILED;
		}
	} else {
		err = knob_restore(&s.saved);
		if (err) {
			vmpctl_error("ab: restoring %s to '%.32s': %s", s.knob_path,
				     s.saved.value, strerror(-err));
			rc = EXIT_CHECK_FAILED;
		}
	}
	if (stop_requested())
		goto out;
	if (!rc) {
		double elapsed = report.elapsed_s;
		bool reached = report.precision_reached;
		bool out_of_time = report.out_of_time;

		if (ab_build_report(&s.opts, s.runs, s.n_runs, &report)) {
			vmpctl_error("ab: only %zu runs before --max-time: need 2 per arm",
				     s.n_runs);
			rc = EXIT_CHECK_FAILED;
			goto out;
		}
		report.knob_path = s.knob_path;
		report.seed = seed;
		report.elapsed_s = elapsed;
		report.precision_reached = reached;
		report.out_of_time = out_of_time;
		print_report(&report);
	}
out:
	ab_schedule_free(&schedule);
	ab_options_free(&s.opts);
	free(s.runs);
	free(s.output);
	if (stop_requested())
		stop_signals_reraise();
	return rc;
}
