/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A knob's value as found, kept on disk while vmpctl ab changes it, so
 * that it can be put back after vmpctl itself was killed (kill -9, a
 * crash, a power cut): the restore file. It is written before the first
 * change and removed once the knob was restored; one left behind is what
 * vmpctl ab --restore FILE puts back.
 *
 * Where: $VMPCTL_RUN_DIR, else /run/vmpctl (made 0700), one file per
 * A/B named ab-PID.restore. The format is binary-safe, as a file knob may
 * hold any bytes: a line "vmpctl-restore 1", a line with the knob's path,
 * then the bytes found, exactly.
 */
#ifndef VMPCTL_RESTOREFILE_H
#define VMPCTL_RESTOREFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "knobfile.h"

#define RESTORE_DIR_DEFAULT "/run/vmpctl"
#define RESTORE_DIR_ENV "VMPCTL_RUN_DIR"

/*
 * Writes k's found bytes to a new restore file (complete or not at all:
 * written aside, synced, renamed) and its path to path. 0 or -errno,
 * the reason in why.
 */
int restore_file_write(const struct knob *k, char *path, size_t size,
		       char *why, size_t why_size);

/*
 * Puts back the knob a restore file names as it was found, reads it back
 * and removes the file. 0, or the exit status with the reason printed
 * ("vmpctl: CMD: ...").
 */
int restore_file_apply(const char *cmd, const char *path);

/*
 * The restore files of abs that no longer run (leftovers): put_back false
 * warns about each on stderr (the knob, the value found, the command that
 * puts it back); true puts each back as restore_file_apply() does. 0, or
 * the first failure's exit status with every reason printed.
 */
int restore_file_leftovers(const char *cmd, bool put_back);

#endif
