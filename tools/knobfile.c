// SPDX-License-Identifier: GPL-2.0
/* Knobs of every kind: open, set, read back, restore (see knobfile.h). */
#include "knobfile.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define OPEN_FLAGS (O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif

static bool kernel_fs(const struct statfs *fs)
{
	switch ((unsigned long)fs->f_type) {
	case SYSFS_MAGIC:
	case PROC_SUPER_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC:
		return true;
	}
	return false;
}

static const char *file_type(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

static int fail(struct knob *k, int err, const char *fmt, const char *detail)
{
	snprintf(k->why, sizeof(k->why), fmt, detail);
	return err;
}

/*
 * Opens the knob with flags, refusing anything but a regular file and,
 * after knob_open(), anything but the file found then. fd or -errno.
 */
static int open_checked(struct knob *k, int flags, bool first)
{
	struct stat st;
	int fd = open(k->path, flags | OPEN_FLAGS);

	if (fd < 0) {
		int err = -errno;

		return fail(k, err, (flags & O_ACCMODE) == O_RDONLY ?
			    "cannot be read: %s" : "cannot be written: %s",
			    strerror(-err));
	}
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return fail(k, err, "cannot be examined: %s", strerror(-err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(k, -EINVAL, "is %s: a knob is a regular file",
			    file_type(st.st_mode));
	}
	if (first) {
		k->dev = st.st_dev;
		k->ino = st.st_ino;
	} else if (st.st_dev != k->dev ||
		   (k->kind == KNOB_FILE && st.st_ino != k->ino)) {
		close(fd);
		return fail(k, -ESTALE, "%s", "is no longer the file found at the start");
	}
	return fd;
}

/* All of the knob's bytes (malloc'ed, NUL-terminated); 0 or -errno. */
static int read_all(struct knob *k, bool first, char **data, size_t *len)
{
	char *buf = malloc(KNOB_FILE_MAX + 2);
	size_t used = 0;
	int fd, err = 0;

	if (!buf)
		return fail(k, -ENOMEM, "%s", strerror(ENOMEM));
	fd = open_checked(k, O_RDONLY, first);
	if (fd < 0) {
		free(buf);
		return fd;
	}
	while (used <= KNOB_FILE_MAX) {
		ssize_t n = read(fd, buf + used, KNOB_FILE_MAX + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = fail(k, -errno, "cannot be read: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	if (!err && used > KNOB_FILE_MAX)
		err = fail(k, -EFBIG, "%s", "holds more than 64 KiB: not a knob");
	if (err) {
		free(buf);
		return err;
	}
	buf[used] = '\0';
	*data = buf;
	*len = used;
	return 0;
}

/* Runs of blanks as one space, none at the ends. */
static void normalize(const char *in, char *out, size_t size)
{
	size_t o = 0;
	bool blank = false;

	for (; *in && o + 1 < size; in++) {
		if (*in == ' ' || *in == '\t' || *in == '\n') {
			blank = o > 0;
			continue;
		}
		if (blank && o + 2 < size)
			out[o++] = ' ';
		blank = false;
		out[o++] = *in;
	}
	out[o] = '\0';
}

/*
 * The bracketed token of a one-line list into token; false unless exactly
 * one token is bracketed.
 */
static bool selected_token(const char *line, char *token, size_t size)
{
	const char *p = line;
	int found = 0;

	while (*p) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n >= 3 && p[0] == '[' && p[n - 1] == ']') {
			if (n - 2 >= size)
				return false;
			memcpy(token, p + 1, n - 2);
			token[n - 2] = '\0';
			found++;
		}
		p += n;
	}
	return found == 1;
}

enum knob_kind knob_kind_of(bool kernel_file, const char *text)
{
	char token[KNOB_LINE_MAX];

	if (!kernel_file)
		return KNOB_FILE;
	return selected_token(text, token, sizeof(token)) ? KNOB_LIST : KNOB_VALUE;
}

void knob_value_of(enum knob_kind kind, const char *text, char *buf,
		   size_t size)
{
	size_t len;

	switch (kind) {
	case KNOB_FILE:
		len = strlen(text);
		if (len && text[len - 1] == '\n')
			len--;
		snprintf(buf, size, "%.*s", (int)len, text);
		return;
	case KNOB_LIST:
		if (selected_token(text, buf, size))
			return;
		break;
	case KNOB_VALUE:
		break;
	}
	normalize(text, buf, size);
}

int knob_open(struct knob *k, const char *path)
{
	struct statfs fs;
	char *line_end;
	int fd, err;

	memset(k, 0, sizeof(*k));
	if (strlen(path) >= sizeof(k->path))
		return fail(k, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
	strcpy(k->path, path);
	err = read_all(k, true, &k->found, &k->found_len);
	if (err)
		return err;
	if (strlen(k->found) != k->found_len) {
		knob_close(k);
		return fail(k, -EINVAL, "%s", "holds NUL bytes: not a text knob");
	}
	/* kernel files may get a new inode number per open: compare st_dev only */
	k->kind = knob_kind_of(statfs(path, &fs) == 0 && kernel_fs(&fs), "");
	/* as root, access(W_OK) is no answer: ask open() */
	fd = open_checked(k, O_WRONLY, false);
	if (fd < 0) {
		knob_close(k);
		return fd;
	}
	close(fd);
	if (k->kind == KNOB_FILE) {
		knob_value_of(k->kind, k->found, k->found_value, sizeof(k->found_value));
		return 0;
	}
	line_end = strchr(k->found, '\n');
	if (line_end && line_end[1]) {
		knob_close(k);
		return fail(k, -EINVAL, "%s",
			    "has several lines: only one-line kernel files can be put back");
	}
	if (k->found_len > KNOB_LINE_MAX - 1) {
		knob_close(k);
		return fail(k, -EFBIG, "%s", "has a line too long for a knob");
	}
	k->kind = knob_kind_of(true, k->found);
	knob_value_of(k->kind, k->found, k->found_value, sizeof(k->found_value));
	if (!k->found_value[0]) {
		knob_close(k);
		return fail(k, -EINVAL, "%s", "reads as empty: nothing to put back");
	}
	return 0;
}

void knob_close(struct knob *k)
{
	free(k->found);
	k->found = NULL;
}

const char *knob_kind_name(enum knob_kind kind)
{
	switch (kind) {
	case KNOB_FILE:
		return "file";
	case KNOB_LIST:
		return "list";
	case KNOB_VALUE:
		break;
	}
	return "value";
}

int knob_accepts(struct knob *k, const char *value)
{
	const char *p = k->found;
	char choices[KNOB_LINE_MAX];

	if (k->kind != KNOB_LIST)
		return 0;
	while (*p) {
		const char *choice;
		size_t n, len;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		choice = p;
		len = n;
		if (n >= 2 && p[0] == '[' && p[n - 1] == ']') {
			choice++;
			len -= 2;
		}
		if (len && strlen(value) == len && strncmp(choice, value, len) == 0)
			return 0;
		p += n;
	}
	normalize(k->found, choices, sizeof(choices));
	return fail(k, -EINVAL, "offers only: %.140s", choices);
}

/* One write(2) of len bytes (sysfs and /proc/sys take one write). */
static int write_once(struct knob *k, const char *text, size_t len)
{
	int fd, err;

	fd = open_checked(k, O_WRONLY | (k->kind == KNOB_FILE ? O_TRUNC : 0),
			  false);
	if (fd < 0)
		return fd;
	k->written = true;
	err = write_once_and_close(fd, text, len);
	if (err)
		fail(k, err, "write failed: %s", strerror(-err));
	return err;
}

int knob_set(struct knob *k, const char *value)
{
	size_t len = strlen(value);
	char *text = malloc(len + 2);
	int err;

	if (!text)
		return fail(k, -ENOMEM, "%s", strerror(ENOMEM));
	memcpy(text, value, len);
	text[len] = '\n';
	text[len + 1] = '\0';
	err = write_once(k, text, len + 1);
	free(text);
	return err;
}

int knob_read_value(struct knob *k, char *buf, size_t size)
{
	size_t len;
	char *data;
	int err = read_all(k, false, &data, &len);

	if (err)
		return err;
	knob_value_of(k->kind, data, buf, size);
	free(data);
	return 0;
}

bool knob_value_matches(const struct knob *k, const char *now,
			const char *value)
{
	char want[KNOB_LINE_MAX];

	if (k->kind == KNOB_VALUE) {
		normalize(value, want, sizeof(want));
		return strcmp(now, want) == 0;
	}
	return strcmp(now, value) == 0;
}

const char *knob_text_display(const char *text, char *buf, size_t size)
{
	size_t o = 0;

	for (; *text && o + 8 < size; text++) {
		unsigned char c = (unsigned char)*text;

		if (c == '\n')
			o += (size_t)snprintf(buf + o, size - o, "\\n");
		else if (c == '\t')
			o += (size_t)snprintf(buf + o, size - o, "\\t");
		else if (c < 0x20 || c == 0x7f || c == '\\')
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (*text && size >= 4)
		strcpy(buf + (o < size - 4 ? o : size - 4), "...");
	else
		buf[o] = '\0';
	return buf;
}

int knob_restore_found(struct knob *k, const char *found, size_t len)
{
	char *copy;

	if (len > KNOB_FILE_MAX)
		return fail(k, -EFBIG, "%s", "holds more than 64 KiB: not a knob");
	copy = malloc(len + 1);
	if (!copy)
		return fail(k, -ENOMEM, "%s", strerror(ENOMEM));
	memcpy(copy, found, len);
	copy[len] = '\0';
	free(k->found);
	k->found = copy;
	k->found_len = len;
	knob_value_of(k->kind, copy, k->found_value, sizeof(k->found_value));
	k->written = true;
	return knob_restore(k);
}

const char *knob_found_display(const struct knob *k, char *buf, size_t size)
{
	return knob_text_display(k->found_value, buf, size);
}

int knob_restore(struct knob *k)
{
	char text[KNOB_LINE_MAX + 1], now_shown[64], found_shown[64];
	const char *bytes = text;
	size_t len;
	int err;

	if (!k->written)
		return 0;
	switch (k->kind) {
	case KNOB_FILE:
		bytes = k->found;
		len = k->found_len;
		break;
	case KNOB_LIST:
		len = (size_t)snprintf(text, sizeof(text), "%s\n", k->found_value);
		break;
	case KNOB_VALUE:
	default:
		/* the line as found, blanks and all */
		len = strcspn(k->found, "\n");
		snprintf(text, sizeof(text), "%.*s\n", (int)len, k->found);
		len++;
		break;
	}
	err = write_once(k, bytes, len);
	/* one attempt: a later call does nothing until the next knob_set() */
	k->written = false;
	if (err)
		return err;
	if (k->kind == KNOB_FILE) {
		char *data;
		size_t data_len;

		err = read_all(k, false, &data, &data_len);
		if (err)
			return err;
		if (data_len != k->found_len || memcmp(data, k->found, data_len)) {
			knob_text_display(data, now_shown, sizeof(now_shown));
			free(data);
			return fail(k, -EIO, "reads back '%s' after the restore",
				    now_shown);
		}
		free(data);
		return 0;
	}
	err = knob_read_value(k, text, sizeof(text));
	if (err)
		return err;
	if (strcmp(text, k->found_value) != 0) {
		knob_text_display(text, now_shown, sizeof(now_shown));
		knob_found_display(k, found_shown, sizeof(found_shown));
		snprintf(k->why, sizeof(k->why), "reads back '%.50s' after writing '%.50s' back",
			 now_shown, found_shown);
		return -EIO;
	}
	return 0;
}
