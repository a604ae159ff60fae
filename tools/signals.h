/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stop signals: every signal that would end vmpctl and can be caught
 * (HUP, INT, QUIT, USR1, USR2, PIPE, ALRM, TERM, STKFLT, XCPU, XFSZ,
 * VTALRM, PROF, IO, PWR and the real-time signals) only records that a
 * stop was asked for. A signal that was ignored when vmpctl started
 * (nohup, a background job without job control) stays ignored.
 *
 * The handler also writes a byte to a non-blocking self-pipe, as does
 * SIGCHLD's, so that a poll() on stop_wake_fd() wakes at once even when
 * the signal arrived just before poll() was entered: the child runner
 * (child.h) forwards a stop to its child without waiting for the child.
 *
 * Blocking calls return EINTR (no SA_RESTART); the caller sees
 * stop_requested(), unwinds (kills its child, removes its cgroup,
 * restores the knob), puts the dispositions back with
 * stop_signals_restore() and calls stop_signals_reraise(), so the parent
 * sees the signal as the cause of death.
 *
 * SIGPIPE is caught like the others, so a write to a closed pipe fails
 * with EPIPE instead of killing vmpctl before it restored anything;
 * stop_note_write_error() turns such an EPIPE into a stop as well (also
 * when SIGPIPE was inherited ignored). exec() resets caught signals to
 * their default, so commands vmpctl runs see SIGPIPE as usual.
 */
#ifndef VMPCTL_SIGNALS_H
#define VMPCTL_SIGNALS_H

#include <stdbool.h>

/* Installs the handlers once; later calls do nothing. */
void stop_signals_install(void);

/* Puts back every disposition stop_signals_install() changed. */
void stop_signals_restore(void);

/*
 * In a forked child before it runs or execs anything: the inherited
 * dispositions back, the self-pipe closed.
 */
void stop_signals_reset_in_child(void);

bool stop_requested(void);
/* The first stop signal caught, 0 when none. */
int stop_signal(void);

/* How many stops were recorded (a second ^C escalates). */
unsigned int stop_count(void);

/* Records a stop as if sig had arrived (no-op when one is recorded). */
void stop_request(int sig);

/* After a failed write: EPIPE is a stop by SIGPIPE. */
void stop_note_write_error(int err);

/* Readable after any stop signal or SIGCHLD; -1 before install. */
int stop_wake_fd(void);
/* Empties the self-pipe. */
void stop_wake_drain(void);

/*
 * Dies of the recorded signal with its default action. Returns when none
 * was recorded, or when it was SIGPIPE and vmpctl started with SIGPIPE
 * ignored (the caller then exits with a failure status).
 */
void stop_signals_reraise(void);

/* "SIGINT" for SIGINT, "SIGRTMIN+3" for a real-time signal. */
const char *stop_signal_name(int sig, char *buf, unsigned int size);

#endif
