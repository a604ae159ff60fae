// SPDX-License-Identifier: GPL-2.0
/* vmpctl: command dispatch only; each command lives in its own file. */
#include "commands.h"
#include "output.h"
#include "signals.h"

#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "status", cmd_status, "show the knob, backend, counters and cgroup layout" },
	{ "enable", cmd_enable, "knob to 1: stock vmpressure (alias: on)" },
	{ "on", cmd_enable, NULL },
	{ "disable", cmd_disable, "knob to 0: short-circuit vmpressure (alias: off)" },
	{ "off", cmd_disable, NULL },
	{ "measure", cmd_measure, "force reclaim in a memcg once and count what happened" },
	{ "check", cmd_check, "prove the knob: events on, none off, back on" },
	{ "watch", cmd_watch, "print memory pressure events as they arrive" },
	{ "ab", cmd_ab, "A/B a command with the knob at 1 and 0, with statistics" },
	{ "pft", cmd_pft, "page-fault workload, optionally in a limited memcg" },
	{ "net", cmd_net, "loopback TCP in a memcg held at its limit (cgroup v2)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fputs("Usage: vmpctl [--help] [--version] COMMAND [options]\n"
	      "\n"
	      "Control and verify the vmpressure_ctl kernel module.\n"
	      "\n"
	      "Commands:\n", out);
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].summary)
			fprintf(out, "  %-9s %s\n", commands[i].name,
				commands[i].summary);
	fputs("\n"
	      "Run 'vmpctl COMMAND --help' for a command's options.\n"
	      "Exit status: 0 ok, 1 check or command failed, 2 usage, 3 environment\n"
	      "(not root, module missing, no memory cgroup), 4 a knob not restored.\n",
	      out);
}

/* The kernel too: a report pasted from one machine names what it ran on. */
static int print_version(void)
{
	struct utsname uts;

	if (uname(&uts) != 0) {
		perror("vmpctl: uname");
		return EXIT_CHECK_FAILED;
	}
	printf("vmpctl %s\nkernel %s\n", VMPCTL_VERSION, uts.release);
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	size_t i;
	int c;

	/* "+": stop at the command; its options are its own. */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return print_version();
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			return commands[i].run(argc - optind, argv + optind);
	fprintf(stderr, "vmpctl: unknown command '%s' (see vmpctl --help)\n",
		argv[optind]);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int status;

	/*
	 * The terminal's character set, so that tables count characters, not
	 * bytes; numbers stay in the C locale's form (LC_NUMERIC untouched).
	 */
	setlocale(LC_CTYPE, "");
	status = close_stdout(run(argc, argv));

	/* a write to a closed pipe was a stop: end as SIGPIPE would have */
	if (stop_signal() == SIGPIPE)
		stop_signals_reraise();
	return status;
}
