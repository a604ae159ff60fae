// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the knob, the runs and their counters; the command itself. */
#include "ab.h"
#include "ab_session.h"
#include "child.h"
#include "clock.h"
#include "commands.h"
#include "fileio.h"
#include "json.h"
#include "knob.h"
#include "knobfile.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* stdout of a failed run shown on stderr: its last this many bytes */
#define AB_FAILED_OUTPUT_SHOWN 2000

static const char *arm_value(const struct ab_session *s, enum ab_arm arm)
{
	return arm == AB_ARM_A ? s->opts.value_a : s->opts.value_b;
}

void ab_progress(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (n < 0)
		stop_note_write_error(errno);
}

void ab_read_counters(const struct ab_session *s, struct ab_counters *c)
{
	static char vmstat[32768];

	memset(c, 0, sizeof(*c));
	c->have_reclaim = read_text_file("/proc/vmstat", vmstat,
					 sizeof(vmstat)) == 0 &&
		ab_parse_reclaim(vmstat, &c->pgscan, &c->pgsteal) == 0;
	if (s->vmpressure_knob)
		c->have_skipped = vmp_read_skipped(&c->skipped) == 0;
}

void ab_counter_deltas(const struct ab_counters *before,
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

void ab_print_failed_output(const struct child_output *out)
{
	size_t shown = out->len < AB_FAILED_OUTPUT_SHOWN ? out->len :
		AB_FAILED_OUTPUT_SHOWN;

	if (!shown)
		return;
	ab_progress("--- stdout of the failed run%s ---\n%s%s---\n",
		 shown < out->total ? " (its end)" : "",
		 out->text + out->len - shown,
		 out->text[out->len - 1] == '\n' ? "" : "\n");
}

/*
 * --switch: runs sh -c 'CMD "$1"' VALUE when the arm changes, timed like a
 * knob write. The state before the first switch is unknown, so that one
 * does not count as a toggle. back_to_a: the switch that ends the A/B,
 * run also after a stop signal.
 */
static int run_switch(struct ab_session *s, const char *value,
		      struct ab_run *run, bool back_to_a)
{
	size_t size = strlen(s->opts.switch_cmd) + sizeof(" \"$1\"");
	char *script = malloc(size);
	char *argv[] = { "/bin/sh", "-c", script, "vmpctl-ab", (char *)value,
			 NULL };
	struct child_spec spec = { .argv = argv, .capture_max = 65536,
				   .despite_stop = back_to_a, .own_group = true };
	struct child_result res;
	char why[96];
	int err;

	if (!script)
		return -ENOMEM;
	if (s->knob_value && strcmp(s->knob_value, value) == 0) {
		free(script);
		return 0;
	}
	snprintf(script, size, "%s \"$1\"", s->opts.switch_cmd);
	s->switched = true;
	err = child_run(&spec, &res);
	free(script);
	if (err) {
		if (err != -EINTR)
			vmpctl_error("ab: --switch: %s", strerror(-err));
		return err;
	}
	if (stop_requested() && !back_to_a) {
		child_result_free(&res);
		return -EINTR;
	}
	if (child_status_text(res.status, why, sizeof(why))) {
		vmpctl_error("ab: --switch '%s' %s %s", s->opts.switch_cmd, value,
			     why);
		ab_print_failed_output(&res.out);
		child_result_free(&res);
		/* the state is unknown now: the way back to A runs the switch */
		s->knob_value = NULL;
		return -ECHILD;
	}
	child_result_free(&res);
	run->knob_toggled = s->knob_value != NULL;
	run->knob_write_s = res.wall_s;
	s->knob_value = value;
	return 0;
}

/*
 * Writes the arm's value and reads it back, timing both: a write that
 * changes the value is a toggle, and its latency is reported. The
 * vmpressure knob must read back what was written; another knob may show
 * a value differently (memory.max takes 64M and shows 67108864), so there
 * a mismatch is a warning, once.
 */
int ab_set_arm(struct ab_session *s, enum ab_arm arm, struct ab_run *run)
{
	const char *value = arm_value(s, arm);
	char now[KNOB_LINE_MAX];
	double start = monotonic_s();
	int err;

	if (s->opts.switch_cmd)
		return run_switch(s, value, run, false);
	err = knob_set(&s->knob, value);
	if (err) {
		vmpctl_error("ab: knob %s: %s", s->knob.path, s->knob.why);
		return err;
	}
	err = knob_read_value(&s->knob, now, sizeof(now));
	run->knob_write_s = monotonic_s() - start;
	run->knob_toggled = strcmp(s->knob_value, value) != 0;
	s->knob_value = value;
	if (err) {
		vmpctl_error("ab: knob %s: reading it back: %s", s->knob.path,
			     s->knob.why);
		return err;
	}
	if (knob_value_matches(&s->knob, now, value))
		return 0;
	if (s->vmpressure_knob) {
		vmpctl_error("ab: %s reads back '%s' after writing '%s'",
			     s->knob.path, now, value);
		return -EIO;
	}
	if (!s->readback_warned)
		vmpctl_error("ab: warning: %s reads back '%s' after writing '%s'",
			     s->knob.path, now, value);
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
	char metric[40] = "", reclaim[40] = "", skipped[40] = "";

	if (s->opts.quiet)
		return;
	if (s->opts.metric_regex)
		snprintf(metric, sizeof(metric), ", metric %.6g", run->metric);
	if (run->have_reclaim)
		snprintf(reclaim, sizeof(reclaim), ", pgscan +%llu",
			 (unsigned long long)run->pgscan);
	if (run->have_skipped)
		snprintf(skipped, sizeof(skipped), ", skipped +%llu",
			 (unsigned long long)run->skipped);
	ab_progress("ab: %s %zu/%zu %s: wall %.3f s, user %.3f s, sys %.3f s%s%s%s\n",
		 what, index, total, ab_arm_name(run->arm), run->wall_s,
		 run->user_s, run->sys_s, metric, reclaim, skipped);
}

/* The metric from a finished run's stdout; the error is printed. */
static int take_metric(struct ab_session *s, const struct child_output *out,
		       struct ab_run *run, const char *what, size_t index)
{
	int err;

	if (out->cut && !s->cut_warned) {
		vmpctl_error("ab: warning: %s %zu (arm %s): %s wrote %llu bytes to stdout; --metric searches only the last %zu",
			     what, index, ab_arm_name(run->arm), s->opts.cmd[0],
			     (unsigned long long)out->total, out->len);
		s->cut_warned = true;
	}
	err = ab_extract_metric(&s->opts.metric, out->text, &run->metric);
	if (err) {
		vmpctl_error("ab: %s %zu (arm %s): --metric /%s/ %s in the output%s",
			     what, index, ab_arm_name(run->arm), s->opts.metric_regex,
			     err == -ENOENT ? "matches nothing" :
			     "matches no number",
			     out->cut ? " (its last part: the rest was cut)" : "");
		ab_print_failed_output(out);
	}
	return err;
}

/*
 * One run of arm: knob, counters, CMD, counters. 0 on success, -EINTR
 * when a stop signal came; else the failure was printed.
 */
static int run_arm(struct ab_session *s, enum ab_arm arm, struct ab_run *run,
		   const char *what, size_t index, size_t total)
{
	struct child_spec spec = { .argv = s->opts.cmd,
				   .capture_max = AB_OUTPUT_MAX, .own_group = true };
	struct ab_counters before, after;
	struct child_result res;
	char why[96];
	int err;

	/* a stop between two runs must not start another */
	if (stop_requested())
		return -EINTR;
	memset(run, 0, sizeof(*run));
	run->arm = arm;
	run->metric = NAN;
	err = ab_set_arm(s, arm, run);
	if (err)
		return err;
	ab_read_counters(s, &before);
	err = child_run(&spec, &res);
	if (err) {
		if (err != -EINTR)
			vmpctl_error("ab: starting %s: %s", s->opts.cmd[0],
				     strerror(-err));
		return err;
	}
	ab_read_counters(s, &after);
	ab_counter_deltas(&before, &after, run);
	run->wall_s = res.wall_s;
	run->user_s = res.user_s;
	run->sys_s = res.sys_s;
	/* a NUL would end the text for regexec and printf */
	for (size_t i = 0; i < res.out.len; i++)
		if (!res.out.text[i])
			res.out.text[i] = '\n';
	if (stop_requested()) {
		err = -EINTR;
	} else if (child_status_text(res.status, why, sizeof(why))) {
		vmpctl_error("ab: %s %zu (arm %s): %s %s", what, index,
			     ab_arm_name(arm), s->opts.cmd[0], why);
		ab_print_failed_output(&res.out);
		err = -ECHILD;
	} else if (s->opts.metric_regex) {
		err = take_metric(s, &res.out, run, what, index);
	}
	child_result_free(&res);
	if (!err)
		print_progress(s, what, index, total, run);
	return err;
}

/* --save: the run as a JSON line, the moment it is measured. */
static void save_run(struct ab_session *s, const struct ab_run *run)
{
	json_t *line;

	if (!s->save)
		return;
	line = json_object();
	json_put(line, "type", json_text("run"));
	json_put(line, "index", json_count(s->n_runs - 1));
	json_put(line, "block", json_count((s->n_runs - 1) / 2));
	json_put(line, "arm", json_text(ab_arm_name(run->arm)));
	json_put(line, "metric", json_real_or_null(run->metric));
	json_put(line, "wall_s", json_real_or_null(run->wall_s));
	json_put(line, "user_s", json_real_or_null(run->user_s));
	json_put(line, "sys_s", json_real_or_null(run->sys_s));
	json_put(line, "knob_write_s", json_real_or_null(run->knob_write_s));
	json_put(line, "toggled", json_boolean(run->knob_toggled));
	json_put(line, "pgscan", run->have_reclaim ? json_count(run->pgscan) : json_null());
	json_put(line, "skipped", run->have_skipped ? json_count(run->skipped) : json_null());
	json_print_line(s->save, line);
	fflush(s->save);
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
	save_run(s, run);
	return 0;
}

static bool precision_reached(struct ab_session *s)
{
	struct ab_report report;
	const struct stats_comparison *c;

	if (ab_build_report(&s->opts, s->runs, s->n_runs, &report))
		return false;
	c = &report.metrics[0].cmp;
	return isfinite(c->diff_ci_lo_pct) && isfinite(c->diff_ci_hi_pct) &&
		(c->diff_ci_hi_pct - c->diff_ci_lo_pct) / 2 < s->opts.precision_pct;
}

/*
 * --ignore-failure: whether the run's failure (the command's, or its
 * metric's; not a stop, nor the knob's) only drops its block. A command
 * that fails more often than --runs blocks are asked for ends the A/B.
 */
static bool ignored_failure(struct ab_session *s, int err,
			    struct ab_report *report)
{
	unsigned int most = s->opts.runs > 3 ? s->opts.runs : 3;

	if (!s->opts.ignore_failure ||
	    (err != -ECHILD && err != -ENOENT && err != -EINVAL))
		return false;
	if (++report->blocks_failed > most) {
		vmpctl_error("ab: %u failed runs: more than the %u blocks --ignore-failure allows",
			     report->blocks_failed, most);
		return false;
	}
	ab_progress("ab: the failed run's block is dropped (--ignore-failure): %u so far\n",
		    report->blocks_failed);
	return true;
}

/* Warmup, then blocks until --runs (and --until-precision) are done. */
static int run_all(struct ab_session *s, struct ab_schedule *schedule,
		   struct ab_report *report)
{
	const struct ab_options *o = &s->opts;
	double start = monotonic_s();
	size_t total = 2 * (size_t)o->runs;
	unsigned int blocks = 0;
	struct ab_run run, block[2];
	int err = 0;

	for (unsigned int i = 0; i < o->warmup; i++) {
		err = run_arm(s, i % 2 ? AB_ARM_B : AB_ARM_A, &run, "warmup",
			      i + 1, o->warmup);
		if (err && !ignored_failure(s, err, report))
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
			err = run_arm(s, arms[i], &block[i], "run", s->n_runs + 1 + i,
				      total > s->n_runs ? total : s->n_runs + 1);
			if (err)
				break;
		}
		if (err && ignored_failure(s, err, report))
			continue;
		if (err)
			return err;
		for (int i = 0; i < 2; i++) {
			err = add_run(s, &block[i]);
			if (err)
				return err;
			report_warnings(s, s->n_runs, &block[i]);
		}
		blocks++;
		if (o->precision_pct > 0 && blocks >= o->runs)
			report->precision_reached = precision_reached(s);
	}
	report->elapsed_s = monotonic_s() - start;
	return 0;
}

/*
 * Opens the knob (or names the --switch) and checks both values can be
 * written; nothing is written yet. 0 or the exit status.
 */
int ab_open_knob(struct ab_session *s)
{
	char path[PATH_MAX];
	const char *values[2] = { s->opts.value_a, s->opts.value_b };
	int err, rc;

	if (s->opts.switch_cmd) {
		snprintf(s->knob_label, sizeof(s->knob_label), "--switch '%s'",
			 s->opts.switch_cmd);
		return 0;
	}
	s->vmpressure_knob = ab_checks_vmpressure(&s->opts);
	if (s->vmpressure_knob) {
		rc = knob_write_preflight("ab");
		if (rc)
			return rc;
		err = vmp_attr_path(path, sizeof(path), "enabled");
		if (err) {
			vmpctl_error("ab: %s/enabled: %s", vmp_sysfs_dir, strerror(-err));
			return EXIT_ENVIRONMENT;
		}
	} else {
		snprintf(path, sizeof(path), "%s", s->opts.knob);
	}
	err = knob_open(&s->knob, s->vmpressure_knob ? path : s->opts.knob);
	if (err) {
		vmpctl_error("ab: knob %s %s", s->opts.knob ? s->opts.knob : path,
			     s->knob.why);
		return EXIT_ENVIRONMENT;
	}
	for (int i = 0; i < 2; i++) {
		if (knob_accepts(&s->knob, values[i])) {
			vmpctl_error("ab: --%c '%s': knob %s %s", i ? 'b' : 'a',
				     values[i], s->knob.path, s->knob.why);
			knob_close(&s->knob);
			return EXIT_USAGE;
		}
	}
	snprintf(s->knob_label, sizeof(s->knob_label), "%s", s->knob.path);
	s->knob_value = s->knob.found_value;
	return 0;
}

/*
 * Puts the knob back as found (or --switch back to arm A), when anything
 * was written. 0, or the failure was printed.
 */
int ab_restore_knob(struct ab_session *s)
{
	char found[64];
	struct ab_run ignored;
	int err;

	if (s->opts.switch_cmd) {
		if (!s->switched)
			return 0;
		err = run_switch(s, s->opts.value_a, &ignored, true);
		if (err)
			vmpctl_error("ab: could not return to arm A (%s): the system is left in another state",
				     s->opts.value_a);
		return err;
	}
	err = knob_restore(&s->knob);
	if (err)
		vmpctl_error("ab: KNOB NOT RESTORED: %s was '%s' and %s",
			     s->knob.path,
			     knob_found_display(&s->knob, found, sizeof(found)),
			     s->knob.why);
	return err;
}

static int print_report(const struct ab_report *report)
{
	switch (report->opts->format) {
	case AB_FORMAT_TABLE:
		ab_print_table(stdout, report);
		return 0;
	case AB_FORMAT_JSON:
		return ab_print_json(stdout, report);
	case AB_FORMAT_CSV:
		ab_print_csv(stdout, report);
		return 0;
	}
	return 0;
}

/* The report of a completed A/B; 0 or EXIT_CHECK_FAILED. */
static int report_runs(struct ab_session *s, unsigned long seed,
		       struct ab_report *report)
{
	double elapsed = report->elapsed_s;
	bool reached = report->precision_reached;
	bool out_of_time = report->out_of_time;
	unsigned int blocks_failed = report->blocks_failed;
	int err;

	if (ab_build_report(&s->opts, s->runs, s->n_runs, report)) {
		vmpctl_error("ab: only %zu runs before --max-time: need 2 per arm",
			     s->n_runs);
		return EXIT_CHECK_FAILED;
	}
	report->knob_path = s->knob_label;
	report->seed = seed;
	report->elapsed_s = elapsed;
	report->precision_reached = reached;
	report->out_of_time = out_of_time;
	report->blocks_failed = blocks_failed;
	if (s->save) {
		ab_print_json(s->save, report);
		fflush(s->save);
	}
	err = print_report(report);
	if (err) {
		vmpctl_error("ab: writing the JSON report: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

/* Whether an A/B that ended early has enough for a report. */
static bool measured_enough(const struct ab_session *s, bool interleaved)
{
	struct il_pair_counts pairs;
	size_t per_arm[2] = { 0 };

	if (interleaved) {
		il_count_pairs(&s->il, &pairs);
		return pairs.kept >= 2;
	}
	for (size_t i = 0; i < s->n_runs; i++)
		per_arm[s->runs[i].arm]++;
	return per_arm[AB_ARM_A] >= 2 && per_arm[AB_ARM_B] >= 2;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_session s = { 0 };
	struct ab_schedule schedule;
	struct ab_report report = { 0 };
	enum parse_result parsed;
	unsigned long seed;
	char signame[32];
	bool interleaved;
	int rc, err;

	parsed = ab_parse_args(argc, argv, &s.opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	interleaved = s.opts.interleave_s > 0;
	seed = s.opts.seed_given ? s.opts.seed :
		(unsigned long)time(NULL) ^ (unsigned long)getpid();
	s.opts.seed = seed;	/* the sign-flip test's random swaps too */
	if (ab_schedule_init(&schedule, s.opts.order, seed)) {
		vmpctl_error("ab: %s", strerror(ENOMEM));
		ab_options_free(&s.opts);
		return EXIT_CHECK_FAILED;
	}
	rc = ab_open_knob(&s);
	if (rc)
		goto out;
	if (s.opts.save_path) {
		s.save = fopen(s.opts.save_path, "we");
		if (!s.save) {
			vmpctl_error("ab: --save: %s cannot be written: %s",
				     s.opts.save_path, strerror(errno));
			rc = EXIT_ENVIRONMENT;
			goto out;
		}
	}
	stop_signals_install();

	err = interleaved ? ab_interleave_run(&s, &schedule) :
		run_all(&s, &schedule, &report);
	rc = err ? EXIT_CHECK_FAILED : 0;
	if (ab_restore_knob(&s))
		rc = EXIT_RESTORE_FAILED;
	/* the knob is back: from here a signal may end vmpctl as usual */
	stop_signals_restore();
	if (err && measured_enough(&s, interleaved)) {
		/* what was measured before the stop or the failure is not lost */
		vmpctl_error("ab: the report below is of what was measured before %s",
			     stop_requested() ? "the stop" : "the failure");
		if (interleaved)
			ab_interleave_report(&s, seed);
		else
			report_runs(&s, seed, &report);
	}
	if (stop_requested()) {
		vmpctl_error("ab: stopped by %s after %zu %s; %s",
			     stop_signal_name(stop_signal(), signame,
					      sizeof(signame)),
			     interleaved ? s.il.n : s.n_runs,
			     interleaved ? "slices" : "runs",
			     rc == EXIT_RESTORE_FAILED ?
			     "the knob was NOT restored" :
			     s.opts.switch_cmd ? "back in arm A" : "knob restored");
		if (rc != EXIT_RESTORE_FAILED) {
			rc = EXIT_CHECK_FAILED;
			stop_signals_reraise();
		}
		goto out;
	}
	if (!err) {
		int report_rc = interleaved ? ab_interleave_report(&s, seed) :
			report_runs(&s, seed, &report);

		if (!rc)
			rc = report_rc;
	}
out:
	if (s.save && fclose(s.save) && !rc) {
		vmpctl_error("ab: --save: writing %s: %s", s.opts.save_path,
			     strerror(errno));
		rc = EXIT_CHECK_FAILED;
	}
	ab_schedule_free(&schedule);
	ab_options_free(&s.opts);
	if (!s.opts.switch_cmd)
		knob_close(&s.knob);
	free(s.runs);
	il_free(&s.il);
	return rc;
}
