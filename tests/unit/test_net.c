// SPDX-License-Identifier: GPL-2.0
/* vmpctl net: option parsing, its table and its JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "net.h"
#include "output.h"

static enum parse_result parse(struct net_options *opts, int argc,
			       const char **argv)
{
	return net_parse_args(argc, (char **)argv, opts);
}

static void test_parse_args(void **state)
{
	const char *defaults[] = { "net", NULL };
	const char *full[] = { "net", "--limit", "32M", "--size", "80M",
			       "--seconds", "2.5", "--json", NULL };
	const char *shorts[] = { "net", "-L", "16", "-t", "1", "-j", "-c", "/cg", NULL };
	const char *zero_seconds[] = { "net", "-t", "0", NULL };
	const char *bad_size[] = { "net", "-s", "lots", NULL };
	const char *stray[] = { "net", "extra", NULL };
	const char *unknown[] = { "net", "--frobnicate", NULL };
	const char *no_value[] = { "net", "--limit", NULL };
	struct net_options o;

	(void)state;
	assert_int_equal(parse(&o, 1, defaults), PARSE_RUN);
	assert_int_equal(o.limit, 64ULL << 20);
	assert_int_equal(o.size, 96ULL << 20);
	assert_true(o.seconds == 6.0);
	assert_false(o.json);
	assert_null(o.cgroup);

	assert_int_equal(parse(&o, 8, full), PARSE_RUN);
	assert_int_equal(o.limit, 32ULL << 20);
	assert_int_equal(o.size, 80ULL << 20);
	assert_true(o.seconds == 2.5);
	assert_true(o.json);

	/* a bare number is MiB; the hog follows the limit */
	assert_int_equal(parse(&o, 8, shorts), PARSE_RUN);
	assert_string_equal(o.cgroup, "/cg");
	assert_int_equal(o.limit, 16ULL << 20);
	assert_int_equal(o.size, 24ULL << 20);
	assert_true(o.seconds == 1.0);
	assert_true(o.json);

	assert_int_equal(parse(&o, 3, zero_seconds), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, bad_size), PARSE_USAGE);
	assert_int_equal(parse(&o, 2, stray), PARSE_USAGE);
	assert_int_equal(parse(&o, 2, unknown), PARSE_USAGE);
	assert_int_equal(parse(&o, 2, no_value), PARSE_USAGE);
}

static void sample(struct net_options *o, struct measurement *m)
{
	memset(o, 0, sizeof(*o));
	o->limit = 64ULL << 20;
	o->size = 96ULL << 20;
	o->seconds = 6;
	memset(m, 0, sizeof(*m));
	m->cgroup_version = 2;
	m->have_net = true;
	m->net.private_netns = true;
	m->net.bytes = 12500000;
	m->net.seconds = 2.5;
	m->net.retrans = 3;
	m->net.sndbuf_max = 2626560;
	m->net.sndbuf_last = 87040;
	m->net.rcvbuf_max = 131072;
	m->net.rcv_ssthresh_min = 261932;
	m->net.rcv_ssthresh_drops = 17;
	m->net.advmss = 65483;
	m->have_sock_throttled = true;
	m->sock_throttled = 41234;
}

static char *capture(const struct net_options *o, const struct measurement *m,
		     bool json)
{
	struct capture c;
	FILE *out = capture_open(&c);

	if (json)
		assert_int_equal(net_print_json(out, o, m), 0);
	else
		net_print_table(out, o, m);
	return json ? capture_json_text(&c) : capture_text(&c);
}

static void test_table(void **state)
{
	struct net_options o;
	struct measurement m;
	char *text;

	(void)state;
	sample(&o, &m);
	text = capture(&o, &m, false);
	assert_string_equal(text,
		"limit(M)  hog(M)  seconds  MB/s  retrans   sndbuf  rcvbuf  ssthresh_cuts  sock_throttled\n"
		"      64      96     2.50  5.00        3  2626560  131072             17           41234\n");
	free(text);
	/* the last send buffer and the lowest rcv_ssthresh when --output names them */
	assert_int_equal(table_format_option("net", "output", "sndbuf-last,rcv-ssthresh",
					     net_tables), 0);
	text = capture(&o, &m, false);
	assert_string_equal(text, "sndbuf_last  rcv_ssthresh\n      87040        261932\n");
	free(text);
	/* 6.12: no counter; no receiver sample after slow start */
	m.have_sock_throttled = false;
	m.net.rcv_ssthresh_min = 0;
	assert_int_equal(table_format_option("net", "output", "rcv-ssthresh,sock-throttled",
					     net_tables), 0);
	text = capture(&o, &m, false);
	assert_string_equal(text, "rcv_ssthresh  sock_throttled\n           -               -\n");
	free(text);
	table_format.columns = NULL;
}

/*
 * The widest figures a run can print (eight digits of every counter, five
 * of MB/s, 8 MiB buffers, a 4 GiB hog): within TABLE_WIDTH.
 */
static void test_table_fits_width(void **state)
{
	struct net_options o;
	struct measurement m;
	char *text;

	(void)state;
	sample(&o, &m);
	o.limit = 4ULL << 30;
	o.size = 6ULL << 30;
	m.net.bytes = 99999ULL * 1000000;
	m.net.seconds = 99999.99;
	m.net.retrans = 99999999;
	m.net.sndbuf_max = 8388608;
	m.net.rcvbuf_max = 8388608;
	m.net.rcv_ssthresh_drops = 99999999;
	m.sock_throttled = 99999999;
	text = capture(&o, &m, false);
	assert_true(capture_widest_line(text) <= TABLE_WIDTH);
	free(text);
}

static void test_json(void **state)
{
	struct net_options o;
	struct measurement m;
	char *text;

	(void)state;
	sample(&o, &m);
	text = capture(&o, &m, true);
	assert_string_equal(text,
		"{\"private_netns\":true,\"bytes\":12500000,\"seconds\":2.5,"
		"\"bytes_per_s\":5000000.0,\"retrans\":3,\"sndbuf_max\":2626560,"
		"\"sndbuf_last\":87040,\"rcvbuf_max\":131072,\"rcv_ssthresh_min\":261932,"
		"\"rcv_ssthresh_drops\":17,\"advmss\":65483,\"MB/s\":5.0,"
		"\"limit\":67108864,\"size\":100663296,\"sock_throttled\":41234,\"cgroup_version\":2}\n");
	free(text);
	m.have_sock_throttled = false;
	m.net.rcv_ssthresh_min = 0;
	m.net.private_netns = false;
	m.net.seconds = 0;
	text = capture(&o, &m, true);
	assert_string_equal(text,
		"{\"private_netns\":false,\"bytes\":12500000,\"seconds\":0.0,"
		"\"bytes_per_s\":0.0,\"retrans\":3,\"sndbuf_max\":2626560,"
		"\"sndbuf_last\":87040,\"rcvbuf_max\":131072,\"rcv_ssthresh_min\":null,"
		"\"rcv_ssthresh_drops\":17,\"advmss\":65483,\"MB/s\":0.0,"
		"\"limit\":67108864,\"size\":100663296,\"sock_throttled\":null,\"cgroup_version\":2}\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_args),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fits_width),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
