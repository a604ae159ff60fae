/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit codes every command uses (documented in vmpctl.1), in one
 * place for every file that returns one.
 */
#ifndef VMPCTL_EXIT_CODES_H
#define VMPCTL_EXIT_CODES_H

#define EXIT_CHECK_FAILED 1	/* also: a measurement or command failed */
#define EXIT_USAGE 2
#define EXIT_ENVIRONMENT 3	/* not root, module missing, no memcg */
#define EXIT_RESTORE_FAILED 4	/* a knob could not be put back as found */
#define EXIT_STALLED 5		/* ab: the workload stopped making progress */

#endif
