// SPDX-License-Identifier: GPL-2.0
#include "fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int read_text_file(const char *path, char *buf, size_t size)
{
	size_t used = 0;
	int fd, err = 0;

	if (size == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + used, size - 1 - used);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used == size - 1) {
			char probe;

			/* A full buffer is only an error if more data follows. */
			n = read(fd, &probe, 1);
			if (n > 0)
				err = -EFBIG;
			break;
		}
	}
	close(fd);
	buf[used] = '\0';
	return err;
}

int write_text_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = write(fd, text, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && err == 0)
		err = -errno;
	return err;
}

static int only_trailing_space(const char *p)
{
	while (*p) {
		if (!isspace((unsigned char)*p))
			return 0;
		p++;
	}
	return 1;
}

int parse_u64(const char *text, uint64_t *value)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a sign: the kernel prints neither. */
	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (!only_trailing_space(end))
		return -EINVAL;
	*value = v;
	return 0;
}

int parse_bool01(const char *text, int *value)
{
	if ((text[0] != '0' && text[0] != '1') || !only_trailing_space(text + 1))
		return -EINVAL;
	*value = text[0] - '0';
	return 0;
}

int find_keyed_u64(const char *text, const char *key, uint64_t *value)
{
	size_t key_len = strlen(key);
	const char *line = text;

	while (*line) {
		const char *next = strchr(line, '\n');
		size_t line_len = next ? (size_t)(next - line) : strlen(line);

		if (line_len > key_len && strncmp(line, key, key_len) == 0 &&
		    line[key_len] == ' ') {
			char number[32];
			size_t num_len = line_len - key_len - 1;

			if (num_len >= sizeof(number))
				return -ERANGE;
			memcpy(number, line + key_len + 1, num_len);
			number[num_len] = '\0';
			return parse_u64(number, value);
		}
		if (!next)
			break;
		line = next + 1;
	}
	return -ENOENT;
}

int find_meminfo_kib(const char *text, const char *key, uint64_t *kib)
{
	size_t key_len = strlen(key);
	const char *line = text;

	while (*line) {
		if (strncmp(line, key, key_len) == 0 && line[key_len] == ':') {
			const char *p = line + key_len + 1;
			unsigned long long v;
			char *end;

			while (*p == ' ')
				p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			errno = 0;
			v = strtoull(p, &end, 10);
			if (errno == ERANGE)
				return -ERANGE;
			if (strncmp(end, " kB", 3) != 0)
				return -EINVAL;
			*kib = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
	return -ENOENT;
}

int read_keyed_u64(const char *path, const char *key, uint64_t *value)
{
	/* /proc/vmstat is about 8 KiB on 6.x; memory.stat less. */
	const size_t size = 65536;
	char *buf = malloc(size);
	int err;

	if (!buf)
		return -ENOMEM;
	err = read_text_file(path, buf, size);
	if (!err)
		err = find_keyed_u64(buf, key, value);
	free(buf);
	return err;
}

int path_join(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}
