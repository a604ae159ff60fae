// SPDX-License-Identifier: GPL-2.0
#include "cgroup.h"
#include "fileio.h"
#include "parse.h"

#include <errno.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * Copies one space-separated /proc/mounts field, decoding the kernel's
 * octal escapes (a space in a path is "\040"); returns the rest.
 */
static const char *mount_field(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (*p == ' ')
		p++;
	while (*p && *p != ' ' && *p != '\n') {
		char c = *p++;

		if (c == '\\' && is_octal(p[0]) && is_octal(p[1]) && is_octal(p[2])) {
			c = (char)((p[0] - '0') << 6 | (p[1] - '0') << 3 | (p[2] - '0'));
			p += 3;
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	out[n] = '\0';
	return p;
}

static bool has_option(const char *options, const char *wanted)
{
	size_t len = strlen(wanted);
	const char *p = options;

	while (p && *p) {
		if (strncmp(p, wanted, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

void cgroup_layout_parse(const char *mounts, struct cgroup_layout *layout)
{
	const char *line = mounts;

	layout->v1_memory[0] = '\0';
	layout->v2_root[0] = '\0';
	while (*line) {
		char device[64], dir[PATH_MAX], type[32], options[512];
		const char *p = line;

		p = mount_field(p, device, sizeof(device));
		p = mount_field(p, dir, sizeof(dir));
		p = mount_field(p, type, sizeof(type));
		mount_field(p, options, sizeof(options));
		/* The first mount wins: later ones are bind mounts of it. */
		if (strcmp(type, "cgroup") == 0 && has_option(options, "memory") &&
		    !layout->v1_memory[0])
			strcpy(layout->v1_memory, dir);
		else if (strcmp(type, "cgroup2") == 0 && !layout->v2_root[0])
			strcpy(layout->v2_root, dir);
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
}

int cgroup_layout_detect(struct cgroup_layout *layout)
{
	const size_t size = 1 << 20;
	char *mounts = malloc(size);
	int err;

	if (!mounts)
		return -ENOMEM;
	err = read_text_file("/proc/mounts", mounts, size);
	if (!err)
		cgroup_layout_parse(mounts, layout);
	free(mounts);
	return err;
}

static bool word_in_list(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		bool starts = p == list || p[-1] == ' ' || p[-1] == '\n';
		bool ends = p[len] == '\0' || p[len] == ' ' || p[len] == '\n';

		if (starts && ends)
			return true;
		p += len;
	}
	return false;
}

static bool v2_file_lists(const char *root, const char *file, const char *word)
{
	char path[PATH_MAX], text[512];

	if (path_join(path, sizeof(path), root, file) ||
	    read_text_file(path, text, sizeof(text)))
		return false;
	return word_in_list(text, word);
}

bool cgroup_v2_has_memory(const struct cgroup_layout *layout)
{
	return layout->v2_root[0] &&
	       v2_file_lists(layout->v2_root, "cgroup.controllers", "memory");
}

int memcg_file(const struct memcg *cg, const char *name, char *buf,
	       size_t size)
{
	return path_join(buf, size, cg->path, name);
}

static int write_memcg_file(const struct memcg *cg, const char *name,
			    const char *text)
{
	char path[PATH_MAX];
	int err = memcg_file(cg, name, path, sizeof(path));

	return err ? err : write_text_file(path, text);
}

static bool memcg_file_exists(const struct memcg *cg, const char *name)
{
	char path[PATH_MAX];

	return memcg_file(cg, name, path, sizeof(path)) == 0 &&
	       access(path, F_OK) == 0;
}

static int make_temp_dir(struct memcg *cg, const char *parent)
{
	int n = snprintf(cg->path, sizeof(cg->path), "%s/vmpctl-%ld", parent,
			 (long)getpid());

	if (n < 0 || (size_t)n >= sizeof(cg->path))
		return -ENAMETOOLONG;
	if (mkdir(cg->path, 0755) < 0)
		return -errno;
	cg->created = true;
	return 0;
}

int memcg_create_temp(const struct cgroup_layout *layout,
		      uint64_t limit_bytes, struct memcg *cg)
{
	char limit[32];
	int err;

	memset(cg, 0, sizeof(*cg));
	snprintf(limit, sizeof(limit), "%llu\n", (unsigned long long)limit_bytes);
	if (layout->v1_memory[0]) {
		cg->version = 1;
		err = make_temp_dir(cg, layout->v1_memory);
		if (!err)
			err = write_memcg_file(cg, "memory.limit_in_bytes", limit);
	} else if (cgroup_v2_has_memory(layout)) {
		cg->version = 2;
		strcpy(cg->v2_root, layout->v2_root);
		if (!v2_file_lists(layout->v2_root, "cgroup.subtree_control",
				   "memory")) {
			char path[PATH_MAX];

			err = path_join(path, sizeof(path), layout->v2_root,
					"cgroup.subtree_control");
			if (!err)
				err = write_text_file(path, "+memory");
			if (err)
				return err;
			cg->enabled_v2_memory = true;
		}
		err = make_temp_dir(cg, layout->v2_root);
		if (!err)
			err = write_memcg_file(cg, "memory.max", limit);
	} else {
		return -ENODEV;
	}
	if (err)
		memcg_remove(cg);
	return err;
}

int memcg_open_existing(const char *path, struct memcg *cg)
{
	struct statfs fs;
	struct stat st;

	memset(cg, 0, sizeof(*cg));
	if (strlen(path) >= sizeof(cg->path))
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(path, &fs) < 0)
		return -errno;
	strcpy(cg->path, path);
	if (fs.f_type == CGROUP_SUPER_MAGIC) {
		cg->version = 1;
		if (!memcg_file_exists(cg, "memory.limit_in_bytes"))
			return -ENODEV;
	} else if (fs.f_type == CGROUP2_SUPER_MAGIC) {
		cg->version = 2;
		/* The root cgroup has no memory.max but is a memory cgroup. */
		if (!memcg_file_exists(cg, "memory.max") &&
		    !memcg_file_exists(cg, "memory.stat"))
			return -ENODEV;
	} else {
		return -ENOTDIR;
	}
	return 0;
}

int memcg_enter_child(const struct memcg *cg)
{
	char text[32];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	return write_memcg_file(cg, "cgroup.procs", text);
}

int memcg_read_limit(const struct memcg *cg, uint64_t *limit)
{
	char path[PATH_MAX], text[64];
	int err;

	err = memcg_file(cg, cg->version == 1 ? "memory.limit_in_bytes" :
			 "memory.max", path, sizeof(path));
	if (!err)
		err = read_text_file(path, text, sizeof(text));
	if (err)
		return err;
	if (strncmp(text, "max", 3) == 0) {
		*limit = UINT64_MAX;
		return 0;
	}
	return parse_u64(text, limit);
}

bool memcg_pgscan_is_local(const struct memcg *cg)
{
	return cg->version == 2;
}

int memcg_read_pgscan(const struct memcg *cg, uint64_t *pages)
{
	uint64_t anon, file;
	int err;

	if (cg->version == 2) {
		char path[PATH_MAX];

		err = memcg_file(cg, "memory.stat", path, sizeof(path));
		return err ? err : read_keyed_u64(path, "pgscan", pages);
	}
	err = read_keyed_u64("/proc/vmstat", "pgscan_anon", &anon);
	if (!err)
		err = read_keyed_u64("/proc/vmstat", "pgscan_file", &file);
	if (!err)
		*pages = anon + file;
	return err;
}

int memcg_read_oom_kills(const struct memcg *cg, uint64_t *kills)
{
	char path[PATH_MAX];
	int err;

	err = memcg_file(cg, cg->version == 1 ? "memory.oom_control" :
			 "memory.events", path, sizeof(path));
	return err ? err : read_keyed_u64(path, "oom_kill", kills);
}

bool memcg_has_pressure_level(const struct memcg *cg)
{
	return cg->version == 1 && memcg_file_exists(cg, "memory.pressure_level");
}

static int remove_dir(const char *path)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };
	int tries;

	/* A just-reaped child can keep the cgroup busy for a moment. */
	for (tries = 0; tries < 250; tries++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	return -errno;
}

int memcg_remove(struct memcg *cg)
{
	int err = 0;

	if (cg->created) {
		err = remove_dir(cg->path);
		if (!err)
			cg->created = false;
	}
	if (cg->enabled_v2_memory) {
		char path[PATH_MAX];

		/* Best effort: fails harmlessly if someone else uses it now. */
		if (!path_join(path, sizeof(path), cg->v2_root,
			       "cgroup.subtree_control"))
			write_text_file(path, "-memory");
		cg->enabled_v2_memory = false;
	}
	return err;
}
