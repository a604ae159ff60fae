// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab's report exports (see export.h). */
#include "export.h"
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

/* Prints what in format; 0 or -errno. */
typedef int (*print_fn)(FILE *out, const void *what, enum ab_format format);

static int write_export(const char *option, const char *path, print_fn print,
			const void *what, enum ab_format format)
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
	err = print(out, what, format);
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

/* A Go benchmark unit: one word, so spaces become '_'. */
static void put_unit(FILE *out, const char *name)
{
	for (; *name; name++)
		fputc(isspace((unsigned char)*name) ? '_' : *name, out);
}

/*
 * Go's benchmark data format: "key: value" configuration lines, then one
 * "BenchmarkNAME ITERATIONS VALUE UNIT..." line per sample the design
 * gives (a whole run, or a kept slice). The arm is a sub-benchmark key
 * (/arm=A), which benchstat -col /arm compares. A print_fn, the format
 * unused.
 */
static int print_benchstat(FILE *out, const void *result, enum ab_format format)
{
	const struct ab_result *r = result;
	const struct ab_options *o = r->opts;
	const struct ab_design_sections *design = ab_result_sections(r);
	struct ab_benchstat_sample sample;
	size_t pos = 0;

	(void)format;
	fprintf(out, "knob: %s\nvalue-a: %s\nvalue-b: %s\ncommand:", r->knob_path,
		o->value_a, o->value_b);
	for (char **arg = o->cmd; arg && *arg; arg++)
		fprintf(out, " %s", *arg);
	fputc('\n', out);
	while (design->next_sample(r, &pos, &sample)) {
		fprintf(out, "BenchmarkAB/arm=%s\t1", ab_arm_name(sample.arm));
		for (size_t i = 0; i < sample.n; i++) {
			fprintf(out, "\t%.10g ", sample.values[i]);
			put_unit(out, sample.units[i]);
		}
		fputc('\n', out);
	}
	return 0;
}

static int print_result(FILE *out, const void *result, enum ab_format format)
{
	return ab_result_print_as(out, result, format);
}

int ab_result_export(const struct ab_result *r)
{
	const struct ab_options *o = r->opts;
	int failed = 0;

	failed |= write_export("--export-json", o->export_json, print_result, r,
			       AB_FORMAT_JSON);
	failed |= write_export("--export-csv", o->export_csv, print_result, r,
			       AB_FORMAT_CSV);
	failed |= write_export("--export-markdown", o->export_markdown, print_result,
			       r, AB_FORMAT_MARKDOWN);
	if (failed)
		return -1;
	return write_export("--export-benchstat", o->export_benchstat,
			    print_benchstat, r, AB_FORMAT_TABLE);
}
