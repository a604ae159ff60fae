// SPDX-License-Identifier: GPL-2.0
/* The restore file of a changed knob (see restorefile.h). */
#include "restorefile.h"
#include "commands.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESTORE_MAGIC "vmpctl-restore 1\n"

static const char *restore_dir(void)
{
	const char *dir = getenv(RESTORE_DIR_ENV);

	return dir && dir[0] ? dir : RESTORE_DIR_DEFAULT;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* dir, and its parent when missing (/run in a bare initramfs); 0 or -1, errno set. */
static int make_dir(const char *dir)
{
	char parent[PATH_MAX];
	char *slash;

	if (!mkdir(dir, 0700) || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return -1;
	*slash = '\0';
	if (mkdir(parent, 0755) && errno != EEXIST)
		return -1;
	return mkdir(dir, 0700);
}

int restore_file_write(const struct knob *k, char *path, size_t size,
		       char *why, size_t why_size)
{
	const char *dir = restore_dir();
	char aside[PATH_MAX];
	int fd, err;

	if (strchr(k->path, '\n')) {
		snprintf(why, why_size, "the knob's path has a newline");
		return -EINVAL;
	}
	if (make_dir(dir)) {
		err = -errno;
		snprintf(why, why_size, "%s cannot be made: %s", dir, strerror(errno));
		return err;
	}
	snprintf(path, size, "%s/ab-%d.restore", dir, (int)getpid());
	snprintf(aside, sizeof(aside), "%s.new", path);
	fd = open(aside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_size, "%s: %s", aside, strerror(errno));
		return err;
	}
	err = write_all(fd, RESTORE_MAGIC, strlen(RESTORE_MAGIC));
	if (!err)
		err = write_all(fd, k->path, strlen(k->path));
	if (!err)
		err = write_all(fd, "\n", 1);
	if (!err)
		err = write_all(fd, k->found, k->found_len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(aside, path))
		err = -errno;
	if (err) {
		snprintf(why, why_size, "%s: %s", path, strerror(-err));
		unlink(aside);
	}
	return err;
}

/* The knob's path and its bytes as found; 0 or -EINVAL (not a restore file). */
static int parse_restore(char *text, size_t len, char **knob_path,
			 char **found, size_t *found_len)
{
	size_t magic = strlen(RESTORE_MAGIC);
	char *end;

	if (len < magic || memcmp(text, RESTORE_MAGIC, magic))
		return -EINVAL;
	*knob_path = text + magic;
	end = memchr(*knob_path, '\n', len - magic);
	if (!end || end == *knob_path)
		return -EINVAL;
	*end = '\0';
	*found = end + 1;
	*found_len = len - (size_t)(*found - text);
	return 0;
}

int restore_file_apply(const char *cmd, const char *path)
{
	char *text = malloc(KNOB_FILE_MAX + PATH_MAX + 64);
	char *knob_path, *found;
	size_t len = 0, found_len;
	struct knob k;
	ssize_t n;
	int fd, rc = 0;

	if (!text) {
		vmpctl_error("%s: --restore: %s", cmd, strerror(ENOMEM));
		return EXIT_CHECK_FAILED;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		vmpctl_error("%s: --restore: %s: %s", cmd, path, strerror(errno));
		free(text);
		return EXIT_ENVIRONMENT;
	}
	while ((n = read(fd, text + len, KNOB_FILE_MAX + PATH_MAX + 64 - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		rc = EXIT_ENVIRONMENT;
	close(fd);
	if (!rc && parse_restore(text, len, &knob_path, &found, &found_len)) {
		vmpctl_error("%s: --restore: %s is not a vmpctl restore file", cmd, path);
		rc = EXIT_USAGE;
	} else if (rc) {
		vmpctl_error("%s: --restore: %s cannot be read", cmd, path);
	}
	if (!rc && knob_open(&k, knob_path)) {
		vmpctl_error("%s: --restore: knob %s %s", cmd, knob_path, k.why);
		rc = EXIT_RESTORE_FAILED;
	} else if (!rc) {
		if (knob_restore_found(&k, found, found_len)) {
			vmpctl_error("%s: --restore: KNOB NOT RESTORED: %s %s", cmd,
				     knob_path, k.why);
			rc = EXIT_RESTORE_FAILED;
		}
		knob_close(&k);
	}
	if (!rc && unlink(path)) {
		vmpctl_error("%s: --restore: the knob is back, but %s cannot be removed: %s",
			     cmd, path, strerror(errno));
		rc = EXIT_ENVIRONMENT;
	}
	free(text);
	return rc;
}
