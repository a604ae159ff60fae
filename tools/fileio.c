// SPDX-License-Identifier: GPL-2.0
#include "fileio.h"
#include "parse.h"

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

int write_once_and_close(int fd, const char *text, size_t len)
{
	ssize_t n;
	int err = 0;

	if (len) {
		do {
			n = write(fd, text, len);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			err = -errno;
		else if ((size_t)n != len)
			err = -EIO;
	}
	if (close(fd) < 0 && err == 0)
		err = -errno;
	return err;
}

int write_text_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return write_once_and_close(fd, text, strlen(text));
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
			char number[32];
			size_t digits;

			while (*p == ' ')
				p++;
			digits = strspn(p, "0123456789");
			if (!digits || strncmp(p + digits, " kB", 3) != 0)
				return -EINVAL;
			if (digits >= sizeof(number))
				return -ERANGE;
			memcpy(number, p, digits);
			number[digits] = '\0';
			return parse_u64(number, kib);
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
