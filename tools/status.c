// SPDX-License-Identifier: GPL-2.0
/* vmpctl status: the knob, the module and the cgroup layout at a glance. */
#include "args.h"
#include "commands.h"
#include "json.h"
#include "knob.h"
#include "output.h"
#include "status.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
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

/* NULL or "" is null */
static json_t *text_or_null(const char *s)
{
	return s && *s ? json_text(s) : json_null();
}

/* targets is space-separated here: one JSON string per word. */
static json_t *targets_json(const char *targets)
{
	json_t *list = json_array();
	char *copy = strdup(targets), *word, *save = NULL;

	if (!copy) {
		json_decref(list);
		return NULL;
	}
	for (word = strtok_r(copy, " ", &save); word;
	     word = strtok_r(NULL, " ", &save))
		json_append(list, json_text(word));
	free(copy);
	return list;
}

int status_print_json(FILE *out, const struct status *st)
{
	json_t *o = json_object();

	json_put(o, "loaded", json_boolean(st->loaded));
	if (st->readable) {
		json_put(o, "enabled", json_integer(st->module.enabled));
		json_put(o, "method", json_text(st->module.method));
		json_put(o, "skipped", json_count(st->module.skipped));
		json_put(o, "targets", targets_json(st->module.targets));
	} else {
		json_put(o, "enabled", json_null());
		json_put(o, "method", json_null());
		json_put(o, "skipped", json_null());
		json_put(o, "targets", json_null());
	}
	json_put(o, "kernel", text_or_null(st->kernel));
	json_put(o, "cgroup_v1_memory", text_or_null(st->layout.v1_memory));
	json_put(o, "cgroup2", text_or_null(st->layout.v2_root));
	json_put(o, "cgroup2_memory", json_boolean(st->v2_memory));
	json_put(o, "pressure_level", json_boolean(st->pressure_level));
	return json_print_line(out, o);
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
			printf("Usage: vmpctl status [options]\n\n"
			       "Show the knob, backend, skipped count and targets of %s,\n"
			       "the kernel release, the cgroup layout and whether\n"
			       "memory.pressure_level is available.\n"
			       "\n"
			       "Options:\n"
			       "  -j, --json   one JSON object instead of text\n"
			       "  -h, --help   show this help\n", VMP_MODULE_NAME);
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
	if (json) {
		int err = status_print_json(stdout, &st);

		if (err) {
			vmpctl_error("status: writing JSON: %s", strerror(-err));
			return EXIT_CHECK_FAILED;
		}
	} else {
		status_print_text(stdout, &st);
	}
	return st.loaded && !st.readable ? EXIT_CHECK_FAILED : 0;
}
