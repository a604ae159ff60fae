// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab's report exports (see export.h). */
#include "export.h"
#include "output.h"

#include <errno.h>
#include <string.h>

static int write_export(const char *option, const char *path, ab_print_fn print,
			const void *report, enum ab_format format)
{
	FILE *out;
	int err;

	if (!path)
		return 0;
	out = fopen(path, "we");
	if (!out) {
		vmpctl_error("ab: %s: %s cannot be written: %s", option, path,
			     strerror(errno));
		return -1;
	}
	err = print(out, report, format);
	if (ferror(out) && !err)
		err = -EIO;
	if (fclose(out) && !err)
		err = -errno;
	if (err) {
		vmpctl_error("ab: %s: writing %s: %s", option, path, strerror(-err));
		return -1;
	}
	return 0;
}

int ab_write_exports(const struct ab_options *o, ab_print_fn print,
		     const void *report)
{
	int failed = 0;

	failed |= write_export("--export-json", o->export_json, print, report,
			       AB_FORMAT_JSON);
	failed |= write_export("--export-csv", o->export_csv, print, report,
			       AB_FORMAT_CSV);
	failed |= write_export("--export-markdown", o->export_markdown, print,
			       report, AB_FORMAT_MARKDOWN);
	return failed ? -1 : 0;
}
