// SPDX-License-Identifier: GPL-2.0
#include "knob.h"
#include "fileio.h"
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *vmp_sysfs_dir = VMP_SYSFS_DIR_DEFAULT;
const char *vmp_params_dir = VMP_PARAMS_DIR_DEFAULT;

bool vmp_module_loaded(void)
{
	struct stat st;

	return stat(vmp_sysfs_dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int vmp_attr_path(char *buf, size_t size, const char *attr)
{
	return path_join(buf, size, vmp_sysfs_dir, attr);
}

static int read_attr(const char *attr, char *buf, size_t size)
{
	char path[4096];
	int err = vmp_attr_path(path, sizeof(path), attr);

	return err ? err : read_text_file(path, buf, size);
}

int vmp_read_enabled(int *enabled)
{
	char text[32];
	int err = read_attr("enabled", text, sizeof(text));

	return err ? err : parse_bool01(text, enabled);
}

int vmp_write_enabled(int enabled)
{
	char path[4096];
	int err, now;

	err = vmp_attr_path(path, sizeof(path), "enabled");
	if (!err)
		err = write_text_file(path, enabled ? "1\n" : "0\n");
	if (!err)
		err = vmp_read_enabled(&now);
	if (!err && now != enabled)
		err = -EIO;
	return err;
}

int vmp_read_skipped(uint64_t *skipped)
{
	char text[32];
	int err = read_attr("skipped", text, sizeof(text));

	return err ? err : parse_u64(text, skipped);
}

/* resident=1 reads Y; a module older than the parameter has no file. */
static int read_resident(bool *resident)
{
	char path[4096], text[8];
	int err = path_join(path, sizeof(path), vmp_params_dir, "resident");

	if (!err)
		err = read_text_file(path, text, sizeof(text));
	*resident = !err && text[0] == 'Y';
	return err == -ENOENT ? 0 : err;
}

void join_lines(char *text)
{
	size_t len;
	char *p;

	len = strlen(text);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

int vmp_read_state(struct vmp_state *state)
{
	int err;

	memset(state, 0, sizeof(*state));
	err = vmp_read_enabled(&state->enabled);
	if (!err) {
		err = vmp_read_skipped(&state->skipped);
		state->counts_skipped = err != -ENOENT;
		if (err == -ENOENT)
			err = 0;
	}
	if (!err)
		err = read_attr("method", state->method, sizeof(state->method));
	if (!err)
		err = read_attr("targets", state->targets, sizeof(state->targets));
	if (!err)
		err = read_resident(&state->resident);
	join_lines(state->method);
	join_lines(state->targets);
	return err;
}
