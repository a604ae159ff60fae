/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every command and subcommand vmpctl dispatches to, in one place; each
 * returns one of the exit codes (exit_codes.h).
 */
#ifndef VMPCTL_COMMANDS_H
#define VMPCTL_COMMANDS_H

#include "exit_codes.h"

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
/* exit codes 0 ok, 1 failed, 2 usage, 3 environment */
int cmd_pft(int argc, char **argv);
int cmd_net(int argc, char **argv);
/*
 * exit codes 0 ran (whatever the verdict), 1 a run failed, 2 usage,
 * 3 environment, 4 the knob could not be restored, 5 the workload stalled
 * (the watchdog, or a run over --run-timeout without --ignore-failure);
 * killed by the stop signal that ended it, after the knob was restored.
 */
int cmd_ab(int argc, char **argv);
/* vmpctl ab report FILE [--baseline FILE2]: argv[0] is "report". */
int cmd_ab_report(int argc, char **argv);
/*
 * vmpctl ab merge FILE...: the --save files of the same A/B on many hosts,
 * pooled by a random-effects meta-analysis (stats_meta.h); argv[0] is
 * "merge"; exit status 0, 1 (a file cannot be analysed), 2 usage.
 */
int cmd_ab_merge(int argc, char **argv);

#endif
