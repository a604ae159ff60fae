// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the command itself, from the options to the report. */
#include "ab.h"
#include "latency.h"
#include "result.h"
#include "save.h"
#include "session.h"
#include "commands.h"
#include "export.h"
#include "knob.h"
#include "output.h"
#include "restorefile.h"
#include "signals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The report of a completed A/B; 0 or EXIT_CHECK_FAILED. */
static int report_runs(struct ab_session *s, unsigned long seed,
		       struct ab_report *report)
{
	struct ab_result result;
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
	ab_losses_of_runs(&report->losses, s->runs_tried, s->runs_failed,
			  s->runs_timed_out);
	ab_result_of_runs(report, &result);
	err = ab_result_report(&result, s->save);
	if (err) {
		vmpctl_error("ab: writing the JSON report: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (ab_result_export(&result))
		return EXIT_CHECK_FAILED;
	/* an arm that fails more is the answer, --ignore-failure or not */
	if (report->losses.checked && !report->losses.even) {
		vmpctl_error("ab: %s", report->losses.why);
		return EXIT_CHECK_FAILED;
	}
	return 0;
}

/* The report of a completed interleaved A/B; 0 or EXIT_CHECK_FAILED. */
static int report_slices(struct ab_session *s, unsigned long seed)
{
	struct ab_latency_report latency;
	struct ab_result result;
	struct il_report r;
	int err;

	err = il_build_report(&s->il, &s->opts, &r);
	if (!err)
		err = il_count_losses(&s->il, &r.losses);
	if (err) {
		vmpctl_error("ab: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (r.no_progress) {
		vmpctl_error("ab: no verdict: arm A's kept slices made no progress (mean rate %g over %zu pairs): the source never moved, so B vs A has no percent; check what --counter, --rate-regex or --preset reads",
			     r.cmp.a.mean, r.cmp.n);
		return EXIT_CHECK_FAILED;
	}
	if (!r.compared) {
		vmpctl_error("ab: only %zu pairs kept (%zu dropped) before %s: need 2",
			     r.pairs.kept, r.pairs.dropped,
			     s->il_end.out_of_time ? "--max-time" : "the command ended");
		return EXIT_CHECK_FAILED;
	}
	err = ab_latency_build(&s->latency, &s->il, seed, &latency);
	if (err) {
		vmpctl_error("ab: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (latency.mean.compared || latency.pct.compared)
		r.latency = &latency;
	r.knob_path = s->knob_label;
	r.seed = seed;
	r.elapsed_s = s->il_end.elapsed_s;
	r.lines_invalid = s->il_end.lines_invalid;
	r.out_of_time = s->il_end.out_of_time;
	r.precision_reached = s->il_end.precision_reached;
	r.command_ended = s->il_end.command_ended;
	if (s->opts.sequential)
		r.sequential = (struct ab_sequential_end){
			.seq = &s->il_end.sequential,
			.stopped = s->il_end.sequential_stopped,
			.out_of_time = s->il_end.out_of_time,
			.command_ended = s->il_end.command_ended,
		};
	ab_result_of_slices(&r, &result);
	err = ab_result_report(&result, s->save);
	if (s->opts.sequential && r.opts->format == AB_FORMAT_TABLE)
		ab_sequential_print(stdout, &s->opts, &r.sequential);
	if (err) {
		vmpctl_error("ab: writing the JSON report: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (ab_result_export(&result))
		return EXIT_CHECK_FAILED;
	if (!r.losses.even) {
		vmpctl_error("ab: no verdict: losses depend on the arm: %s", r.losses.why);
		return EXIT_CHECK_FAILED;
	}
	if (il_stalls_unresolved(&r)) {
		vmpctl_error("ab: no verdict: %s stalls more (Fisher p %.3g) but the rates do not call it worse; run more pairs",
			     ab_losses_stall_lean(&r.losses) ? "B" : "A", r.losses.stall_p);
		return EXIT_CHECK_FAILED;
	}
	if (!r.balance.balanced) {
		vmpctl_error("ab: no verdict: the kept pairs are unbalanced (AB:BA %zu:%zu, slices after a flip A %zu, B %zu, flips over --max-flip to A %zu of %zu, to B %zu of %zu): dropping pairs by flip time depended on the arm; raise --max-flip",
			     r.balance.pairs_ab, r.balance.pairs_ba,
			     r.balance.a_after_flip, r.balance.b_after_flip,
			     r.balance.slow_to_a, r.balance.flips_to_a,
			     r.balance.slow_to_b, r.balance.flips_to_b);
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

	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return cmd_ab_report(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return cmd_ab_merge(argc - 1, argv + 1);
	parsed = ab_parse_args(argc, argv, &s.opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	if (s.opts.restore_path) {
		rc = restore_file_apply("ab", s.opts.restore_path);
		ab_options_free(&s.opts);
		return rc;
	}
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
		ab_save_header(&s);
	}
	ab_keep_found_value(&s);
	stop_signals_install();

	err = interleaved ? ab_interleave_run(&s, &schedule) :
		ab_run_all(&s, &schedule, &report);
	/* a workload that stalled or a run over its timeout: exit 5 */
	rc = err == -ETIMEDOUT ? EXIT_STALLED : err ? EXIT_CHECK_FAILED : 0;
	if (ab_restore_knob(&s))
		rc = EXIT_RESTORE_FAILED;
	/* the knob is back: from here a signal may end vmpctl as usual */
	stop_signals_restore();
	if (err && measured_enough(&s, interleaved)) {
		/* what was measured before the stop or the failure is not lost */
		vmpctl_error("ab: the report below is of what was measured before %s",
			     stop_requested() ? "the stop" : err == -ETIMEDOUT ?
			     "the workload stalled" : "the failure");
		if (interleaved)
			report_slices(&s, seed);
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
		int report_rc = interleaved ? report_slices(&s, seed) :
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
	ab_latency_free(&s.latency);
	return rc;
}
