/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT, SIGTERM and SIGHUP only set a flag: the handler does no cleanup
 * itself. Blocking calls return EINTR (no SA_RESTART), the caller sees
 * stop_requested(), unwinds (kills its child, removes its cgroup, restores
 * the knob) and then calls stop_signals_reraise() so the shell sees the
 * signal as the cause of death.
 */
#ifndef VMPCTL_SIGNALS_H
#define VMPCTL_SIGNALS_H

#include <stdbool.h>

void stop_signals_install(void);
bool stop_requested(void);
/* The caught signal number, 0 when none. */
int stop_signal(void);
/* Re-raises the caught signal with its default action; returns if none. */
void stop_signals_reraise(void);

#endif
