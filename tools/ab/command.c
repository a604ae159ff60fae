// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the command itself, from the options to the report. */
#include "ab.h"
#include "merge.h"
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

static int print_runs_as(FILE *out, const void *report, enum ab_format format)
{
	return ab_print_as(out, report, format);
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
	ab_losses_of_runs(&report->losses, s->runs_tried, s->runs_failed);
	if (s->save) {
		ab_print_json(s->save, report);
		fflush(s->save);
	}
	err = ab_print_as(stdout, report, report->opts->format);
	if (err) {
		vmpctl_error("ab: writing the JSON report: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	if (ab_write_exports(&s->opts, print_runs_as, report) ||
	    ab_write_benchstat(&s->opts, s->knob_label, report->runs, report->n_runs, NULL))
		return EXIT_CHECK_FAILED;
	/* an arm that fails more is the answer, --ignore-failure or not */
	if (report->losses.checked && !report->losses.even) {
		vmpctl_error("ab: %s", report->losses.why);
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
	ab_latency_free(&s.latency);
	return rc;
}
