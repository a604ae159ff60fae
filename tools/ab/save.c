// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab --save: every run and slice as a JSON line (see save.h). */
#include "save.h"
#include "json.h"
#include "slices.h"
#include "summary.h"

void ab_save_header(struct ab_session *s)
{
	static const char *const setting_keys[] = {
		"target_pct", "precision_pct", "slice_s", "max_flip_s", "settle_s"
	};
	const struct ab_options *o = &s->opts;
	const double settings[] = {
		o->target_pct, o->precision_pct, o->interleave_s, o->max_flip_s,
		o->settle_s
	};
	json_t *line;

	if (!s->save)
		return;
	line = json_object();
	json_put(line, "type", json_text("ab"));
	json_put(line, "format", json_count(AB_SAVE_FORMAT));
	json_put(line, "mode", json_text(ab_mode_name(o->interleave_s > 0)));
	ab_setup_json(line, o, s->knob_label, o->seed);
	json_put(line, "vmpressure_knob", json_boolean(s->vmpressure_knob));
	json_put(line, "metric_regex", json_text(o->metric_regex));
	json_put(line, "metric_name", json_text(o->metric_name));
	json_put(line, "higher_is_better", json_boolean(o->higher_is_better));
	json_put_reals(line, setting_keys, settings, 5);
	json_put(line, "long_every", json_count(o->long_every));
	json_print_record(s->save, line);
	fflush(s->save);
}

void ab_save_run(struct ab_session *s, const struct ab_run *run)
{
	static const char *const time_keys[] = {
		"metric", "wall_s", "user_s", "sys_s", "knob_write_s"
	};
	const double times[] = {
		run->metric, run->wall_s, run->user_s, run->sys_s, run->knob_write_s
	};
	json_t *line;

	if (!s->save)
		return;
	line = json_object();
	json_put(line, "type", json_text("run"));
	json_put(line, "index", json_count(s->n_runs - 1));
	json_put(line, "block", json_count((s->n_runs - 1) / 2));
	json_put(line, "arm", json_text(ab_arm_name(run->arm)));
	json_put_reals(line, time_keys, times, 5);
	json_put(line, "toggled", json_boolean(run->knob_toggled));
	json_put(line, "pgscan", run->have_reclaim ? json_count(run->pgscan) : json_null());
	json_put(line, "skipped", run->have_skipped ? json_count(run->skipped) : json_null());
	json_print_record(s->save, line);
	fflush(s->save);
}

void ab_save_failed_run(struct ab_session *s, enum ab_arm arm, bool timed_out)
{
	json_t *line;

	if (!s->save)
		return;
	line = json_object();
	json_put(line, "type", json_text("failed_run"));
	json_put(line, "arm", json_text(ab_arm_name(arm)));
	if (timed_out)
		json_put(line, "why", json_text("timed out"));
	json_print_record(s->save, line);
	fflush(s->save);
}

/* Slice index of s->il as a line (times relative to the first flip). */
static void save_slice(struct ab_session *s, size_t index)
{
	json_t *line;

	line = il_slice_json(&s->il, index, s->il.slices[0].flip_started);
	json_put(line, "type", json_text("slice"));
	json_put(line, "index", json_count(index));
	/* the report's interval counts as they stand: the last line's are the latest */
	json_put(line, "intervals_so_far", il_intervals_json(&s->il));
	json_print_record(s->save, line);
}

void ab_save_slices(struct ab_session *s, bool all)
{
	if (!s->save)
		return;
	while (s->slices_saved < s->il.n &&
	       (all || il_slice_fate_paired(&s->il, s->slices_saved) != IL_OPEN))
		save_slice(s, s->slices_saved++);
	fflush(s->save);
}
