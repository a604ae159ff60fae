/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small text files: sysfs attributes, cgroup control files, /proc tables.
 * Every function returns 0 or a negative errno so callers can name the cause.
 */
#ifndef VMPCTL_FILEIO_H
#define VMPCTL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Reads all of path into buf (NUL-terminated); -EFBIG when it does not fit. */
int read_text_file(const char *path, char *buf, size_t size);

/* Writes text with a single write(2), as sysfs and cgroupfs expect. */
int write_text_file(const char *path, const char *text);
/*
 * The same on an open fd, which it closes: a short write is -EIO, a close
 * that fails after a good write is its -errno. 0 or -errno.
 */
int write_once_and_close(int fd, const char *text, size_t len);

/*
 * Finds "key value" on its own line (memory.stat, /proc/vmstat,
 * memory.oom_control, memory.events); -ENOENT when key is absent.
 */
int find_keyed_u64(const char *text, const char *key, uint64_t *value);

/*
 * Finds "Key:   value kB" in /proc/meminfo text (key without the colon);
 * -ENOENT when absent.
 */
int find_meminfo_kib(const char *text, const char *key, uint64_t *kib);

/* Like find_keyed_u64, reading the file first. */
int read_keyed_u64(const char *path, const char *key, uint64_t *value);

/* Joins dir and name into buf; -ENAMETOOLONG when it does not fit. */
int path_join(char *buf, size_t size, const char *dir, const char *name);

#endif
