// SPDX-License-Identifier: GPL-2.0
#include "worktrace.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where tracefs is: its own mount, or under debugfs on older setups. */
static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

static int instance_write(const struct work_trace *t, const char *name,
			  const char *text)
{
	char path[320];

	if (path_join(path, sizeof(path), t->dir, name))
		return -ENAMETOOLONG;
	return write_text_file(path, text);
}

/* Whether ROOT's function tracer can trace vmpressure_work_fn at all. */
static bool traceable(const char *root)
{
	char path[320], line[256];
	size_t len = strlen(WORKTRACE_FUNCTION);
	bool found = false;
	FILE *f;

	if (path_join(path, sizeof(path), root, "available_filter_functions"))
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "name" or "name [module]" */
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, WORKTRACE_FUNCTION, len) == 0 &&
			(line[len] == '\n' || line[len] == ' ' || line[len] == '\0');
	fclose(f);
	return found;
}

int work_trace_open(struct work_trace *t)
{
	char instances[300];
	const char *root = NULL;
	size_t i;
	int err;

	t->dir[0] = '\0';
	for (i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]); i++) {
		if (traceable(tracefs_roots[i])) {
			root = tracefs_roots[i];
			break;
		}
	}
	if (!root)
		return -ENOENT;
	if (path_join(instances, sizeof(instances), root, "instances"))
		return -ENAMETOOLONG;
	if (snprintf(t->dir, sizeof(t->dir), "%s/vmpctl-%ld", instances,
		     (long)getpid()) >= (int)sizeof(t->dir)) {
		t->dir[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (mkdir(t->dir, 0700)) {
		err = errno == ENOENT ? -ENOENT : -errno;
		t->dir[0] = '\0';
		return err;
	}
	err = instance_write(t, "tracing_on", "0");
	if (!err)
		err = instance_write(t, "set_ftrace_filter", WORKTRACE_FUNCTION);
	if (!err)
		err = instance_write(t, "current_tracer", "function");
	if (err) {
		work_trace_close(t);
		/* an instance without function tracing: not traceable here */
		return err == -EINVAL || err == -ENOENT ? -ENOENT : err;
	}
	return 0;
}

int work_trace_start(struct work_trace *t)
{
	char path[320];
	int fd;

	/* tracefs empties a buffer opened for writing with O_TRUNC */
	if (path_join(path, sizeof(path), t->dir, "trace"))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return instance_write(t, "tracing_on", "1");
}

uint64_t work_trace_count_runs(FILE *trace)
{
	static const char call[] = " " WORKTRACE_FUNCTION " <-";
	char line[512];
	uint64_t runs = 0;

	/* "  kworker/0:1-23  [000] ..... 12.345678: vmpressure_work_fn <-process_one_work" */
	while (fgets(line, sizeof(line), trace))
		if (line[0] != '#' && strstr(line, call))
			runs++;
	return runs;
}

int work_trace_stop(struct work_trace *t, uint64_t *runs)
{
	char path[320];
	FILE *f;
	int err = instance_write(t, "tracing_on", "0");

	if (err)
		return err;
	if (path_join(path, sizeof(path), t->dir, "trace"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*runs = work_trace_count_runs(f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	return err;
}

void work_trace_close(struct work_trace *t)
{
	if (!t->dir[0])
		return;
	/* the kernel refuses to remove an instance whose tracer is busy */
	instance_write(t, "tracing_on", "0");
	instance_write(t, "current_tracer", "nop");
	rmdir(t->dir);
	t->dir[0] = '\0';
}
