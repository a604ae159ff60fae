// SPDX-License-Identifier: GPL-2.0
/* vmpctl enable|on and vmpctl disable|off: flip the knob, read it back. */
#include "commands.h"
#include "knob.h"
#include "options.h"
#include "output.h"
#include "restorefile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void toggle_usage(FILE *out, const char *cmd, const char *what)
{
	fprintf(out, "Usage: vmpctl %s [options]\n\n"
		"%s\n\n"
		"Options:\n"
		"      --restore-leftover  first put back the knobs that a vmpctl ab\n"
		"                          which no longer runs left changed (its\n"
		"                          restore files); without it they are named\n"
		"  -h, --help              show this help\n", cmd, what);
}

static void enable_usage(FILE *out)
{
	toggle_usage(out, "enable",
		     "Set the knob to 1: stock vmpressure(), nothing hooked.");
}

static void disable_usage(FILE *out)
{
	toggle_usage(out, "disable",
		     "Set the knob to 0: vmpressure() returns at once, counted in skipped.");
}

static enum parse_result toggle_parse_args(const char *cmd, int argc,
					   char **argv, bool *restore_leftover)
{
	static const struct opt table[] = {
		{ "restore-leftover", 0, OPT_TRUE, 0, 0, 0, false, NULL },
	};
	const struct opt_parser parser = {
		.cmd = cmd, .table = table, .n_options = OPT_COUNT(table),
		.fields = restore_leftover,
		.usage = strcmp(cmd, "enable") == 0 ? enable_usage : disable_usage,
	};

	return opt_parse(&parser, argc, argv, NULL);
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
