// SPDX-License-Identifier: GPL-2.0
/* The restore file of a changed knob (see restorefile.h). */
#include "restorefile.h"
#include "exit_codes.h"
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
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

/* A restore file read whole: the knob it names and the bytes found. */
struct restore_content {
	char *text;		/* the file, NUL-terminated; knob_path and found point in */
	char *knob_path;
	char *found;
	size_t found_len;
};

#define RESTORE_FILE_MAX (KNOB_FILE_MAX + PATH_MAX + 64)

/* Reads and parses path; 0, or the exit status with the reason printed. */
static int restore_read(const char *cmd, const char *what, const char *path,
			struct restore_content *rc_out)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	rc_out->text = malloc(RESTORE_FILE_MAX + 1);
	if (!rc_out->text) {
		vmpctl_error("%s: %s: %s", cmd, what, strerror(ENOMEM));
		return EXIT_CHECK_FAILED;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		vmpctl_error("%s: %s: %s: %s", cmd, what, path, strerror(errno));
		goto fail_env;
	}
	while ((n = read(fd, rc_out->text + len, RESTORE_FILE_MAX - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		vmpctl_error("%s: %s: %s cannot be read: %s", cmd, what, path,
			     strerror(errno));
		close(fd);
		goto fail_env;
	}
	close(fd);
	rc_out->text[len] = '\0';
	if (parse_restore(rc_out->text, len, &rc_out->knob_path, &rc_out->found,
			  &rc_out->found_len)) {
		vmpctl_error("%s: %s: %s is not a vmpctl restore file", cmd, what, path);
		free(rc_out->text);
		return EXIT_USAGE;
	}
	return 0;
fail_env:
	free(rc_out->text);
	return EXIT_ENVIRONMENT;
}

/* Puts back what content holds and removes path; 0 or the exit status. */
static int restore_put_back(const char *cmd, const char *what, const char *path,
			    const struct restore_content *content)
{
	struct knob k;
	int rc = 0;

	if (knob_open(&k, content->knob_path)) {
		vmpctl_error("%s: %s: knob %s %s", cmd, what, content->knob_path, k.why);
		return EXIT_RESTORE_FAILED;
	}
	if (knob_restore_found(&k, content->found, content->found_len)) {
		vmpctl_error("%s: %s: KNOB NOT RESTORED: %s %s", cmd, what,
			     content->knob_path, k.why);
		rc = EXIT_RESTORE_FAILED;
	}
	knob_close(&k);
	if (!rc && unlink(path)) {
		vmpctl_error("%s: %s: the knob is back, but %s cannot be removed: %s",
			     cmd, what, path, strerror(errno));
		rc = EXIT_ENVIRONMENT;
	}
	return rc;
}

int restore_file_apply(const char *cmd, const char *path)
{
	struct restore_content content;
	int rc;

	rc = restore_read(cmd, "--restore", path, &content);
	if (rc)
		return rc;
	rc = restore_put_back(cmd, "--restore", path, &content);
	free(content.text);
	return rc;
}

/*
 * Whether the ab that wrote ab-PID.restore still runs: PID is alive and
 * is a vmpctl (a PID reused by another program is not the writer).
 */
static bool writer_alive(pid_t pid)
{
	char comm_path[64], comm[32] = "";
	FILE *f;

	if (kill(pid, 0) && errno == ESRCH)
		return false;
	snprintf(comm_path, sizeof(comm_path), "/proc/%d/comm", (int)pid);
	f = fopen(comm_path, "re");
	if (!f)
		return true;	/* no /proc to tell: alive, as kill() says */
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strcmp(comm, "vmpctl\n") == 0;
}

/* One dead ab's leftover: warn, or put it back; 0 or the exit status. */
static int leftover_handle(const char *cmd, const char *path, pid_t pid,
			   bool put_back)
{
	struct restore_content content;
	char shown[64];
	int rc;

	rc = restore_read(cmd, "leftover restore file", path, &content);
	if (rc)
		return rc;
	knob_text_display(content.found, shown, sizeof(shown));
	if (put_back) {
		rc = restore_put_back(cmd, "--restore-leftover", path, &content);
		if (!rc)
			printf("restored: %s to '%s' as found by vmpctl ab (pid %d), from %s\n",
			       content.knob_path, shown, (int)pid, path);
	} else {
		vmpctl_error("%s: warning: vmpctl ab (pid %d) ended without putting back %s, which it found holding '%s'",
			     cmd, (int)pid, content.knob_path, shown);
		vmpctl_error("%s: warning: put it back with: vmpctl ab --restore %s (or vmpctl %s --restore-leftover)",
			     cmd, path, cmd);
	}
	free(content.text);
	return rc;
}

int restore_file_leftovers(const char *cmd, bool put_back)
{
	const char *dir = restore_dir();
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	dp = opendir(dir);
	if (!dp)
		return 0;	/* no directory: no ab ever wrote one */
	while ((d = readdir(dp))) {
		char path[PATH_MAX], tail[16];
		int pid, err;

		if (sscanf(d->d_name, "ab-%d%15s", &pid, tail) != 2 ||
		    strcmp(tail, ".restore") || pid <= 0 || writer_alive(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		err = leftover_handle(cmd, path, pid, put_back);
		if (err && !rc)
			rc = err;
	}
	closedir(dp);
	return rc;
}
