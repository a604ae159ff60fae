// SPDX-License-Identifier: GPL-2.0
/* vmpctl status: the knob, the module and the cgroup layout at a glance. */
#include "commands.h"
#include "fileio.h"
#include "json.h"
#include "knob.h"
#include "netload.h"
#include "options.h"
#include "output.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

bool cmdline_disables_socket_accounting(const char *cmdline)
{
	static const char key[] = "cgroup.memory=";
	const char *p = cmdline;

	while ((p = strstr(p, key))) {
		bool word_start = p == cmdline || p[-1] == ' ';
		const char *v = p + strlen(key);

		p = v;
		if (!word_start)
			continue;
		/* a comma-separated list: nosocket, nokmem, nobpf */
		while (*v && *v != ' ' && *v != '\n') {
			size_t len = strcspn(v, ", \n");

			if (len == 8 && strncmp(v, "nosocket", 8) == 0)
				return true;
			v += len;
			if (*v == ',')
				v++;
		}
	}
	return false;
}

int status_gather_sockets(struct status *st, const char *cgroup)
{
	struct memcg cg;
	int err;

	snprintf(st->sock_cgroup, sizeof(st->sock_cgroup), "%s", cgroup);
	err = memcg_open_existing(cgroup, &cg);
	if (!err && cg.version != 2)
		err = -EPROTONOSUPPORT;
	if (!err) {
		err = memcg_read_sock_throttled(&cg, &st->sock_throttled);
		st->sock_cgroup_read = err == 0 || err == -ENOENT;
		st->has_sock_throttled = err == 0;
		if (err == -ENOENT)
			err = 0;
	}
	return err;
}

/* The first child of the cgroup2 root with memory.events (the root has none). */
static void gather_sockets_from_a_child(struct status *st)
{
	DIR *dir = opendir(st->layout.v2_root);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX], events[PATH_MAX];

		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    path_join(path, sizeof(path), st->layout.v2_root, e->d_name) ||
		    path_join(events, sizeof(events), path, "memory.events") ||
		    access(events, R_OK))
			continue;
		if (status_gather_sockets(st, path) == 0)
			break;
	}
	closedir(dir);
	if (!st->sock_cgroup_read)
		st->sock_cgroup[0] = '\0';
}

void status_gather(struct status *st)
{
	char cmdline[4096];

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
	if (st->v2_memory && !st->layout.v1_memory[0]) {
		st->socket_accounting =
			read_text_file("/proc/cmdline", cmdline, sizeof(cmdline)) ||
			!cmdline_disables_socket_accounting(cmdline);
		gather_sockets_from_a_child(st);
	}
}

/* cgroup v2 carries the memory controller (the v1 one is not mounted). */
static bool cgroup_v2_in_use(const struct status *st)
{
	return st->v2_memory && !st->layout.v1_memory[0];
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
		json_put(o, "resident", json_boolean(st->module.resident));
		json_put(o, "skipped", st->module.counts_skipped ?
			 json_count(st->module.skipped) : json_null());
		json_put(o, "count_skipped", json_boolean(st->module.counts_skipped));
		json_put(o, "targets", targets_json(st->module.targets));
	} else {
		json_put(o, "enabled", json_null());
		json_put(o, "method", json_null());
		json_put(o, "resident", json_null());
		json_put(o, "skipped", json_null());
		json_put(o, "count_skipped", json_null());
		json_put(o, "targets", json_null());
	}
	json_put(o, "kernel", text_or_null(st->kernel));
	json_put(o, "cgroup_v1_memory", text_or_null(st->layout.v1_memory));
	json_put(o, "cgroup2", text_or_null(st->layout.v2_root));
	json_put(o, "cgroup2_memory", json_boolean(st->v2_memory));
	json_put(o, "pressure_level", json_boolean(st->pressure_level));
	json_put(o, "socket_accounting", cgroup_v2_in_use(st) ?
		 json_boolean(st->socket_accounting) : json_null());
	json_put(o, "sock_throttled_cgroup", text_or_null(st->sock_cgroup));
	json_put(o, "sock_throttled", !st->sock_cgroup_read ? json_null() :
		 st->has_sock_throttled ? json_count(st->sock_throttled) :
		 json_false());
	return json_print_line(out, o);
}

void status_print_text(FILE *out, const struct status *st)
{
	fprintf(out, "module:          %s\n", st->loaded ? "loaded" : "not loaded");
	if (st->readable) {
		fprintf(out, "enabled:         %d (%s)\n", st->module.enabled,
			st->module.enabled ? "stock vmpressure" : "short-circuited");
		fprintf(out, "method:          %s%s\n", st->module.method,
			st->module.resident ?
			" (resident: hooked from load to unload, the knob a flag)" : "");
		if (st->module.counts_skipped)
			fprintf(out, "skipped:         %llu\n",
				(unsigned long long)st->module.skipped);
		else
			fprintf(out, "skipped:         not counted (loaded with count_skipped=0)\n");
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
	if (!cgroup_v2_in_use(st))
		return;
	fprintf(out, "socket memory:   %s\n", st->socket_accounting ?
		"charged to memory cgroups (vmpressure raises their socket pressure)" :
		"not charged (cgroup.memory=nosocket): the knob cannot change TCP");
	if (!st->sock_cgroup_read)
		fprintf(out, "sock_throttled:  unknown (no memory cgroup below %s to ask; try --cgroup)\n",
			st->layout.v2_root);
	else if (st->has_sock_throttled)
		fprintf(out, "sock_throttled:  %llu in %s\n",
			(unsigned long long)st->sock_throttled, st->sock_cgroup);
	else
		fprintf(out, "sock_throttled:  not counted by this kernel (memory.events of %s)\n",
			st->sock_cgroup);
}

static void status_usage(FILE *out)
{
	fprintf(out, "Usage: vmpctl status [options]\n\n"
		"Show the knob, backend (and whether it is resident), skipped\n"
		"count and targets of %s,\n"
		"the kernel release, the cgroup layout and whether\n"
		"memory.pressure_level is available; on cgroup v2, whether\n"
		"socket memory is charged to memory cgroups and whether the\n"
		"kernel counts sock_throttled (asked of --cgroup, else of a\n"
		"child of the cgroup2 root).\n"
		"\n"
		"Options:\n"
		"  -c, --cgroup PATH  the cgroup-v2 memory cgroup to ask\n"
		"  -j, --json         one JSON object instead of text\n"
		"  -h, --help         show this help\n", VMP_MODULE_NAME);
}

struct status_opts {
	const char *cgroup;
	bool json;
};

int cmd_status(int argc, char **argv)
{
	static const struct opt table[] = {
		{ "cgroup", 'c', OPT_TEXT, offsetof(struct status_opts, cgroup), 0, 0, false, NULL },
		{ "json", 'j', OPT_TRUE, offsetof(struct status_opts, json), 0, 0, false, NULL },
	};
	struct status_opts opts = { 0 };
	const struct opt_parser parser = {
		.cmd = "status", .table = table, .n_options = OPT_COUNT(table),
		.fields = &opts, .usage = status_usage,
	};
	const char *cgroup;
	enum parse_result parsed;
	struct status st;
	bool json;
	int err;

	parsed = opt_parse(&parser, argc, argv, NULL);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	cgroup = opts.cgroup;
	json = opts.json;
	status_gather(&st);
	if (cgroup) {
		err = status_gather_sockets(&st, cgroup);
		if (err) {
			vmpctl_error("status: %s: %s", cgroup,
				     err == -EPROTONOSUPPORT ? "not a cgroup-v2 cgroup" :
				     err == -ENODEV ? "not a memory cgroup" :
				     strerror(-err));
			return EXIT_ENVIRONMENT;
		}
	}
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
