/* SPDX-License-Identifier: GPL-2.0 */
/* vmpctl status: what is gathered and how it is printed. */
#ifndef VMPCTL_STATUS_H
#define VMPCTL_STATUS_H

#include <stdbool.h>
#include <stdio.h>

#include "cgroup.h"
#include "knob.h"

struct status {
	bool loaded;
	bool readable;			/* attributes could be read */
	struct vmp_state module;
	char kernel[65];
	struct cgroup_layout layout;
	bool v2_memory;
	bool pressure_level;		/* v1 memory root has memory.pressure_level */
	/* cgroup v2: sockets charged to memcgs (no cgroup.memory=nosocket) */
	bool socket_accounting;
	/* The cgroup asked for sock_throttled: --cgroup, else a child of the root. */
	char sock_cgroup[PATH_MAX];
	bool sock_cgroup_read;		/* its memory.events was read */
	bool has_sock_throttled;	/* ... and has sock_throttled */
	uint64_t sock_throttled;
};

/* Whether a kernel command line turns socket accounting off. */
bool cmdline_disables_socket_accounting(const char *cmdline);

void status_gather(struct status *st);
/* Asks cgroup (a cgroup-v2 memory cgroup) about sock_throttled. 0 or -errno. */
int status_gather_sockets(struct status *st, const char *cgroup);
void status_print_text(FILE *out, const struct status *st);
/* One line; module fields are null when it is not loaded. 0 or -errno. */
int status_print_json(FILE *out, const struct status *st);

#endif
