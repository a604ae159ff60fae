/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory cgroups: find the cgroup-v1 memory hierarchy or the cgroup2 mount,
 * create a temporary memory cgroup with a limit, move a process in, read
 * its counters, remove it.
 */
#ifndef VMPCTL_CGROUP_H
#define VMPCTL_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct cgroup_layout {
	char v1_memory[PATH_MAX];	/* "" when no v1 memory hierarchy */
	char v2_root[PATH_MAX];		/* "" when cgroup2 is not mounted */
};

/* Parses /proc/mounts text; never fails, fields stay "" when absent. */
void cgroup_layout_parse(const char *mounts, struct cgroup_layout *layout);
/* Reads /proc/mounts; 0 or -errno. */
int cgroup_layout_detect(struct cgroup_layout *layout);
/* Whether the cgroup2 root offers the memory controller. */
bool cgroup_v2_has_memory(const struct cgroup_layout *layout);

struct memcg {
	int version;			/* 1 or 2 */
	char path[PATH_MAX];
	bool created;			/* ours: removed by memcg_remove() */
	bool enabled_v2_memory;		/* we wrote +memory to the root */
	char v2_root[PATH_MAX];
};

/*
 * Creates <hierarchy>/vmpctl-<pid> with the given limit, preferring the
 * v1 memory hierarchy. -ENODEV: no memory controller anywhere.
 */
int memcg_create_temp(const struct cgroup_layout *layout,
		      uint64_t limit_bytes, struct memcg *cg);

/*
 * Uses an existing cgroup. -ENOTDIR when path is not a cgroup directory,
 * -ENODEV when it is not a memory cgroup.
 */
int memcg_open_existing(const char *path, struct memcg *cg);

/* Path of a control file inside the cgroup. */
int memcg_file(const struct memcg *cg, const char *name, char *buf,
	       size_t size);

/*
 * For a worker child forked by child_run() (which already put back the
 * signal dispositions vmpctl inherited): die with vmpctl and move into
 * cg. Returns 0 or -errno.
 */
int memcg_enter_child(const struct memcg *cg);

/* Limit in bytes; UINT64_MAX when unlimited. */
int memcg_read_limit(const struct memcg *cg, uint64_t *limit);

/*
 * Pages scanned by reclaim. cgroup v2: the memcg's memory.stat pgscan.
 * cgroup v1's memory.stat has no scan counter (6.1 shows pgpgin, pgpgout,
 * pgfault, pgmajfault only), so v1 reads /proc/vmstat pgscan_anon +
 * pgscan_file, which count memcg limit reclaim too: system-wide, but a
 * delta over one run is dominated by the run's own reclaim.
 */
int memcg_read_pgscan(const struct memcg *cg, uint64_t *pages);
/* Whether memcg_read_pgscan() counts only this cgroup. */
bool memcg_pgscan_is_local(const struct memcg *cg);

/* OOM kills in the cgroup (memory.oom_control / memory.events). */
int memcg_read_oom_kills(const struct memcg *cg, uint64_t *kills);

bool memcg_has_pressure_level(const struct memcg *cg);

/* Removes a cgroup we created (retrying while it drains); else nothing. */
int memcg_remove(struct memcg *cg);

#endif
