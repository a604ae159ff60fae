// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: whole runs of the command, block by block (see session.h). */
#include "save.h"
#include "session.h"
#include "child.h"
#include "clock.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double ab_run_timeout(const struct ab_session *s, double now)
{
	double floor;

	if (s->opts.run_timeout_s > 0)
		return s->opts.run_timeout_s;
	if (isfinite(s->max_time_end_s))
		floor = fmax(s->max_time_end_s - now, 0);
	else
		floor = s->longest_run_s > 0 ? AB_RUN_TIMEOUT_MIN_S :
			AB_FIRST_RUN_TIMEOUT_S;
	return fmax(AB_RUN_TIMEOUT_FACTOR * s->longest_run_s, floor);
}

/* child_run's watcher of a whole run: past the deadline, its end. */
static bool before_deadline(void *ctx, double *wake_at)
{
	const double *deadline = ctx;

	*wake_at = *deadline;
	return monotonic_s() < *deadline;
}

/*
 * One run of arm: knob, counters, CMD, counters. 0 on success, -EINTR
 * when a stop signal came, -ETIMEDOUT when it was killed over the run
 * timeout; else the failure was printed.
 */
static int run_arm(struct ab_session *s, enum ab_arm arm, struct ab_run *run,
		   const char *what, size_t index, size_t total)
{
	double started, limit, deadline;
	struct child_spec spec = { .argv = s->opts.cmd,
				   .capture_max = AB_OUTPUT_MAX, .own_group = true,
				   .ctx = &deadline };
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
	started = monotonic_s();
	limit = ab_run_timeout(s, started);
	deadline = started + limit;
	spec.on_wake = before_deadline;
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
	} else if (res.ended) {
		vmpctl_error("ab: %s %zu (arm %s): %s ran over %g s (%s) and was killed with its process group",
			     what, index, ab_arm_name(arm), s->opts.cmd[0], limit,
			     s->opts.run_timeout_s > 0 ? "--run-timeout" :
			     "the run timeout: --run-timeout sets it");
		ab_print_failed_output(&res.out);
		err = -ETIMEDOUT;
	} else if (child_status_text(res.status, why, sizeof(why))) {
		vmpctl_error("ab: %s %zu (arm %s): %s %s", what, index,
			     ab_arm_name(arm), s->opts.cmd[0], why);
		ab_print_failed_output(&res.out);
		err = -ECHILD;
	} else if (s->opts.metric_regex) {
		err = take_metric(s, &res.out, run, what, index);
	}
	child_result_free(&res);
	if (!err) {
		s->longest_run_s = fmax(s->longest_run_s, run->wall_s);
		print_progress(s, what, index, total, run);
	}
	return err;
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
	ab_save_run(s, run);
	return 0;
}

/*
 * --until-precision: the half-width of the first metric's headline
 * interval, the ABBA blocks' contrast once there are 2 blocks (else
 * Welch's and Fieller's, as the headline), below the asked percent.
 */
static bool precision_reached(struct ab_session *s)
{
	struct ab_report report;
	const struct ab_metric_report *m;
	double lo, hi;

	if (ab_build_report(&s->opts, s->runs, s->n_runs, &report))
		return false;
	m = &report.metrics[0];
	lo = m->paired ? m->blocks.diff_ci_lo_pct : m->cmp.diff_ci_lo_pct;
	hi = m->paired ? m->blocks.diff_ci_hi_pct : m->cmp.diff_ci_hi_pct;
	return isfinite(lo) && isfinite(hi) && (hi - lo) / 2 < s->opts.precision_pct;
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

	if (!s->opts.ignore_failure || (err != -ECHILD && err != -ENOENT &&
					 err != -EINVAL && err != -ETIMEDOUT))
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

int ab_run_all(struct ab_session *s, struct ab_schedule *schedule,
	       struct ab_report *report)
{
	const struct ab_options *o = &s->opts;
	double start = monotonic_s();
	size_t total = 2 * (size_t)o->runs;
	unsigned int blocks = 0;
	struct ab_run run, block[2];
	int err = 0;

	s->max_time_end_s = o->max_time_s > 0 ? start + o->max_time_s : INFINITY;

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
			if (err != -EINTR)
				s->runs_tried[arms[i]]++;
			if (err == -ECHILD || err == -ENOENT || err == -EINVAL) {
				s->runs_failed[arms[i]]++;
				ab_save_failed_run(s, arms[i], false);
			}
			if (err == -ETIMEDOUT) {
				s->runs_timed_out[arms[i]]++;
				ab_save_failed_run(s, arms[i], true);
			}
			if (err)
				break;
		}
		if (err && ignored_failure(s, err, report)) {
			ab_schedule_repeat(schedule);
			continue;
		}
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
