// SPDX-License-Identifier: GPL-2.0
/* vmpctl enable|on and vmpctl disable|off: flip the knob, read it back. */
#include "args.h"
#include "commands.h"
#include "knob.h"
#include "output.h"
#include "restorefile.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { OPT_RESTORE_LEFTOVER = 256 };

static enum parse_result toggle_parse_args(const char *cmd, int argc,
					   char **argv, bool *restore_leftover)
{
	static const struct option longopts[] = {
		{ "restore-leftover", no_argument, NULL, OPT_RESTORE_LEFTOVER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == OPT_RESTORE_LEFTOVER) {
			*restore_leftover = true;
			continue;
		}
		if (c == 'h') {
			printf("Usage: vmpctl %s [options]\n\n"
			       "%s\n\n"
			       "Options:\n"
			       "      --restore-leftover  first put back the knobs that a vmpctl ab\n"
			       "                          which no longer runs left changed (its\n"
			       "                          restore files); without it they are named\n"
			       "  -h, --help              show this help\n", cmd,
			       strcmp(cmd, "enable") == 0 ?
			       "Set the knob to 1: stock vmpressure(), nothing hooked." :
			       "Set the knob to 0: vmpressure() returns at once, counted in skipped.");
			return PARSE_HELP;
		}
		return arg_bad_option(cmd, c, argv);
	}
	return arg_no_operands(cmd, argc, argv, optind);
}

/* Checks shared by everything that writes the knob; 0 or an exit code. */
int knob_write_preflight(const char *cmd)
{
	if (!vmp_module_loaded()) {
		vmpctl_error("%s is not loaded (try: modprobe %s)", VMP_MODULE_NAME,
			     VMP_MODULE_NAME);
		return EXIT_ENVIRONMENT;
	}
	if (geteuid() != 0) {
		vmpctl_error("%s: writing %s/enabled needs root: %s", cmd,
			     vmp_sysfs_dir, strerror(EACCES));
		return EXIT_ENVIRONMENT;
	}
	return 0;
}

static int set_knob(const char *cmd, int argc, char **argv, int wanted)
{
	bool restore_leftover = false;
	enum parse_result parsed;
	int before, err, rc;

	parsed = toggle_parse_args(cmd, argc, argv, &restore_leftover);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	/*
	 * Before the knob, which may be missing: a leftover may name another
	 * knob. Only a failed put-back stops here; a warning does not.
	 */
	rc = restore_file_leftovers(cmd, restore_leftover);
	if (rc && restore_leftover)
		return rc;
	rc = knob_write_preflight(cmd);
	if (rc)
		return rc;
	err = vmp_read_enabled(&before);
	if (err) {
		vmpctl_error("%s: reading %s/enabled: %s", cmd, vmp_sysfs_dir,
			     strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	err = vmp_write_enabled(wanted);
	if (err) {
		vmpctl_error("%s: writing %d to %s/enabled: %s", cmd, wanted,
			     vmp_sysfs_dir,
			     err == -EIO ? "the knob did not take the value" :
			     strerror(-err));
		return err == -EACCES || err == -EPERM ? EXIT_ENVIRONMENT :
		       EXIT_CHECK_FAILED;
	}
	printf("enabled: %d -> %d (%s)\n", before, wanted,
	       wanted ? "stock vmpressure" : "short-circuited");
	return 0;
}

int cmd_enable(int argc, char **argv)
{
	return set_knob("enable", argc, argv, 1);
}

int cmd_disable(int argc, char **argv)
{
	return set_knob("disable", argc, argv, 0);
}
