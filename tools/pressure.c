// SPDX-License-Identifier: GPL-2.0
#include "pressure.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static const char *const level_names[PRESSURE_LEVELS] = {
	[PRESSURE_LOW] = "low",
	[PRESSURE_MEDIUM] = "medium",
	[PRESSURE_CRITICAL] = "critical",
};

static const char *const mode_names[] = {
	[PRESSURE_MODE_DEFAULT] = "default",
	[PRESSURE_MODE_HIERARCHY] = "hierarchy",
	[PRESSURE_MODE_LOCAL] = "local",
};

const char *pressure_level_name(enum pressure_level level)
{
	return level < PRESSURE_LEVELS ? level_names[level] : "?";
}

const char *pressure_mode_name(enum pressure_mode mode)
{
	return mode <= PRESSURE_MODE_LOCAL ? mode_names[mode] : "?";
}

int pressure_level_parse(const char *text, unsigned int *mask)
{
	int i;

	if (strcmp(text, "all") == 0) {
		*mask = PRESSURE_ALL_LEVELS;
		return 0;
	}
	for (i = 0; i < PRESSURE_LEVELS; i++) {
		if (strcmp(text, level_names[i]) == 0) {
			*mask = 1u << i;
			return 0;
		}
	}
	return -EINVAL;
}

int pressure_mode_parse(const char *text, enum pressure_mode *mode)
{
	int i;

	for (i = PRESSURE_MODE_DEFAULT; i <= PRESSURE_MODE_LOCAL; i++) {
		if (strcmp(text, mode_names[i]) == 0) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

int pressure_registration_line(char *buf, size_t size, int event_fd,
			       int level_fd, enum pressure_level level,
			       enum pressure_mode mode)
{
	int n;

	if (level >= PRESSURE_LEVELS || mode > PRESSURE_MODE_LOCAL)
		return -EINVAL;
	if (mode == PRESSURE_MODE_DEFAULT)
		n = snprintf(buf, size, "%d %d %s", event_fd, level_fd,
			     level_names[level]);
	else
		n = snprintf(buf, size, "%d %d %s,%s", event_fd, level_fd,
			     level_names[level], mode_names[mode]);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int eventfd_drain(int event_fd, uint64_t *count)
{
	ssize_t n;

	do {
		n = read(event_fd, count, sizeof(*count));
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN) {
			*count = 0;
			return 0;
		}
		return -errno;
	}
	return n == sizeof(*count) ? 0 : -EIO;
}

static int register_level(int control_fd, int level_fd, int event_fd,
			  enum pressure_level level, enum pressure_mode mode)
{
	char line[64];
	ssize_t n;
	int err;

	err = pressure_registration_line(line, sizeof(line), event_fd,
					 level_fd, level, mode);
	if (err)
		return err;
	do {
		n = write(control_fd, line, strlen(line));
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

void pressure_init(struct pressure_listener *pl)
{
	int i;

	pl->levels = 0;
	for (i = 0; i < PRESSURE_LEVELS; i++)
		pl->event_fd[i] = -1;
}

int pressure_listen(struct pressure_listener *pl, const char *cgroup_path,
		    unsigned int mask, enum pressure_mode mode)
{
	char path[PATH_MAX];
	int level_fd = -1, control_fd = -1, err, i;

	pressure_init(pl);

	err = path_join(path, sizeof(path), cgroup_path, "memory.pressure_level");
	if (err)
		return err;
	level_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (level_fd < 0)
		return -errno;
	err = path_join(path, sizeof(path), cgroup_path, "cgroup.event_control");
	if (!err) {
		control_fd = open(path, O_WRONLY | O_CLOEXEC);
		if (control_fd < 0)
			err = -errno;
	}
	for (i = 0; !err && i < PRESSURE_LEVELS; i++) {
		if (!(mask & (1u << i)))
			continue;
		pl->event_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (pl->event_fd[i] < 0) {
			err = -errno;
			break;
		}
		err = register_level(control_fd, level_fd, pl->event_fd[i], i, mode);
		if (!err)
			pl->levels |= 1u << i;
	}
	/* The kernel holds its own references once registered. */
	if (control_fd >= 0)
		close(control_fd);
	close(level_fd);
	if (err)
		pressure_close(pl);
	return err;
}

int pressure_drain(struct pressure_listener *pl,
		   uint64_t counts[PRESSURE_LEVELS])
{
	int i;

	for (i = 0; i < PRESSURE_LEVELS; i++) {
		uint64_t n;
		int err;

		if (pl->event_fd[i] < 0)
			continue;
		err = eventfd_drain(pl->event_fd[i], &n);
		if (err)
			return err;
		counts[i] += n;
	}
	return 0;
}

int pressure_wait(const struct pressure_listener *pl, int timeout_ms)
{
	struct pollfd fds[PRESSURE_LEVELS];
	nfds_t n = 0;
	int i, ready;

	for (i = 0; i < PRESSURE_LEVELS; i++) {
		if (pl->event_fd[i] < 0)
			continue;
		fds[n].fd = pl->event_fd[i];
		fds[n].events = POLLIN;
		n++;
	}
	ready = poll(fds, n, timeout_ms);
	if (ready < 0)
		return -errno;
	return ready > 0;
}

void pressure_close(struct pressure_listener *pl)
{
	int i;

	for (i = 0; i < PRESSURE_LEVELS; i++) {
		if (pl->event_fd[i] >= 0)
			close(pl->event_fd[i]);
		pl->event_fd[i] = -1;
	}
	pl->levels = 0;
}
