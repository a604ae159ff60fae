// SPDX-License-Identifier: GPL-2.0
/* vmpctl status: the knob, the module and the cgroup layout at a glance. */
#include "args.h"
#include "commands.h"
#include "knob.h"
#include "output.h"
#include "status.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

void status_gather(struct status *st)
{
	struct utsname uts;

	memset(st, 0, sizeof(*st));
	st->loaded = vmp_module_loaded();
	st->readable = st->loaded && vmp_read_state(&st->module) == 0;
	if (uname(&uts) == 0)
		snprintf(st->kernel, sizeof(st->kernel), "%s", uts.release);
	if (cgroup_layout_detect(&st->layout) == 0) {
		st->v2_memory = cgroup_v2_has_memory(&st->layout);
		if (st->layout.v1_memory[0]) {
			struct memcg root;

			if (memcg_open_existing(st->layout.v1_memory, &root) == 0)
				st->pressure_level = memcg_has_pressure_level(&root);
		}
	}
}

static const char *cgroup_summary(const struct status *st)
{
	if (st->layout.v1_memory[0])
		return "v1 memory controller";
	if (st->v2_memory)
		return "cgroup2 with memory controller";
	return "no memory controller";
}

static void json_string_or_null(FILE *out, const char *s)
{
	if (s && *s)
		json_write_string(out, s);
	else
		fputs("null", out);
}

/* targets is space-separated here: one JSON string per word. */
static void write_targets_json(FILE *out, const char *targets)
{
	const char *p = targets + strspn(targets, " ");
	bool first = true;

	while (*p) {
		char word[128];
		size_t n = strcspn(p, " ");

		if (n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			fputs(first ? "" : ",", out);
			json_write_string(out, word);
			first = false;
		}
		p += n;
		p += strspn(p, " ");
	}
}

void status_print_json(FILE *out, const struct status *st)
{
	fprintf(out, "{\"loaded\":%s,", st->loaded ? "true" : "false");
	if (st->readable) {
		fprintf(out, "\"enabled\":%d,\"method\":", st->module.enabled);
		json_write_string(out, st->module.method);
		fprintf(out, ",\"skipped\":%llu,\"targets\":[",
			(unsigned long long)st->module.skipped);
		write_targets_json(out, st->module.targets);
		fputs("],", out);
	} else {
		fputs("\"enabled\":null,\"method\":null,\"skipped\":null,\"targets\":null,", out);
	}
	fputs("\"kernel\":", out);
	json_string_or_null(out, st->kernel);
	fputs(",\"cgroup_v1_memory\":", out);
	json_string_or_null(out, st->layout.v1_memory);
	fputs(",\"cgroup2\":", out);
	json_string_or_null(out, st->layout.v2_root);
	fprintf(out, ",\"cgroup2_memory\":%s,\"pressure_level\":%s}\n",
		st->v2_memory ? "true" : "false",
		st->pressure_level ? "true" : "false");
}

void status_print_text(FILE *out, const struct status *st)
{
	fprintf(out, "module:          %s\n", st->loaded ? "loaded" : "not loaded");
	if (st->readable) {
		fprintf(out, "enabled:         %d (%s)\n", st->module.enabled,
			st->module.enabled ? "stock vmpressure" : "short-circuited");
		fprintf(out, "method:          %s\n", st->module.method);
		fprintf(out, "skipped:         %llu\n",
			(unsigned long long)st->module.skipped);
		fprintf(out, "targets:         %s\n", st->module.targets);
	}
	fprintf(out, "kernel:          %s\n", st->kernel);
	fprintf(out, "cgroup:          %s\n", cgroup_summary(st));
	if (st->layout.v1_memory[0])
		fprintf(out, "  v1 memory:     %s\n", st->layout.v1_memory);
	if (st->layout.v2_root[0])
		fprintf(out, "  cgroup2:       %s (memory controller %s)\n",
			st->layout.v2_root, st->v2_memory ? "available" : "not available");
	fprintf(out, "pressure_level:  %s\n", st->pressure_level ? "available" :
		st->layout.v1_memory[0] ? "not available" :
		"not available (no cgroup-v1 memory hierarchy)");
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct status st;
	bool json = false;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("Usage: vmpctl status [--json]\n\n"
			       "Show the knob, backend, skipped count and targets of %s,\n"
			       "the kernel release, the cgroup layout and whether\n"
			       "memory.pressure_level is available.\n", VMP_MODULE_NAME);
			return 0;
		default:
			arg_bad_option("status", c, argv);
			return EXIT_USAGE;
		}
	}
	if (arg_no_operands("status", argc, argv, optind) != PARSE_RUN)
		return EXIT_USAGE;
	status_gather(&st);
	if (st.loaded && !st.readable)
		vmpctl_error("status: reading %s: %s", vmp_sysfs_dir,
			     "attributes missing or malformed");
	if (json)
		status_print_json(stdout, &st);
	else
		status_print_text(stdout, &st);
	return st.loaded && !st.readable ? EXIT_CHECK_FAILED : 0;
}
