// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab report: reading a --save file back (see load.h). */
#include "load.h"
#include "exit_codes.h"
#include "output.h"
#include "save.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number, or NaN for null or a missing key. */
static double number_or_nan(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static uint64_t count_or_zero(const json_t *obj, const char *key, bool *have)
{
	const json_t *v = json_object_get(obj, key);

	if (have)
		*have = json_is_integer(v);
	return json_is_integer(v) && json_integer_value(v) > 0 ?
		(uint64_t)json_integer_value(v) : 0;
}

static const char *text_or_null(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static bool arm_of(const json_t *obj, enum ab_arm *arm)
{
	const char *name = text_or_null(obj, "arm");

	if (!name || (strcmp(name, "A") && strcmp(name, "B")))
		return false;
	*arm = name[0] == 'A' ? AB_ARM_A : AB_ARM_B;
	return true;
}

/* The options of the header line; 0 or -EINVAL (printed). */
static int take_header(struct ab_saved *saved, json_t *header)
{
	struct ab_options *o = &saved->opts;
	const json_t *cmd = json_object_get(header, "command");
	const char *mode = text_or_null(header, "mode");
	const char *order = text_or_null(header, "order");
	size_t i;

	if (json_integer_value(json_object_get(header, "format")) != AB_SAVE_FORMAT ||
	    !mode || !order || !json_is_array(cmd) ||
	    !text_or_null(header, "a") || !text_or_null(header, "b") ||
	    !text_or_null(header, "metric_name")) {
		vmpctl_error("ab report: %s: the header line is not one this vmpctl wrote (format %d)",
			     saved->path, AB_SAVE_FORMAT);
		return -EINVAL;
	}
	saved->header = json_incref(header);
	saved->interleaved = strcmp(mode, ab_mode_name(true)) == 0;
	saved->knob_label = text_or_null(header, "knob");
	/* another knob, or --switch: no vmpressure sanity checks */
	if (!json_is_true(json_object_get(header, "vmpressure_knob")))
		o->knob = saved->knob_label ? saved->knob_label : "";
	o->value_a = text_or_null(header, "a");
	o->value_b = text_or_null(header, "b");
	o->metric_regex = text_or_null(header, "metric_regex");
	o->metric_name = text_or_null(header, "metric_name");
	o->higher_is_better = json_is_true(json_object_get(header, "higher_is_better"));
	o->target_pct = number_or_nan(header, "target_pct");
	o->precision_pct = number_or_nan(header, "precision_pct");
	o->order = strcmp(order, "abba") == 0 ? AB_ORDER_ABBA : AB_ORDER_RANDOM;
	o->seed = (unsigned long)count_or_zero(header, "seed", NULL);
	o->warmup = (unsigned int)count_or_zero(header, "warmup", NULL);
	o->interleave_s = number_or_nan(header, "slice_s");
	o->max_flip_s = number_or_nan(header, "max_flip_s");
	o->settle_s = number_or_nan(header, "settle_s");
	o->long_every = (unsigned int)count_or_zero(header, "long_every", NULL);
	o->cmd = calloc(json_array_size(cmd) + 1, sizeof(*o->cmd));
	if (!o->cmd)
		return -ENOMEM;
	for (i = 0; i < json_array_size(cmd); i++)
		o->cmd[i] = (char *)json_string_value(json_array_get(cmd, i));
	return 0;
}

static int add_run(struct ab_saved *saved, const json_t *line)
{
	struct ab_run run = { 0 };
	struct ab_run *grown;

	if (!arm_of(line, &run.arm))
		return -EINVAL;
	run.metric = number_or_nan(line, "metric");
	run.wall_s = number_or_nan(line, "wall_s");
	run.user_s = number_or_nan(line, "user_s");
	run.sys_s = number_or_nan(line, "sys_s");
	run.knob_write_s = number_or_nan(line, "knob_write_s");
	run.knob_toggled = json_is_true(json_object_get(line, "toggled"));
	run.pgscan = count_or_zero(line, "pgscan", &run.have_reclaim);
	run.skipped = count_or_zero(line, "skipped", &run.have_skipped);
	grown = realloc(saved->runs, (saved->n_runs + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	saved->runs = grown;
	saved->runs[saved->n_runs++] = run;
	return 0;
}

/* A pair of numbers; absent (a file of an older vmpctl), both are absent. */
static void take_pair(const json_t *line, const char *key, double v[2],
		      double absent)
{
	const json_t *pair = json_object_get(line, key);

	for (size_t i = 0; i < 2; i++) {
		const json_t *x = json_array_get(pair, i);

		v[i] = json_is_number(x) ? json_number_value(x) : absent;
	}
}

/* Slices are saved in order, from the first (warmup) one. */
static int add_slice(struct ab_saved *saved, const json_t *line)
{
	struct interleave *il = &saved->il;
	const json_t *so_far = json_object_get(line, "intervals_so_far");
	double start = number_or_nan(line, "start_s");
	double end = number_or_nan(line, "end_s");
	double flip_s = number_or_nan(line, "flip_s");
	double prev_end;
	struct il_slice *s;
	enum ab_arm arm;
	int err;

	if (!arm_of(line, &arm) || !isfinite(start) || !isfinite(flip_s))
		return -EINVAL;
	/* the slice before keeps its own saved end: the flip began then */
	prev_end = il->n ? il->slices[il->n - 1].end : NAN;
	err = il_begin_slice(il, arm, start - flip_s, start, flip_s,
			     json_is_true(json_object_get(line, "toggled")));
	if (err)
		return err;
	if (il->n > 1 && isfinite(prev_end))
		il->slices[il->n - 2].end = prev_end;
	s = &il->slices[il->n - 1];
	s->end = isfinite(end) ? end : INFINITY;	/* null: left open */
	s->long_slice = json_is_true(json_object_get(line, "long"));
	s->stalled = json_is_true(json_object_get(line, "stalled"));
	s->count = number_or_nan(line, "count");
	s->time_s = number_or_nan(line, "time_s");
	s->intervals = count_or_zero(line, "intervals", NULL);
	take_pair(line, "half_count", s->half_count, 0);
	take_pair(line, "half_time_s", s->half_time_s, 0);
	s->pgscan = count_or_zero(line, "pgscan", &s->have_reclaim);
	s->skipped = count_or_zero(line, "skipped", &s->have_skipped);
	if (!isfinite(s->count) || !isfinite(s->time_s))
		return -EINVAL;
	il->intervals_read = count_or_zero(so_far, "read", NULL);
	il->intervals_straddling = count_or_zero(so_far, "straddling", NULL);
	il->intervals_stalled = count_or_zero(so_far, "stalls", NULL);
	il->split = json_is_true(json_object_get(so_far, "split"));
	il->intervals_settling = count_or_zero(so_far, "settling", NULL);
	take_pair(so_far, "straddling_lost_s", il->straddling_lost_s, NAN);
	take_pair(so_far, "settling_lost_s", il->settling_lost_s, NAN);
	il->intervals_before_first = count_or_zero(so_far, "before_first", NULL);
	il->intervals_out_of_order = count_or_zero(so_far, "out_of_order", NULL);
	if (isfinite(end))
		saved->elapsed_s = end;
	return 0;
}

/* One line after the header; the report line and unknown types are skipped. */
static int take_line(struct ab_saved *saved, const json_t *line)
{
	const char *type = text_or_null(line, "type");

	if (type && strcmp(type, "run") == 0 && !saved->interleaved)
		return add_run(saved, line);
	if (type && strcmp(type, "slice") == 0 && saved->interleaved)
		return add_slice(saved, line);
	if (type && strcmp(type, "failed_run") == 0 && !saved->interleaved) {
		const char *arm = text_or_null(line, "arm");

		if (!arm || (strcmp(arm, "A") && strcmp(arm, "B")))
			return -EINVAL;
		const char *why = text_or_null(line, "why");
		enum ab_arm which = strcmp(arm, "A") ? AB_ARM_B : AB_ARM_A;

		if (why && strcmp(why, "timed out") == 0)
			saved->runs_timed_out[which]++;
		else
			saved->runs_failed[which]++;
	}
	return 0;
}

int ab_saved_load(const char *path, struct ab_saved *saved)
{
	char *text = NULL;
	size_t size = 0, lineno = 0;
	FILE *in;
	int rc = 0;

	memset(saved, 0, sizeof(*saved));
	saved->path = path;
	il_init(&saved->il, INFINITY, 0);	/* as the header says, below */
	in = fopen(path, "re");
	if (!in) {
		vmpctl_error("ab report: %s: %s", path, strerror(errno));
		return EXIT_ENVIRONMENT;
	}
	while (!rc && getline(&text, &size, in) >= 0) {
		json_error_t why;
		json_t *line = json_loads(text, 0, &why);
		int err;

		lineno++;
		if (!json_is_object(line)) {
			vmpctl_error("ab report: %s:%zu: not a JSON object: %s",
				     path, lineno, line ? "another value" : why.text);
			rc = EXIT_CHECK_FAILED;
		} else if (lineno == 1) {
			err = take_header(saved, line);
			rc = err ? EXIT_CHECK_FAILED : 0;
			saved->il.max_flip_s = saved->opts.max_flip_s;
			saved->il.warmup = saved->opts.warmup;
			saved->il.long_every = saved->opts.long_every;
			saved->il.settle_s = saved->opts.settle_s;
			saved->il.slice_s = saved->opts.interleave_s;
		} else if (take_line(saved, line)) {
			vmpctl_error("ab report: %s:%zu: a %s line with missing or bad fields",
				     path, lineno, text_or_null(line, "type"));
			rc = EXIT_CHECK_FAILED;
		}
		json_decref(line);
	}
	if (!rc && ferror(in)) {
		vmpctl_error("ab report: %s: %s", path, strerror(errno));
		rc = EXIT_ENVIRONMENT;
	}
	if (!rc && lineno == 0) {
		vmpctl_error("ab report: %s: empty: no header line", path);
		rc = EXIT_CHECK_FAILED;
	}
	free(text);
	fclose(in);
	saved->il.input_done = true;
	if (rc)
		ab_saved_free(saved);
	return rc;
}

void ab_saved_free(struct ab_saved *saved)
{
	free(saved->opts.cmd);
	saved->opts.cmd = NULL;
	free(saved->runs);
	saved->runs = NULL;
	il_free(&saved->il);
	json_decref(saved->header);
	saved->header = NULL;
}
