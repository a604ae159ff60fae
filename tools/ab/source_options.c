// SPDX-License-Identifier: GPL-2.0
/*
 * ab's options for where progress comes from (sources.h): a preset or a
 * regex over the command's lines, a kernel counter, and the cgroup or
 * process that a run without a command watches.
 */
#include "args.h"
#include "output.h"
#include "sources.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int take_regex(const char *name, const char *value,
		      struct ab_source_options *src)
{
	if (src->regex_text) {
		vmpctl_error("ab: --%s: one --rate-regex or --count-regex, please", name);
		return -EINVAL;
	}
	src->regex_text = value;
	src->regex_kind = strcmp(name, "count-regex") == 0 ? AB_REGEX_COUNT :
		AB_REGEX_RATE;
	return 0;
}

/* Last, so that no earlier usage error leaves a compiled regex behind. */
static int compile_regex(struct ab_source_options *src)
{
	char why[128];
	int err;

	if (!src->regex_text)
		return 0;
	err = regcomp(&src->regex, src->regex_text, REG_EXTENDED);
	if (!err) {
		src->regex_compiled = true;
		return 0;
	}
	regerror(err, &src->regex, why, sizeof(why));
	vmpctl_error("ab: --%s: '%s': %s",
		     src->regex_kind == AB_REGEX_COUNT ? "count-regex" : "rate-regex",
		     src->regex_text, why);
	return -EINVAL;
}

int ab_source_option(const char *name, const char *value,
		     struct ab_source_options *src)
{
	uint64_t pid;

	if (strcmp(name, "rate-regex") == 0 || strcmp(name, "count-regex") == 0)
		return take_regex(name, value, src);
	if (strcmp(name, "preset") == 0) {
		src->preset = ab_preset_by_name(value);
		if (src->preset == AB_PRESET_NONE) {
			vmpctl_error("ab: --preset: '%s' is not sysbench, fio, iperf3 or pgbench (stress-ng prints no periodic report: use --counter)",
				     value);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(name, "rate-stderr") == 0) {
		src->from_stderr = true;
		return 0;
	}
	if (strcmp(name, "counter") == 0) {
		src->counter_spec = value;
		return 0;
	}
	if (strcmp(name, "cgroup") == 0) {
		src->cgroup = value;
		return 0;
	}
	if (arg_uint("ab", "--pid", value, 1, 4194304, &pid))
		return -EINVAL;
	src->pid = (unsigned long)pid;
	return 0;
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
		snprintf(src->target, sizeof(src->target), "/proc/%lu", src->pid);
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

int ab_source_finish_options(struct ab_source_options *src,
			     double interleave_s, double max_time_s,
			     bool has_cmd)
{
	bool lines = ab_source_reads_lines(src);

	if (!(interleave_s > 0) && (lines || src->counter_spec || src->from_stderr ||
				    src->cgroup || src->pid)) {
		vmpctl_error("ab: --rate-regex, --count-regex, --preset, --rate-stderr, --counter, --cgroup and --pid are for --interleave");
		return -EINVAL;
	}
	if (src->regex_text && src->preset != AB_PRESET_NONE) {
		vmpctl_error("ab: --preset and a regex: one way to read the lines, please");
		return -EINVAL;
	}
	if (src->counter_spec && (lines || src->from_stderr)) {
		vmpctl_error("ab: --counter and the command's lines: one source of progress, please");
		return -EINVAL;
	}
	if (resolve_target(src))
		return -EINVAL;
	if (src->counter_spec &&
	    ab_counter_parse(src->counter_spec, src->target[0] ? src->target : NULL,
			     &src->counter))
		return -EINVAL;
	if (ab_preset_on_stderr(src->preset))
		src->from_stderr = true;
	if (has_cmd)
		return compile_regex(src);
	if (!src->target[0]) {
		vmpctl_error("ab: no command to run (vmpctl ab [options] -- CMD [ARGS...]), nor --cgroup or --pid to watch");
		return -EINVAL;
	}
	if (!src->counter_spec || lines) {
		vmpctl_error("ab: watching %s without a command: its progress comes from --counter",
			     src->target);
		return -EINVAL;
	}
	if (!(max_time_s > 0)) {
		vmpctl_error("ab: watching %s: say how long with --max-time", src->target);
		return -EINVAL;
	}
	src->attach_argv[0] = src->cgroup ? "--cgroup" : "--pid";
	snprintf(src->pid_text, sizeof(src->pid_text), "%lu", src->pid);
	src->attach_argv[1] = src->cgroup ? (char *)src->cgroup : src->pid_text;
	src->attach_argv[2] = NULL;
	return 0;
}

bool ab_source_reads_lines(const struct ab_source_options *src)
{
	return src->regex_text || src->preset != AB_PRESET_NONE;
}

const char *ab_source_describe(const struct ab_source_options *src,
			       char *buf, size_t size)
{
	if (src->counter_spec)
		snprintf(buf, size, "counter %s", src->counter_spec);
	else if (src->preset != AB_PRESET_NONE)
		snprintf(buf, size, "%s's reports", ab_preset_name(src->preset));
	else if (src->regex_text)
		snprintf(buf, size, "--%s '%s'", src->regex_kind == AB_REGEX_COUNT ?
			 "count-regex" : "rate-regex", src->regex_text);
	else
		snprintf(buf, size, "the command's rate lines");
	return buf;
}

bool ab_source_attached(const struct ab_source_options *src)
{
	return src->attach_argv[0] != NULL;
}

void ab_source_options_free(struct ab_source_options *src)
{
	if (src->regex_compiled)
		regfree(&src->regex);
	src->regex_compiled = false;
}
