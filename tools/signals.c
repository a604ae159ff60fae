// SPDX-License-Identifier: GPL-2.0
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Default action "terminate" or "core", catchable, not a fault of ours. */
static const int stop_sigs[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
	SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
};

static volatile sig_atomic_t caught_signal;
static volatile sig_atomic_t caught_count;
static int wake_pipe[2] = { -1, -1 };
static bool installed;
/* The dispositions found at install, for the ones we changed. */
static struct sigaction original[_NSIG];
static bool changed[_NSIG];
static bool pipe_ignored_at_start;

static void wake(void)
{
	int saved = errno;
	char byte = 0;

	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &byte, 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = saved;
}

static void note_signal(int sig)
{
	if (!caught_signal)
		caught_signal = sig;
	caught_count++;
	wake();
}

static void note_child(int sig)
{
	(void)sig;
	wake();
}

static void take_over(int sig, void (*handler)(int), int flags)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &original[sig]) < 0)
		return;
	if (original[sig].sa_handler == SIG_IGN && handler == note_signal) {
		if (sig == SIGPIPE)
			pipe_ignored_at_start = true;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) == 0)
		changed[sig] = true;
}

void stop_signals_install(void)
{
	size_t i;
	int sig;

	if (installed)
		return;
	installed = true;
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		wake_pipe[0] = wake_pipe[1] = -1;
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		take_over(stop_sigs[i], note_signal, 0);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		take_over(sig, note_signal, 0);
	/* restartable: only poll() needs to wake, and the pipe does that */
	take_over(SIGCHLD, note_child, SA_RESTART | SA_NOCLDSTOP);
}

void stop_signals_restore(void)
{
	int sig;

	for (sig = 1; sig < _NSIG; sig++) {
		if (changed[sig])
			sigaction(sig, &original[sig], NULL);
		changed[sig] = false;
	}
	installed = false;
	if (wake_pipe[0] >= 0) {
		close(wake_pipe[0]);
		close(wake_pipe[1]);
	}
	wake_pipe[0] = wake_pipe[1] = -1;
}

void stop_signals_reset_in_child(void)
{
	stop_signals_restore();
}

bool stop_requested(void)
{
	return caught_signal != 0;
}

int stop_signal(void)
{
	return caught_signal;
}

unsigned int stop_count(void)
{
	return (unsigned int)caught_count;
}

void stop_request(int sig)
{
	note_signal(sig);
}

void stop_note_write_error(int err)
{
	if (err == EPIPE)
		stop_request(SIGPIPE);
}

int stop_wake_fd(void)
{
	return wake_pipe[0];
}

void stop_wake_drain(void)
{
	char buf[64];

	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void stop_signals_reraise(void)
{
	int sig = caught_signal;
	sigset_t set;

	if (!sig || (sig == SIGPIPE && pipe_ignored_at_start))
		return;
	/*
	 * the report printed before the stop is still in stdio's buffers
	 * when stdout is a file or a pipe: the signal would end vmpctl
	 * before exit() flushed them
	 */
	fflush(NULL);
	stop_signals_restore();
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

const char *stop_signal_name(int sig, char *buf, unsigned int size)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, size, "signal %d", sig);
	return buf;
}
