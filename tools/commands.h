/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands vmpctl.c dispatches to, and the exit codes every command
 * uses (documented in vmpctl.1).
 */
#ifndef VMPCTL_COMMANDS_H
#define VMPCTL_COMMANDS_H

#define EXIT_CHECK_FAILED 1	/* also: a measurement or command failed */
#define EXIT_USAGE 2
#define EXIT_ENVIRONMENT 3	/* not root, module missing, no memcg */
#define EXIT_RESTORE_FAILED 4	/* a knob could not be put back as found */

/*
 * Before writing the knob: the module must be loaded and we must be root.
 * Prints the reason; returns 0 or EXIT_ENVIRONMENT.
 */
int knob_write_preflight(const char *cmd);

int cmd_status(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
