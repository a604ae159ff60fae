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
};

void status_gather(struct status *st);
void status_print_text(FILE *out, const struct status *st);
/* One line; module fields are null when it is not loaded. 0 or -errno. */
int status_print_json(FILE *out, const struct status *st);

#endif
