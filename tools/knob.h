/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vmpressure_ctl module's sysfs interface. Commands that must put the
 * knob back (check, ab) hold it as a struct knob (knobfile.h).
 */
#ifndef VMPCTL_KNOB_H
#define VMPCTL_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VMP_SYSFS_DIR_DEFAULT "/sys/kernel/vmpressure_ctl"
#define VMP_MODULE_NAME "vmpressure_ctl"

#define VMP_PARAMS_DIR_DEFAULT "/sys/module/vmpressure_ctl/parameters"

/* Where the module's attributes live; unit tests point it at a fake tree. */
extern const char *vmp_sysfs_dir;
/* Where its load parameters show (resident); likewise. */
extern const char *vmp_params_dir;

struct vmp_state {
	int enabled;		/* 1 stock, 0 short-circuited */
	char method[32];	/* ftrace, kprobe, direct */
	bool resident;		/* hooked from load to unload (resident=1) */
	bool counts_skipped;	/* false: count_skipped=0, no skipped attribute */
	uint64_t skipped;
	char targets[256];	/* one symbol per line in sysfs; space-separated here */
};

bool vmp_module_loaded(void);

/* Path of one attribute (enabled, method, skipped, targets). */
int vmp_attr_path(char *buf, size_t size, const char *attr);

int vmp_read_enabled(int *enabled);
/* Writes the knob and reads it back; -EIO when the read-back differs. */
int vmp_write_enabled(int enabled);
/* -ENOENT when the module is not loaded or counts nothing (count_skipped=0). */
int vmp_read_skipped(uint64_t *skipped);
int vmp_read_state(struct vmp_state *state);

/* Turns "a\nb\n" into "a b". */
void join_lines(char *text);

#endif
