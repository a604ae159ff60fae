// SPDX-License-Identifier: GPL-2.0
#include "check.h"
#include "commands.h"
#include "json.h"
#include "knob.h"
#include "knobfile.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const int check_phase_knob[CHECK_PHASES] = { 1, 0, 1 };
const char *const check_phase_name[CHECK_PHASES] = {
	"enabled", "disabled", "re-enabled"
};

bool check_judge(const struct measurement phase[CHECK_PHASES], char *reason,
		 size_t size)
{
	bool events = phase[0].levels != 0;
	bool throttled = phase[0].have_sock_throttled;
	bool traced = phase[0].have_work_fn;
	/* count_skipped=0 leaves the kernel's evidence alone to judge by. */
	bool counted = phase[0].have_skipped || phase[1].have_skipped ||
		       phase[2].have_skipped;
	char skipped[48] = "skipped not counted";
	int i;

	if (!counted && !events && !throttled && !traced) {
		snprintf(reason, size,
			 "no skipped count (module not loaded, or count_skipped=0) and no evidence of the kernel's to judge by");
		return false;
	}
	for (i = 0; i < CHECK_PHASES; i++) {
		if (!phase[i].have_skipped && counted) {
			snprintf(reason, size, "%s: no skipped count (module unloaded or reloaded?)",
				 check_phase_name[i]);
			return false;
		}
		if (phase[i].have_pgscan && phase[i].pgscan == 0) {
			snprintf(reason, size,
				 "%s: no pages scanned, so vmpressure never ran (no swap? raise --size)",
				 check_phase_name[i]);
			return false;
		}
		if (counted && check_phase_knob[i] == 0 && phase[i].skipped_delta == 0) {
			snprintf(reason, size, "%s: skipped did not grow: the short-circuit never ran",
				 check_phase_name[i]);
			return false;
		}
		if (counted && check_phase_knob[i] == 1 && phase[i].skipped_delta != 0) {
			snprintf(reason, size, "%s: skipped grew by %" PRIu64 " while stock",
				 check_phase_name[i], phase[i].skipped_delta);
			return false;
		}
		if (throttled && !phase[i].have_sock_throttled) {
			snprintf(reason, size, "%s: no sock_throttled count",
				 check_phase_name[i]);
			return false;
		}
		if (throttled && check_phase_knob[i] == 1 &&
		    phase[i].sock_throttled == 0) {
			snprintf(reason, size,
				 "%s: sock_throttled did not move: TCP never found socket pressure despite reclaim",
				 check_phase_name[i]);
			return false;
		}
		if (throttled && check_phase_knob[i] == 0 &&
		    phase[i].sock_throttled != 0) {
			snprintf(reason, size, "%s: sock_throttled grew by %" PRIu64 " while short-circuited",
				 check_phase_name[i], phase[i].sock_throttled);
			return false;
		}
		if (traced && !phase[i].have_work_fn) {
			snprintf(reason, size, "%s: no count of vmpressure's work",
				 check_phase_name[i]);
			return false;
		}
		if (traced && check_phase_knob[i] == 1 && phase[i].work_fn_runs == 0) {
			snprintf(reason, size,
				 "%s: vmpressure's work never ran: vmpressure() did not despite reclaim",
				 check_phase_name[i]);
			return false;
		}
		if (traced && check_phase_knob[i] == 0 && phase[i].work_fn_runs != 0) {
			snprintf(reason, size, "%s: vmpressure's work ran %" PRIu64 " times while short-circuited",
				 check_phase_name[i], phase[i].work_fn_runs);
			return false;
		}
		if (!events)
			continue;
		if (check_phase_knob[i] == 1 && measurement_events_total(&phase[i]) == 0) {
			snprintf(reason, size, "%s: no pressure events despite reclaim",
				 check_phase_name[i]);
			return false;
		}
		if (check_phase_knob[i] == 0 && measurement_events_total(&phase[i]) != 0) {
			snprintf(reason, size, "%s: %" PRIu64 " pressure events while short-circuited",
				 check_phase_name[i], measurement_events_total(&phase[i]));
			return false;
		}
	}
	if (counted)
		snprintf(skipped, sizeof(skipped), "skipped +%" PRIu64,
			 phase[1].skipped_delta);
	if (events)
		snprintf(reason, size,
			 "events while enabled (%" PRIu64 ", %" PRIu64
			 "), none while disabled (%s)",
			 measurement_events_total(&phase[0]),
			 measurement_events_total(&phase[2]), skipped);
	else if (throttled)
		snprintf(reason, size,
			 "TCP throttled by socket pressure while enabled (sock_throttled +%" PRIu64
			 ", +%" PRIu64 "), never while disabled (%s)",
			 phase[0].sock_throttled, phase[2].sock_throttled,
			 skipped);
	else if (traced)
		snprintf(reason, size,
			 "vmpressure's work ran while enabled (%" PRIu64 ", %" PRIu64
			 " times, the kernel's function tracer), never while disabled (%s)",
			 phase[0].work_fn_runs, phase[2].work_fn_runs, skipped);
	else
		snprintf(reason, size,
			 "no memory.pressure_level here: verified through skipped alone (+%" PRIu64 " while disabled, 0 while enabled)",
			 phase[1].skipped_delta);
	return true;
}

static void format_u64(char *buf, size_t size, bool have, uint64_t v)
{
	if (have)
		snprintf(buf, size, "%" PRIu64, v);
	else
		snprintf(buf, size, "-");
}

static const char *const events_headers[] = {
	"phase", "knob", "low", "medium", "critical", "skipped", "pgscan",
	"seconds", NULL
};

static const char *const socket_headers[] = {
	"phase", "knob", "sock_throttled", "work", "skipped", "pgscan",
	"TCP MB/s", "sndbuf", "rcvbuf", "retrans", "seconds", NULL
};

static const char *const *const check_tables[] = { events_headers, socket_headers, NULL };

/* cgroup v1: pressure events per level. */
static void print_events_table(FILE *out,
			       const struct measurement phase[CHECK_PHASES],
			       size_t phases_done)
{
	struct table t;
	size_t i;
	int l;

	/* everything but the phase name is a number: right-align */
	if (table_init(&t, events_headers, 0xfe))
		return;
	for (i = 0; i < phases_done; i++) {
		char cells[8][32];
		const char *row[8];

		snprintf(cells[0], sizeof(cells[0]), "%s", check_phase_name[i]);
		snprintf(cells[1], sizeof(cells[1]), "%d", check_phase_knob[i]);
		for (l = 0; l < PRESSURE_LEVELS; l++)
			format_u64(cells[2 + l], sizeof(cells[2 + l]),
				   phase[i].levels & (1u << l), phase[i].events[l]);
		format_u64(cells[5], sizeof(cells[5]), phase[i].have_skipped,
			   phase[i].skipped_delta);
		format_u64(cells[6], sizeof(cells[6]), phase[i].have_pgscan,
			   phase[i].pgscan);
		snprintf(cells[7], sizeof(cells[7]), "%.2f", phase[i].seconds);
		for (l = 0; l < 8; l++)
			row[l] = cells[l];
		if (table_add_row(&t, row))
			break;
	}
	table_print(&t, out);
	table_free(&t);
}

/* cgroup v2: what the loopback TCP next to the reclaim went through. */
static void print_socket_table(FILE *out,
			       const struct measurement phase[CHECK_PHASES],
			       size_t phases_done)
{
	enum { COLUMNS = 11 };
	struct table t;
	size_t i;
	int c;

	if (table_init(&t, socket_headers, 0x7fe))
		return;
	/* all eleven can be wider than TABLE_WIDTH: sndbuf tells the story */
	t.on_request = 1u << 8;
	for (i = 0; i < phases_done; i++) {
		const struct net_figures *f = &phase[i].net;
		char cells[COLUMNS][32];
		const char *row[COLUMNS];

		snprintf(cells[0], sizeof(cells[0]), "%s", check_phase_name[i]);
		snprintf(cells[1], sizeof(cells[1]), "%d", check_phase_knob[i]);
		format_u64(cells[2], sizeof(cells[2]),
			   phase[i].have_sock_throttled, phase[i].sock_throttled);
		format_u64(cells[3], sizeof(cells[3]), phase[i].have_work_fn,
			   phase[i].work_fn_runs);
		format_u64(cells[4], sizeof(cells[4]), phase[i].have_skipped,
			   phase[i].skipped_delta);
		format_u64(cells[5], sizeof(cells[5]), phase[i].have_pgscan,
			   phase[i].pgscan);
		snprintf(cells[6], sizeof(cells[6]), "%.2f",
			 net_throughput(f) / 1e6);
		format_u64(cells[7], sizeof(cells[7]), true, f->sndbuf_max);
		format_u64(cells[8], sizeof(cells[8]), true, f->rcvbuf_max);
		format_u64(cells[9], sizeof(cells[9]), true, f->retrans);
		snprintf(cells[10], sizeof(cells[10]), "%.2f", phase[i].seconds);
		for (c = 0; c < COLUMNS; c++)
			row[c] = cells[c];
		if (table_add_row(&t, row))
			break;
	}
	table_print(&t, out);
	table_free(&t);
}

void check_print_table(FILE *out, const struct measurement phase[CHECK_PHASES],
		       size_t phases_done)
{
	if (phases_done && phase[0].have_net)
		print_socket_table(out, phase, phases_done);
	else
		print_events_table(out, phase, phases_done);
}

int check_print_json(FILE *out, const struct measurement phase[CHECK_PHASES],
		     bool pass, const char *reason)
{
	json_t *doc = json_object(), *phases = json_array();
	int i;

	for (i = 0; i < CHECK_PHASES; i++) {
		json_t *p = json_object();

		json_put(p, "phase", json_text(check_phase_name[i]));
		json_put(p, "knob", json_integer(check_phase_knob[i]));
		json_put(p, "measurement", measurement_json(&phase[i]));
		json_append(phases, p);
	}
	json_put(doc, "phases", phases);
	json_put(doc, "pass", json_boolean(pass));
	json_put(doc, "reason", json_text(reason));
	return json_print_line(out, doc);
}

static int run_phases(struct measure_session *s, struct knob *knob,
		      struct measurement phase[CHECK_PHASES], size_t *done)
{
	int err, rc, now, i;

	for (i = 0; i < CHECK_PHASES; i++) {
		err = knob_set(knob, check_phase_knob[i] ? "1" : "0");
		if (!err)
			err = vmp_read_enabled(&now);
		if (err || now != check_phase_knob[i]) {
			vmpctl_error("check: writing %d to %s: %s",
				     check_phase_knob[i], knob->path,
				     err ? knob->why : "the knob did not take the value");
			return EXIT_CHECK_FAILED;
		}
		rc = measure_run(s, &phase[i]);
		if (rc)
			return rc;
		*done = i + 1;
		if (stop_requested())
			return EXIT_CHECK_FAILED;
	}
	return 0;
}

/* Puts the knob back; 0 or EXIT_RESTORE_FAILED (printed). */
static int restore(struct knob *knob, char *said, size_t size,
		   bool cgroup_removed)
{
	char found[64];
	int err = knob_restore(knob);

	knob_found_display(knob, found, sizeof(found));
	snprintf(said, size, "knob %s to %s, cgroup %s",
		 err ? "NOT restored" : "restored", found,
		 cgroup_removed ? "removed" : "NOT removed");
	if (!err)
		return 0;
	vmpctl_error("check: KNOB NOT RESTORED: %s was '%s' and %s", knob->path,
		     found, knob->why);
	return EXIT_RESTORE_FAILED;
}

static void check_usage(FILE *out)
{
	measure_print_usage(out, "check",
			    "Prove the knob: measure reclaim with the knob at 1, 0 and 1 again.\n"
			    "Exit 0 only when pressure events arrive while enabled, none while\n"
			    "disabled (with skipped growing), and they come back when re-enabled.\n"
			    "On cgroup v2, loopback TCP runs in the cgroup next to the reclaim, and\n"
			    "where memory.events counts sock_throttled it must grow while enabled\n"
			    "and stay still while disabled; where it does not, the kernel's\n"
			    "function tracer must see vmpressure's work item run while enabled\n"
			    "and never while disabled.",
			    "object",
			    "      --raw           the table with one space between cells\n"
			    "      --noheadings    the table without its header line\n"
			    "      --output COLUMNS  only these columns, in this order (names:\n"
			    "                      COLUMNS in vmpctl(1); rcvbuf only when named)\n");
}

enum parse_result check_parse_args(int argc, char **argv,
				   struct measure_opts *opts)
{
	static const struct opt table[] = { MEASURE_OPTIONS, OPT_TABLE_FORMAT };
	const struct opt_parser parser = {
		.cmd = "check", .table = table, .n_options = OPT_COUNT(table),
		.fields = opts, .tables = check_tables, .usage = check_usage,
	};

	return measure_parse_options(&parser, argc, argv, opts);
}

int cmd_check(int argc, char **argv)
{
	struct measurement phase[CHECK_PHASES];
	struct measure_session s;
	struct measure_opts opts;
	struct knob knob;
	char path[4096], reason[256], said[192];
	size_t done = 0;
	enum parse_result parsed;
	int rc, close_rc, restore_rc, err;
	bool pass;

	parsed = check_parse_args(argc, argv, &opts);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	rc = knob_write_preflight("check");
	if (rc)
		return rc;
	stop_signals_install();
	err = vmp_attr_path(path, sizeof(path), "enabled");
	if (err) {
		vmpctl_error("check: %s/enabled: %s", vmp_sysfs_dir, strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	err = knob_open(&knob, path);
	if (err) {
		vmpctl_error("check: %s %s", path, knob.why);
		return EXIT_ENVIRONMENT;
	}
	rc = measure_open(&s, &opts, "check");
	if (rc) {
		knob_close(&knob);
		return rc;
	}
	if (s.events_error == -ENOENT)
		fprintf(opts.json ? stderr : stdout,
			"vmpctl: check: no memory.pressure_level in %s (cgroup v%d%s): verifying through %s\n",
			s.cg.path, s.cg.version,
			s.cg.version == 2 ? ", reclaim forced by memory.max" : "",
			s.have_sock_throttled ? "socket pressure on loopback TCP (memory.events sock_throttled) and skipped" :
			s.have_work_trace ? "vmpressure's work item, counted by the kernel's function tracer (this kernel has no sock_throttled), and skipped" :
			s.socket_load ? "skipped (this kernel has no sock_throttled), with loopback TCP figures" :
			"skipped alone");

	memset(phase, 0, sizeof(phase));
	rc = run_phases(&s, &knob, phase, &done);
	close_rc = measure_close(&s);
	restore_rc = restore(&knob, said, sizeof(said), close_rc == 0);
	knob_close(&knob);
	if (stop_requested()) {
		if (!opts.json && done)
			check_print_table(stdout, phase, done);
		fflush(stdout);
		if (restore_rc) {
			vmpctl_error("check: interrupted; %s", said);
			return restore_rc;
		}
		measure_report_interrupt("check", said);
		return EXIT_CHECK_FAILED;
	}
	if (rc) {
		if (!opts.json && done)
			check_print_table(stdout, phase, done);
		return restore_rc ? restore_rc : rc;
	}
	pass = check_judge(phase, reason, sizeof(reason));
	if (opts.json) {
		err = check_print_json(stdout, phase, pass, reason);
		if (err) {
			vmpctl_error("check: writing JSON: %s", strerror(-err));
			return restore_rc ? restore_rc : EXIT_CHECK_FAILED;
		}
	} else {
		check_print_table(stdout, phase, CHECK_PHASES);
		if (!memcg_pgscan_is_local(&s.cg))
			printf("(pgscan: system-wide /proc/vmstat delta; cgroup v1 has no per-memcg scan counter)\n");
		if (phase[0].have_net)
			printf("(loopback TCP in the cgroup%s during the reclaim; work: runs of vmpressure_work_fn by the kernel's function tracer; sndbuf, rcvbuf: largest SO_SNDBUF of the sender, SO_RCVBUF of the receiver)\n",
			       phase[0].net.private_netns ? ", in a network namespace of its own," : "");
		printf("check: %s: %s\n", pass ? "PASS" : "FAIL", reason);
	}
	if (restore_rc)
		return restore_rc;
	if (!pass)
		return EXIT_CHECK_FAILED;
	return close_rc;
}
