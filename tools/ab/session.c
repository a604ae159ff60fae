// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab: what whole runs and the interleaved run share (session.h):
 * changing arms, putting the knob back, the kernel counters, progress.
 */
#include "session.h"
#include "clock.h"
#include "commands.h"
#include "fileio.h"
#include "knob.h"
#include "knobfile.h"
#include "output.h"
#include "restorefile.h"
#include "signals.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
	if (err) {
		vmpctl_error("ab: KNOB NOT RESTORED: %s was '%s' and %s",
			     s->knob.path,
			     knob_found_display(&s->knob, found, sizeof(found)),
			     s->knob.why);
		if (s->restore_path[0])
			vmpctl_error("ab: the value found is kept in %s: vmpctl ab --restore %s puts it back",
				     s->restore_path, s->restore_path);
		return err;
	}
	if (s->restore_path[0] && unlink(s->restore_path))
		vmpctl_error("ab: warning: the knob is back, but its restore file %s cannot be removed: %s",
			     s->restore_path, strerror(errno));
	s->restore_path[0] = '\0';
	return 0;
}

void ab_keep_found_value(struct ab_session *s)
{
	char why[PATH_MAX + 64];

	if (s->opts.switch_cmd)
		return;
	if (restore_file_write(&s->knob, s->restore_path, sizeof(s->restore_path),
			       why, sizeof(why))) {
		s->restore_path[0] = '\0';
		vmpctl_error("ab: warning: no restore file (%s): should vmpctl itself be killed, %s must be put back by hand",
			     why, s->knob.path);
	}
}
