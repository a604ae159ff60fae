// SPDX-License-Identifier: GPL-2.0
#include "net.h"
#include "commands.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

static void net_usage(FILE *out)
{
	fprintf(out,
		"Usage: vmpctl net [options]\n"
		"Loopback TCP in a temporary memory cgroup held at its limit by a reclaim\n"
		"hog: throughput, retransmits and socket buffers, as cgroup v2's socket\n"
		"pressure (raised by vmpressure) leaves them.\n"
		"\n"
		"  -c, --cgroup PATH   run in this memory cgroup instead of a temporary one\n"
		"  -L, --limit SIZE    limit of the temporary cgroup (default %lluM)\n"
		"  -s, --size SIZE     memory the hog touches (default 1.5 x --limit)\n"
		"  -t, --seconds S     how long the hog and the TCP stream run (default %.0f)\n"
		"  -j, --json          one JSON object instead of the table\n"
		"      --raw           the table with one space between cells\n"
		"      --noheadings    the table without its header line\n"
		"      --output COLUMNS  only these columns, in this order (names:\n"
		"                      COLUMNS in vmpctl(1); sndbuf-last and\n"
		"                      rcv-ssthresh print only when named)\n"
		"  -h, --help          this text\n"
		"\n"
		"SIZE: MiB, or with a K, M, G or T suffix (64, 64M, 1G). Needs root and swap.\n"
		"A/B: vmpctl ab --metric '\"MB/s\":([0-9.]+)' --metric-name MB/s -- vmpctl net --json\n",
		NET_LIMIT_DEFAULT >> 20, NET_SECONDS_DEFAULT);
}

static const char *const net_headers[] = {
	"limit(M)", "hog(M)", "seconds", "MB/s", "retrans", "sndbuf",
	"sndbuf_last", "rcvbuf", "rcv_ssthresh", "ssthresh_cuts",
	"sock_throttled", NULL
};
const char *const *const net_tables[] = { net_headers, NULL };

enum parse_result net_parse_args(int argc, char **argv,
				 struct net_options *opts)
{
	static const struct opt table[] = {
		{ "cgroup", 'c', OPT_TEXT, offsetof(struct net_options, cgroup), 0, 0, false, NULL },
		{ "limit", 'L', OPT_SIZE, offsetof(struct net_options, limit), 0, 0, false, NULL },
		{ "size", 's', OPT_SIZE, offsetof(struct net_options, size), 0, 0, false, NULL },
		{ "seconds", 't', OPT_SECONDS, offsetof(struct net_options, seconds), 0, 0, false,
		  NULL },
		{ "json", 'j', OPT_TRUE, offsetof(struct net_options, json), 0, 0, false, NULL },
		OPT_TABLE_FORMAT,
	};
	const struct opt_parser parser = {
		.cmd = "net", .table = table, .n_options = OPT_COUNT(table),
		.fields = opts, .tables = net_tables, .usage = net_usage,
	};
	enum parse_result parsed;

	*opts = (struct net_options){
		.limit = NET_LIMIT_DEFAULT,
		.seconds = NET_SECONDS_DEFAULT,
	};
	parsed = opt_parse(&parser, argc, argv, NULL);
	if (parsed != PARSE_RUN)
		return parsed;
	if (opts->seconds <= 0) {
		vmpctl_error("net: --seconds must be above 0");
		return PARSE_USAGE;
	}
	if (!opts->size)
		opts->size = opts->limit + opts->limit / 2;
	return PARSE_RUN;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / (double)(1ULL << 20);
}

void net_print_table(FILE *out, const struct net_options *opts,
		     const struct measurement *m)
{
	enum { COLUMNS = 11 };
	const struct net_figures *f = &m->net;
	char cells[COLUMNS][32];
	const char *row[COLUMNS];
	struct table t;
	int i;

	snprintf(cells[0], sizeof(cells[0]), "%.0f", mib(opts->limit));
	snprintf(cells[1], sizeof(cells[1]), "%.0f", mib(opts->size));
	snprintf(cells[2], sizeof(cells[2]), "%.2f", f->seconds);
	snprintf(cells[3], sizeof(cells[3]), "%.2f", net_throughput(f) / 1e6);
	snprintf(cells[4], sizeof(cells[4]), "%llu", (unsigned long long)f->retrans);
	snprintf(cells[5], sizeof(cells[5]), "%llu", (unsigned long long)f->sndbuf_max);
	snprintf(cells[6], sizeof(cells[6]), "%llu", (unsigned long long)f->sndbuf_last);
	snprintf(cells[7], sizeof(cells[7]), "%llu", (unsigned long long)f->rcvbuf_max);
	if (f->rcv_ssthresh_min)
		snprintf(cells[8], sizeof(cells[8]), "%llu",
			 (unsigned long long)f->rcv_ssthresh_min);
	else
		snprintf(cells[8], sizeof(cells[8]), "-");
	snprintf(cells[9], sizeof(cells[9]), "%llu",
		 (unsigned long long)f->rcv_ssthresh_drops);
	if (m->have_sock_throttled)
		snprintf(cells[10], sizeof(cells[10]), "%llu",
			 (unsigned long long)m->sock_throttled);
	else
		snprintf(cells[10], sizeof(cells[10]), "-");
	for (i = 0; i < COLUMNS; i++)
		row[i] = cells[i];
	if (table_init(&t, net_headers, 0x7ff) || table_add_row(&t, row)) {
		table_free(&t);
		return;
	}
	/* all eleven are wider than TABLE_WIDTH: sndbuf and ssthresh_cuts tell the story */
	t.on_request = 1u << 6 | 1u << 8;
	table_print(&t, out);
	table_free(&t);
}

int net_print_json(FILE *out, const struct net_options *opts,
		   const struct measurement *m)
{
	/* the figures as check and measure print them, then net's own */
	json_t *o = net_figures_json(&m->net);

	json_put(o, "MB/s", json_real_or_null(net_throughput(&m->net) / 1e6));
	json_put(o, "limit", json_count(opts->limit));
	json_put(o, "size", json_count(opts->size));
	json_put(o, "sock_throttled", m->have_sock_throttled ?
		 json_count(m->sock_throttled) : json_null());
	json_put(o, "cgroup_version", json_integer(m->cgroup_version));
	return json_print_line(out, o);
}

int cmd_net(int argc, char **argv)
{
	struct net_options opts;
	struct measure_opts mopts = { 0 };
	struct measure_session s;
	struct measurement m;
	enum parse_result parsed = net_parse_args(argc, argv, &opts);
	int rc, close_rc;

	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	mopts.cgroup = opts.cgroup;
	mopts.limit = opts.limit;
	mopts.size = opts.size;
	mopts.seconds = opts.seconds;
	stop_signals_install();
	rc = measure_open(&s, &mopts, "net");
	if (rc)
		return rc;
	/* on cgroup v1 too: the figures then show TCP without socket pressure */
	s.socket_load = true;
	rc = measure_run(&s, &m);
	close_rc = measure_close(&s);
	if (stop_requested())
		measure_report_interrupt("net", "cgroup removed");
	if (rc)
		return rc;
	if (opts.json) {
		int err = net_print_json(stdout, &opts, &m);

		if (err) {
			vmpctl_error("net: writing JSON: %s", strerror(-err));
			return EXIT_CHECK_FAILED;
		}
	} else {
		net_print_table(stdout, &opts, &m);
	}
	return close_rc;
}
