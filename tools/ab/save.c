// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab --save: every run and slice as a JSON line (see save.h). */
#include "save.h"
#include "json.h"
#include "slices.h"

void ab_save_run(struct ab_session *s, const struct ab_run *run)
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

void ab_save_slice(struct ab_session *s, size_t index)
{
	json_t *line;

	if (!s->save)
		return;
	line = il_slice_json(&s->il, index, s->il.slices[0].flip_started);
	json_put(line, "type", json_text("slice"));
	json_put(line, "index", json_count(index));
	json_print_line(s->save, line);
	fflush(s->save);
}
