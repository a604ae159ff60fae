/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup-v1 memory pressure notifications: one eventfd per level,
 * registered on memory.pressure_level through cgroup.event_control
 * (Documentation/admin-guide/cgroup-v1/memory.rst, "Memory Pressure").
 */
#ifndef VMPCTL_PRESSURE_H
#define VMPCTL_PRESSURE_H

#include <stdint.h>
#include <stddef.h>

enum pressure_level {
	PRESSURE_LOW,
	PRESSURE_MEDIUM,
	PRESSURE_CRITICAL,
	PRESSURE_LEVELS
};

#define PRESSURE_ALL_LEVELS ((1u << PRESSURE_LEVELS) - 1)

enum pressure_mode {
	PRESSURE_MODE_DEFAULT,
	PRESSURE_MODE_HIERARCHY,
	PRESSURE_MODE_LOCAL
};

const char *pressure_level_name(enum pressure_level level);
/* "low", "medium", "critical" or "all" to a mask of levels; -EINVAL. */
int pressure_level_parse(const char *text, unsigned int *mask);
int pressure_mode_parse(const char *text, enum pressure_mode *mode);
const char *pressure_mode_name(enum pressure_mode mode);

/*
 * The line written to cgroup.event_control:
 * "<eventfd> <memory.pressure_level fd> <level>[,<mode>]". The mode is left
 * out for default so that kernels before 4.10 (no modes) accept it too.
 */
int pressure_registration_line(char *buf, size_t size, int event_fd,
			       int level_fd, enum pressure_level level,
			       enum pressure_mode mode);

/*
 * Reads and resets an eventfd counter without blocking: *count is the
 * number of notifications since the last drain (0 when none). The eventfd
 * must be non-blocking. 0 or -errno.
 */
int eventfd_drain(int event_fd, uint64_t *count);

struct pressure_listener {
	unsigned int levels;			/* mask of registered levels */
	int event_fd[PRESSURE_LEVELS];		/* -1 when not registered */
};

/* An empty listener: nothing registered, safe to drain and close. */
void pressure_init(struct pressure_listener *pl);

/*
 * Registers one eventfd per level in mask on the memcg at cgroup_path.
 * On failure nothing stays registered; -ENOENT means the cgroup has no
 * memory.pressure_level, -EOPNOTSUPP is what PREEMPT_RT kernels answer.
 */
int pressure_listen(struct pressure_listener *pl, const char *cgroup_path,
		    unsigned int mask, enum pressure_mode mode);

/* Adds the notifications since the last drain to counts[]. 0 or -errno. */
int pressure_drain(struct pressure_listener *pl,
		   uint64_t counts[PRESSURE_LEVELS]);

/*
 * Waits up to timeout_ms for any notification (poll); 1 when one is
 * pending, 0 on timeout, -EINTR when a signal arrived, other -errno.
 */
int pressure_wait(const struct pressure_listener *pl, int timeout_ms);

/* Closing the eventfds unregisters them. */
void pressure_close(struct pressure_listener *pl);

#endif
