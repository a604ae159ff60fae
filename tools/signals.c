// SPDX-License-Identifier: GPL-2.0
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught_signal;

static void note_signal(int sig)
{
	caught_signal = sig;
}

void stop_signals_install(void)
{
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = note_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaction(stop_sigs[i], &sa, NULL);
}

bool stop_requested(void)
{
	return caught_signal != 0;
}

int stop_signal(void)
{
	return caught_signal;
}

void stop_signals_reraise(void)
{
	int sig = caught_signal;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}
