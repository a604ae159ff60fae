// SPDX-License-Identifier: GPL-2.0
/*
 * ab's options for where progress comes from (sources.h): a preset or a
 * regex over the command's lines, a kernel counter, and the cgroup or
 * process that a run without a command watches.
 */
#include "output.h"
#include "sources.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The source an option and its value pick; NULL, printed, when none. */
static const struct ab_source_ops *pick(const char *name, const char *value)
{
	const struct ab_source_ops *ops;
	char names[256];

	if (strcmp(name, "preset") != 0)
		return ab_source_by_option(name);
	ops = ab_source_preset(value);
	if (!ops) {
		ab_source_preset_names(names, sizeof(names));
		vmpctl_error("ab: --preset: '%s' is not %s (stress-ng prints no periodic report: use --counter)",
			     value, names);
	}
	return ops;
}

int ab_source_option(const char *name, const char *value,
		     struct ab_source_options *src)
{
	const struct ab_source_ops *ops;
	struct ab_source_pick *picked;

	ops = pick(name, value);
	if (!ops)
		return -EINVAL;
	picked = &src->picked[ops->family];
	if (ops->family == AB_SOURCE_REGEX && picked->ops) {
		vmpctl_error("ab: --%s: one --rate-regex or --count-regex, please", name);
		return -EINVAL;
	}
	picked->ops = ops;
	picked->arg = value;
	return 0;
}

/* The source that reads the command's lines, if any. */
static const struct ab_source_pick *line_pick(const struct ab_source_options *src)
{
	if (src->picked[AB_SOURCE_PRESET].ops)
		return &src->picked[AB_SOURCE_PRESET];
	if (src->picked[AB_SOURCE_REGEX].ops)
		return &src->picked[AB_SOURCE_REGEX];
	return NULL;
}

/* The source the options picked: the counter, else the lines' reader. */
static const struct ab_source_pick *active_pick(const struct ab_source_options *src)
{
	return src->picked[AB_SOURCE_COUNTER].ops ?
		&src->picked[AB_SOURCE_COUNTER] : line_pick(src);
}

/* The picked source reads the command's output (a preset or regex). */
static bool reads_lines(const struct ab_source_options *src)
{
	const struct ab_source_pick *p = active_pick(src);

	return p && p->ops->take;
}

/* The picked source is read by vmpctl on time (a counter). */
static bool polled(const struct ab_source_options *src)
{
	const struct ab_source_pick *p = active_pick(src);

	return p && p->ops->sample;
}

/* The picked source's configuration, with the target resolved. */
static int configure(struct ab_source_options *src)
{
	const struct ab_source_pick *p = active_pick(src);

	if (!p || !p->ops->configure)
		return 0;
	return p->ops->configure(p->ops, p->arg, src->target[0] ? src->target : NULL,
				 &src->config);
}

/* The --cgroup directory or /proc/PID, which must exist. */
static int resolve_target(struct ab_source_options *src)
{
	const char *why;
	struct stat st;

	if (src->cgroup && src->pid) {
		vmpctl_error("ab: --cgroup and --pid: one target, please");
		return -EINVAL;
	}
	if (src->cgroup)
		snprintf(src->target, sizeof(src->target), "%s", src->cgroup);
	else if (src->pid)
		snprintf(src->target, sizeof(src->target), "/proc/%u", src->pid);
	else
		return 0;
	if (stat(src->target, &st))
		why = errno != ENOENT ? strerror(errno) :
			src->cgroup ? "no such cgroup" : "no such process";
	else if (!S_ISDIR(st.st_mode))
		why = strerror(ENOTDIR);
	else
		return 0;
	vmpctl_error("ab: %s %s: %s", src->cgroup ? "--cgroup" : "--pid",
		     src->cgroup ? src->cgroup : src->target + strlen("/proc/"), why);
	return -EINVAL;
}

static int finish_options(struct ab_source_options *src, double interleave_s,
			  double max_time_s, bool has_cmd)
{
	bool lines = reads_lines(src);

	if (!(interleave_s > 0) && (active_pick(src) || src->from_stderr ||
				    src->cgroup || src->pid)) {
		vmpctl_error("ab: --rate-regex, --count-regex, --preset, --rate-stderr, --counter, --cgroup and --pid are for --interleave");
		return -EINVAL;
	}
	if (src->picked[AB_SOURCE_REGEX].ops && src->picked[AB_SOURCE_PRESET].ops) {
		vmpctl_error("ab: --preset and a regex: one way to read the lines, please");
		return -EINVAL;
	}
	if (src->picked[AB_SOURCE_COUNTER].ops && (line_pick(src) || src->from_stderr)) {
		vmpctl_error("ab: --counter and the command's lines: one source of progress, please");
		return -EINVAL;
	}
	if (resolve_target(src))
		return -EINVAL;
	if (lines && active_pick(src)->ops->on_stderr)
		src->from_stderr = true;
	/* without a command a line source is refused below, not configured */
	if ((has_cmd || !lines) && configure(src))
		return -EINVAL;
	if (has_cmd)
		return 0;
	if (!src->target[0]) {
		vmpctl_error("ab: no command to run (vmpctl ab [options] -- CMD [ARGS...]), nor --cgroup or --pid to watch");
		return -EINVAL;
	}
	if (!polled(src)) {
		vmpctl_error("ab: watching %s without a command: its progress comes from --counter",
			     src->target);
		return -EINVAL;
	}
	if (!(max_time_s > 0)) {
		vmpctl_error("ab: watching %s: say how long with --max-time", src->target);
		return -EINVAL;
	}
	src->attach_argv[0] = src->cgroup ? "--cgroup" : "--pid";
	snprintf(src->pid_text, sizeof(src->pid_text), "%u", src->pid);
	src->attach_argv[1] = src->cgroup ? (char *)src->cgroup : src->pid_text;
	src->attach_argv[2] = NULL;
	return 0;
}

/* A usage error leaves nothing configured: ab exits without freeing. */
int ab_source_finish_options(struct ab_source_options *src,
			     double interleave_s, double max_time_s,
			     bool has_cmd)
{
	int err = finish_options(src, interleave_s, max_time_s, has_cmd);

	if (err)
		ab_source_options_free(src);
	return err;
}

void ab_source_init(struct ab_source *src, const struct ab_source_options *o)
{
	const struct ab_source_pick *p = active_pick(o);

	ab_source_open(src, p ? p->ops : NULL, o->config);
}

const char *ab_source_describe(const struct ab_source_options *src,
			       char *buf, size_t size)
{
	const struct ab_source_pick *p = active_pick(src);

	if (!p)
		snprintf(buf, size, "the command's rate lines");
	else if (p->ops->describe)
		p->ops->describe(p->ops, p->arg, buf, size);
	else
		snprintf(buf, size, "%s's reports", p->ops->name);
	return buf;
}

bool ab_source_attached(const struct ab_source_options *src)
{
	return src->attach_argv[0] != NULL;
}

void ab_source_options_free(struct ab_source_options *src)
{
	const struct ab_source_pick *p = active_pick(src);

	if (src->config && p->ops->unconfigure)
		p->ops->unconfigure(src->config);
	src->config = NULL;
}
