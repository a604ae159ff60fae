// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab --interleave: the one long run. The command runs under
 * child_run(); its stdout is read line by line as it comes (rate lines go
 * to interleave.c), and on every wake-up the watcher flips the knob when
 * the slice is over, through the same ab_set_arm() as whole runs, and ends
 * the command once enough pairs are final (or --max-time passed).
 */
#include "ab.h"
#include "session.h"
#include "child.h"
#include "clock.h"
#include "slices.h"
#include "output.h"
#include "progress.h"
#include "rate.h"
#include "save.h"
#include "signals.h"
#include "stats_paired.h"
#include "stats_seq.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stdout of the command kept for a failure message: its last bytes */
#define IL_CAPTURE_MAX 65536
/*
 * A rate line's t this far from CLOCK_MONOTONIC's now (later than now, or
 * before the run began) is on another clock: the wall clock's epoch, say.
 */
#define IL_CLOCK_SLACK_S 5.0
/*
 * Report intervals longer than half the counted slice this many times in
 * a row: the command's report interval is too long for the slices (one
 * such interval is a reporter that woke late on a busy machine).
 */
#define IL_LONG_INTERVALS_MAX 4

struct il_run {
	struct ab_session *s;
	struct ab_schedule *schedule;
	double started;
	double next_flip;
	struct ab_counters at_slice_start;
	char line[RATE_LINE_MAX];
	size_t line_len;
	bool line_too_long;	/* skipping to the next newline */
	size_t lines_invalid;
	size_t pairs_shown;	/* progress lines printed */
	struct ab_status_line status;	/* on a terminal */
	size_t pairs_checked;	/* kept pairs at the last precision check */
	int error;		/* a flip failed (printed) */
	bool no_lines;		/* the command prints no rate lines */
	bool lines_refused;	/* rate lines ab cannot use (printed) */
	size_t long_intervals;	/* in a row, longer than half a slice */
	bool precision_reached;
	bool out_of_time;
	/* the watchdog: when progress came last (0 not yet), and what it saw */
	double progress_at;
	size_t intervals_seen;
	bool stalled;		/* it ended the run */
	double stalled_s;
	struct stats_seq seq;	/* --sequential: fed every kept pair */
	size_t seq_fed;
	bool seq_stopped;	/* its answer ended the run */
	double covariate_at;	/* --covariate: read at the open slice's start */
	double covariate_t;
	/* --preset, a regex or --counter; none: the project's rate lines */
	struct ab_source source;
	/*
	 * read by ab on time (--counter): after each flip, --settle and half
	 * the slice, and before a flip
	 */
	bool polled;
	double next_sample;
	double sample_after;	/* the one after next_sample; INFINITY none */
};

/*
 * Whether a rate line can be used at all; else the run ends with the
 * reason printed: a slice must hold two report intervals after --settle,
 * and t must be CLOCK_MONOTONIC.
 */
static bool usable_line(struct il_run *run, const struct rate_interval *iv)
{
	const struct ab_options *o = &run->s->opts;
	double now = monotonic_s(), counted = o->interleave_s - o->settle_s;

	if (iv->t > now + IL_CLOCK_SLACK_S ||
	    iv->t < run->started - iv->interval_s - IL_CLOCK_SLACK_S) {
		vmpctl_error("ab: %s printed a rate line with t %.6f while CLOCK_MONOTONIC reads %.6f: t must be CLOCK_MONOTONIC seconds (clock_gettime(2)), not the wall clock",
			     o->cmd[0], iv->t, now);
		return false;
	}
	run->long_intervals = 2 * iv->interval_s > counted ? run->long_intervals + 1 : 0;
	if (run->long_intervals >= IL_LONG_INTERVALS_MAX) {
		vmpctl_error("ab: %s reports every %g s: a slice (--interleave %g, less --settle %g) must hold at least two report intervals; lengthen the slices or shorten the report interval",
			     o->cmd[0], iv->interval_s, o->interleave_s, o->settle_s);
		return false;
	}
	return true;
}

/* A line of the command's through --preset or a regex: 0 with *sample. */
static int take_source_line(struct il_run *run, struct ab_sample *sample)
{
	int ret = ab_source_take(&run->source, run->line, run->line_len,
				 monotonic_s(), sample);

	if (ret == -EINVAL && !run->lines_invalid++)
		vmpctl_error("ab: warning: %s printed a %s report with numbers that make no sense: %.*s",
			     run->s->opts.cmd[0], ab_source_name(&run->source),
			     (int)run->line_len, run->line);
	if (ret == -ENOMEM)
		vmpctl_error("ab: %s", strerror(ENOMEM));
	return ret == 1 ? 0 : -ENOENT;
}

/* Whether the interval went into a slice. */
static bool take_interval(struct il_run *run, const struct rate_interval *iv)
{
	if (run->lines_refused)
		return false;
	if (!usable_line(run, iv)) {
		run->lines_refused = true;
		return false;
	}
	return il_add_interval(&run->s->il, iv) == IL_IN_SLICE;
}

/* A preset's or regex's sample: its interval, and its latency with it. */
static void take_sample(struct il_run *run, const struct ab_sample *sample)
{
	if (take_interval(run, &sample->iv) &&
	    ab_latency_add(&run->s->latency, &run->s->il, sample)) {
		vmpctl_error("ab: %s", strerror(ENOMEM));
		run->lines_refused = true;
	}
}

static void take_line(struct il_run *run)
{
	struct ab_sample sample;
	struct rate_interval iv;
	int err;

	if (ab_source_takes_lines(&run->source)) {
		if (!take_source_line(run, &sample))
			take_sample(run, &sample);
		return;
	}
	err = rate_line_parse(run->line, run->line_len, &iv);
	if (err == -EINVAL && !run->lines_invalid++)
		vmpctl_error("ab: warning: %s printed a rate line that breaks the contract (t, interval_s > 0, count >= 0): %.*s",
			     run->s->opts.cmd[0], (int)run->line_len, run->line);
	if (err || run->lines_refused)
		return;
	if (!usable_line(run, &iv)) {
		run->lines_refused = true;
		return;
	}
	il_add_interval(&run->s->il, &iv);
}

static void on_output(void *ctx, const char *data, size_t n)
{
	struct il_run *run = ctx;

	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			if (!run->line_too_long)
				take_line(run);
			run->line_len = 0;
			run->line_too_long = false;
		} else if (run->line_len + 1 < sizeof(run->line)) {
			run->line[run->line_len++] = data[i];
		} else {
			run->line_too_long = true;
		}
	}
}

/*
 * --covariate: its rate over the open slice (from its start, after the
 * flip, to now) into the slice, and the reading that starts the next;
 * 0 or -errno (printed).
 */
static int read_covariate(struct il_run *run, bool close)
{
	const struct ab_options *o = &run->s->opts;
	struct interleave *il = &run->s->il;
	double value, t;
	int err;

	if (!o->covariate_spec)
		return 0;
	err = ab_counter_read(&o->covariate, &value);
	t = monotonic_s();
	if (err) {
		vmpctl_error("ab: --covariate %s: %s", o->covariate_spec, strerror(-err));
		return err;
	}
	if (close && il->n && t > run->covariate_t)
		il->slices[il->n - 1].covariate =
			fmax(0, value - run->covariate_at) / (t - run->covariate_t);
	run->covariate_at = value;
	run->covariate_t = t;
	return 0;
}

/* The kernel counters from the open slice's start to now go into it. */
static void close_counters(struct il_run *run)
{
	struct interleave *il = &run->s->il;
	struct il_slice *slice;
	struct ab_counters now;
	struct ab_run deltas = { 0 };

	if (!il->n)
		return;
	ab_read_counters(run->s, &now);
	ab_counter_deltas(&run->at_slice_start, &now, &deltas);
	slice = &il->slices[il->n - 1];
	slice->have_reclaim = deltas.have_reclaim;
	slice->pgscan = deltas.pgscan;
	slice->have_skipped = deltas.have_skipped;
	slice->skipped = deltas.skipped;
}

/*
 * A polled source: the interval since the last reading goes to the slices
 * (since_last false: a flip lies between, so none); 0 or -errno (printed).
 */
static int sample_source(struct il_run *run, bool since_last)
{
	struct ab_sample sample;
	int ret = ab_source_sample(&run->source, since_last, &sample);

	if (ret == 1)
		il_add_interval(&run->s->il, &sample.iv);
	return ret < 0 ? ret : 0;
}

/*
 * A polled source's readings in a slice that just began: after --settle, at the
 * middle of the counted time (for the carry-over check's halves), and
 * before the next flip.
 */
static void plan_samples(struct il_run *run)
{
	const struct il_slice *slice = &run->s->il.slices[run->s->il.n - 1];
	double counted_from = slice->start + run->s->opts.settle_s;
	double middle = (counted_from + run->next_flip) / 2;

	run->next_sample = run->s->opts.settle_s > 0 ? counted_from : middle;
	run->sample_after = run->s->opts.settle_s > 0 ? middle : INFINITY;
}

/* Ends the open slice and begins the next: the flip window. */
static int flip(struct il_run *run)
{
	struct interleave *il = &run->s->il;
	double flip_started = monotonic_s();
	enum ab_arm arm;
	struct ab_run knob = { 0 };
	int err;

	close_counters(run);
	err = read_covariate(run, true);
	if (err)
		return err;
	arm = il_next_arm(il, run->schedule);
	err = ab_set_arm(run->s, arm, &knob);
	if (err)
		return err;
	ab_read_counters(run->s, &run->at_slice_start);
	err = read_covariate(run, false);
	if (err)
		return err;
	err = il_begin_slice(il, arm, flip_started, monotonic_s(),
			     knob.knob_write_s, knob.knob_toggled);
	if (err) {
		vmpctl_error("ab: %s", strerror(-err));
		return err;
	}
	run->next_flip = flip_started + il_slice_length(il, il->n - 1);
	if (!run->polled)
		return 0;
	plan_samples(run);
	return sample_source(run, false);
}

/* The status line's figures: the time, and the kept pairs' comparison. */
static void show_status(struct il_run *run)
{
	const struct ab_options *o = &run->s->opts;
	const struct interleave *il = &run->s->il;
	struct ab_status st = { .elapsed_s = monotonic_s() - run->started,
				.left_s = NAN, .wanted = o->runs, .diff_pct = NAN,
				.ci_lo_pct = NAN, .ci_hi_pct = NAN };
	double *a = malloc((il->n / 2 + 1) * sizeof(double));
	double *b = malloc((il->n / 2 + 1) * sizeof(double));
	struct stats_paired cmp;

	if (!a || !b)
		goto out;
	st.kept = il_kept_pairs(il, a, b);
	if (o->max_time_s > 0)
		st.left_s = o->max_time_s - st.elapsed_s;
	if (st.kept && st.kept < st.wanted)
		st.left_s = fmin(st.left_s, (st.wanted - st.kept) * st.elapsed_s / st.kept);
	if (!stats_compare_paired(a, b, st.kept, &cmp)) {
		st.diff_pct = cmp.diff_pct;
		st.ci_lo_pct = cmp.diff_ci_lo_pct;
		st.ci_hi_pct = cmp.diff_ci_hi_pct;
	}
	ab_status_show(&run->status, &st);
out:
	free(a);
	free(b);
}

/* One progress line per pair that became final. */
static void show_new_pairs(struct il_run *run)
{
	const struct interleave *il = &run->s->il;

	for (;;) {
		size_t k = il->warmup + 2 * run->pairs_shown;
		const struct il_slice *x, *y;
		enum il_fate fx, fy;
		double rate_a, rate_b;

		if (k + 1 >= il->n)
			return;
		fx = il_slice_fate(il, k);
		fy = il_slice_fate(il, k + 1);
		if (fx == IL_OPEN || fy == IL_OPEN)
			return;
		run->pairs_shown++;
		if (run->s->opts.quiet)
			continue;
		ab_status_clear(&run->status);
		x = &il->slices[k];
		y = &il->slices[k + 1];
		if (fx != IL_KEPT || fy != IL_KEPT) {
			ab_progress("ab: pair %zu %s%s: dropped (%s)\n",
				    run->pairs_shown, ab_arm_name(x->arm),
				    ab_arm_name(y->arm),
				    fx == IL_FLIP_TOO_LONG || fy == IL_FLIP_TOO_LONG ?
				    "a flip took too long" : "a slice without a whole report interval");
			continue;
		}
		rate_a = il_slice_rate(x->arm == AB_ARM_A ? x : y);
		rate_b = il_slice_rate(x->arm == AB_ARM_A ? y : x);
		ab_progress("ab: pair %zu %s%s: A %.6g, B %.6g (%+.2f%%), flips %.1f/%.1f ms\n",
			    run->pairs_shown, ab_arm_name(x->arm),
			    ab_arm_name(y->arm), rate_a, rate_b,
			    100 * (rate_b - rate_a) / rate_a, 1e3 * x->flip_s,
			    1e3 * y->flip_s);
	}
}

/* The slices saved, the pairs' lines, then the status line below them. */
static void show_pairs(struct il_run *run)
{
	ab_save_slices(run->s, false);
	show_new_pairs(run);
	if (run->status.on)
		show_status(run);
}

/* The kept pairs not fed yet, into the sequential test. */
struct seq_feed {
	struct stats_seq *seq;
	size_t kept;		/* kept pairs seen */
	size_t fed;		/* ... already fed before */
	int err;
};

static void feed_pair(const struct interleave *il, size_t first,
		      enum il_fate f0, enum il_fate f1, void *arg)
{
	struct seq_feed *f = arg;
	const struct il_slice *x = &il->slices[first], *y = &il->slices[first + 1];
	struct stats_seq_pair p = { .b_second = y->arm == AB_ARM_B };

	if (f0 != IL_KEPT || f1 != IL_KEPT || f->kept++ < f->fed || f->err)
		return;
	p.a = il_slice_rate(p.b_second ? x : y);
	p.b = il_slice_rate(p.b_second ? y : x);
	p.cov_a = (p.b_second ? x : y)->covariate;
	p.cov_b = (p.b_second ? y : x)->covariate;
	f->err = stats_seq_add(f->seq, &p);
}

/* --sequential: whether the always-valid interval has an answer. */
static bool sequential_answer(struct il_run *run)
{
	struct seq_feed f = { .seq = &run->seq, .fed = run->seq_fed };

	il_each_final_pair(&run->s->il, feed_pair, &f);
	run->seq_fed = f.kept;
	if (f.err) {
		vmpctl_error(run->s->opts.covariate_spec ?
			     "ab: --sequential: a kept slice's rate or --covariate's growth is not above 0, no log ratio: check what the rate lines report and that the covariate counts up in every slice" :
			     "ab: --sequential: a kept slice's rate is not above 0, no log ratio: check what the rate lines report");
		run->error = f.err;
		return true;
	}
	return run->seq.verdict != STATS_SEQ_RUNNING;
}

/* Whether the kept pairs are enough: --runs, --until-precision, --sequential. */
static bool enough_pairs(struct il_run *run)
{
	const struct ab_options *o = &run->s->opts;
	struct il_pair_counts counts;
	struct il_report report;

	if (o->sequential) {
		run->seq_stopped = sequential_answer(run);
		return run->seq_stopped;
	}
	il_count_pairs(&run->s->il, &counts);
	if (counts.kept < o->runs)
		return false;
	if (o->precision_pct <= 0)
		return true;
	if (counts.kept == run->pairs_checked)
		return run->precision_reached;
	run->pairs_checked = counts.kept;
	if (il_build_report(&run->s->il, o, &report) || !report.compared)
		return false;
	run->precision_reached = isfinite(report.cmp.diff_ci_lo_pct) &&
		isfinite(report.cmp.diff_ci_hi_pct) &&
		(report.cmp.diff_ci_hi_pct - report.cmp.diff_ci_lo_pct) / 2 <
		o->precision_pct;
	return run->precision_reached;
}

/*
 * How long without progress ends the run: --stall-timeout, else
 * AB_STALL_INTERVALS times the median report interval, and at least two
 * slices and AB_STALL_MIN_S. A counter the command does not print has no default (ab reads
 * it on time whatever the workload does): 0, no watchdog.
 */
static double stall_limit(const struct il_run *run)
{
	const struct ab_options *o = &run->s->opts;

	if (o->stall_timeout_s > 0)
		return o->stall_timeout_s;
	if (run->polled)
		return 0;
	return fmax(fmax(AB_STALL_INTERVALS * il_recent_median(&run->s->il),
			 2 * o->interleave_s), AB_STALL_MIN_S);
}

/*
 * The no-progress watchdog: whether progress (a rate line, or a counter
 * that moved) is overdue; sets *wake_at to when it will be. It starts
 * with the first progress: --start-timeout watches the time before it.
 */
static bool stalled(struct il_run *run, double now, double *wake_at)
{
	const struct interleave *il = &run->s->il;
	double limit = stall_limit(run);
	char why[128];

	if (il->intervals_read != run->intervals_seen && !run->polled) {
		run->intervals_seen = il->intervals_read;
		run->progress_at = now;
	}
	if (!(limit > 0) || !(run->progress_at > 0))
		return false;
	if (now - run->progress_at < limit) {
		*wake_at = fmin(*wake_at, run->progress_at + limit);
		return false;
	}
	run->stalled = true;
	run->stalled_s = now - run->progress_at;
	if (run->s->opts.stall_timeout_s > 0)
		snprintf(why, sizeof(why), "--stall-timeout");
	else
		snprintf(why, sizeof(why), "%d times its median report interval of %.3g s, at least two slices and %g s; --stall-timeout sets it",
			 AB_STALL_INTERVALS, il_recent_median(il), AB_STALL_MIN_S);
	vmpctl_error("ab: %s made no progress for %.3g s (%s): the watchdog ended the run",
		     run->s->opts.cmd[0], run->stalled_s, why);
	return true;
}

/* child_run's watcher: false ends the command. */
static bool on_wake(void *ctx, double *wake_at)
{
	struct il_run *run = ctx;
	const struct ab_options *o = &run->s->opts;
	struct interleave *il = &run->s->il;
	double now = monotonic_s();

	show_pairs(run);
	if (run->lines_refused)
		return false;
	if (il->n && enough_pairs(run))
		return false;
	if (o->max_time_s > 0 && now - run->started >= o->max_time_s) {
		run->out_of_time = true;
		return false;
	}
	if (run->polled && il->n && now >= run->next_sample &&
	    now < run->next_flip) {
		run->error = sample_source(run, true);
		if (run->error)
			return false;
		run->next_sample = run->sample_after;
		run->sample_after = INFINITY;
	}
	if (!il->intervals_read && !run->polled &&
	    now - run->started >= o->start_timeout_s) {
		vmpctl_error("ab: %s printed no rate line in %g s (--start-timeout): --interleave needs a command that reports its rate (pft --report-interval; see vmpctl(1))",
			     o->cmd[0], now - run->started);
		run->no_lines = true;
		return false;
	}
	if (!il->n || now >= run->next_flip) {
		if (run->polled && il->n)
			run->error = sample_source(run, true);
		if (!run->error)
			run->error = flip(run);
		if (run->error)
			return false;
	}
	*wake_at = il->intervals_read || run->polled ? run->next_flip :
		fmin(run->next_flip, run->started + o->start_timeout_s);
	if (run->polled)
		*wake_at = fmin(*wake_at, run->next_sample);
	return !stalled(run, now, wake_at);
}

/* The stand-in child while ab watches a cgroup or process. */
static int wait_to_be_ended(void *arg)
{
	(void)arg;
	/* pause() returns only after a signal that did not end it */
	while (pause() == -1)
		;
	return 0;
}

/* The command's end: ours, or its own. 0 or -ECHILD (printed). */
static int check_status(struct il_run *run, const struct child_result *res)
{
	char why[96];

	/*
	 * Ended by ab: its status is how it took the SIGTERM, which some
	 * benchmarks catch to exit non-zero (iperf3 exits 1, fio 128).
	 */
	if (res->ended)
		return 0;
	if (!child_status_text(res->status, why, sizeof(why)))
		return 0;
	vmpctl_error("ab: %s %s after %zu slices", run->s->opts.cmd[0], why,
		     run->s->il.n);
	ab_print_failed_output(&res->out);
	return -ECHILD;
}

int ab_interleave_run(struct ab_session *s, struct ab_schedule *schedule)
{
	struct il_run run = { .s = s, .schedule = schedule };
	struct child_spec spec = { .argv = s->opts.cmd,
				   .capture_max = IL_CAPTURE_MAX,
				   .stderr_too = s->opts.source.from_stderr,
				   .on_output = on_output, .on_wake = on_wake,
				   .ctx = &run, .own_group = true };
	struct child_result res;
	struct ab_sample last;
	int err;

	/*
	 * Watching a cgroup or process: no command of ours runs, only a child
	 * that waits to be ended, so that the one wait loop serves both.
	 */
	if (ab_source_attached(&s->opts.source)) {
		spec.argv = NULL;
		spec.body = wait_to_be_ended;
	}
	ab_source_init(&run.source, &s->opts.source);
	run.polled = ab_source_polled(&run.source);

	ab_status_init(&run.status, s->opts.quiet);
	il_init(&s->il, s->opts.max_flip_s, s->opts.warmup);
	s->latency.pct = NAN;
	s->il.settle_s = s->opts.settle_s;
	s->il.split = s->opts.split_intervals;
	/* ab reads a counter on time: only a command's own reports stall */
	s->il.find_stalls = !run.polled;
	s->il.slice_s = s->opts.interleave_s;
	s->il.long_every = s->opts.long_every;
	if (s->opts.sequential &&
	    stats_seq_init(&run.seq, s->opts.target_pct, STATS_ALPHA,
			   s->opts.covariate_spec ? STATS_SEQ_COVARIATE : STATS_SEQ_ORDER)) {
		vmpctl_error("ab: --sequential: --target %g%% is not below 100%%",
			     s->opts.target_pct);
		return -EINVAL;
	}
	if (stop_requested())
		return -EINTR;
	run.started = monotonic_s();
	/* ab reads a counter from the start: the watchdog watches from then */
	if (run.polled)
		run.progress_at = run.started;
	err = child_run(&spec, &res);
	if (err) {
		if (err != -EINTR)
			vmpctl_error("ab: starting %s: %s", s->opts.cmd[0],
				     strerror(-err));
		ab_source_free(&run.source);
		return err;
	}
	/* a last line without its newline */
	if (run.line_len && !run.line_too_long)
		take_line(&run);
	if (ab_source_finish(&run.source, &last) == 1)
		take_sample(&run, &last);
	ab_source_free(&run.source);
	s->il.input_done = true;
	ab_status_clear(&run.status);
	if (!run.error)
		run.error = read_covariate(&run, true);	/* the last slice's */
	show_new_pairs(&run);
	ab_save_slices(s, true);
	if (s->opts.sequential)
		sequential_answer(&run);	/* the pairs the command's end made final */
	s->il_end = (struct ab_interleave_end){
		.elapsed_s = monotonic_s() - run.started,
		.lines_invalid = run.lines_invalid,
		.out_of_time = run.out_of_time,
		.precision_reached = run.precision_reached,
		.command_ended = !res.ended,
		.stalled = run.stalled,
		.stalled_s = run.stalled_s,
		.sequential = run.seq,
		.sequential_stopped = run.seq_stopped,
	};
	if (stop_requested())
		err = -EINTR;
	else if (run.error)
		err = run.error;
	else if (run.stalled)
		err = -ETIMEDOUT;
	else if (run.no_lines || run.lines_refused)
		err = -ENOENT;
	else
		err = check_status(&run, &res);
	child_result_free(&res);
	return err;
}
