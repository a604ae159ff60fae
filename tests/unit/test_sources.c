// SPDX-License-Identifier: GPL-2.0
/*
 * Progress sources of ab --interleave (the plug-ins tools/ab/source_*.c)
 * on what the real programs and the kernel printed:
 * tests/unit/fixtures/workloads/ and counters/, each recorded by the
 * record.sh beside it. Every preset's intervals must add up to the total
 * the program itself printed at the end, so a parser that misses lines,
 * counts one twice or gets a unit wrong fails here. The fixtures' numbers
 * below are theirs: re-recording them means updating these.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ab/source_counter.h"
#include "ab/sources.h"

#define WORKLOADS "fixtures/workloads/"
#define COUNTERS "fixtures/counters/"
#define SAMPLES_MAX 64
/* each line of a recording arrives this long after the one before */
#define LINE_GAP_S 0.25

struct replay {
	struct ab_sample s[SAMPLES_MAX];
	size_t n;
	size_t invalid;
	double t0;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long size;

	if (!f)
		fail_msg("%s: %s (run from tests/unit)", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = '\0';
	fclose(f);
	return text;
}

/* Feeds a recording to src line by line, LINE_GAP_S apart from t0. */
static void replay(struct ab_source *src, const char *name,
		   struct replay *r)
{
	char path[256], *text, *line, *next;
	double arrival;
	int ret;

	snprintf(path, sizeof(path), WORKLOADS "%s", name);
	text = slurp(path);
	memset(r, 0, sizeof(*r));
	r->t0 = 1000;
	arrival = r->t0;
	for (line = text; *line; line = next) {
		char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		arrival += LINE_GAP_S;
		ret = ab_source_take(src, line, (size_t)((nl ? nl : next) - line),
					  arrival, &r->s[r->n]);
		assert_true(ret >= -EINVAL && ret <= 1);
		if (ret < 0)
			r->invalid++;
		if (ret == 1)
			assert_true(++r->n < SAMPLES_MAX);
	}
	if (ab_source_finish(src, &r->s[r->n]) == 1)
		r->n++;
	free(text);
}

static double total_count(const struct replay *r)
{
	double sum = 0;

	for (size_t i = 0; i < r->n; i++)
		sum += r->s[i].iv.count;
	return sum;
}

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("%.9g is not within %g%% of %.9g", got, 100 * rel, want);
}

/* Samples end in order, each when its line arrived. */
static void assert_ordered(const struct replay *r)
{
	for (size_t i = 0; i < r->n; i++) {
		assert_true(r->s[i].iv.interval_s > 0 && r->s[i].iv.count >= 0);
		assert_true(r->s[i].iv.t > r->t0);
		if (i)
			assert_true(r->s[i].iv.t > r->s[i - 1].iv.t);
	}
}

static void test_sysbench_cpu(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("sysbench"), NULL);
	replay(&src, "sysbench-cpu.txt", &r);
	assert_int_equal(r.n, 5);
	assert_int_equal(r.invalid, 0);
	assert_ordered(&r);
	/* [ 1s ] thds: 1 eps: 2387.33 lat (ms,95%): 0.48 */
	assert_close(r.s[0].iv.interval_s, 1, 1e-12);
	assert_close(r.s[0].iv.count, 2387.33, 1e-12);
	assert_close(r.s[0].lat_pct, 95, 1e-12);
	assert_close(r.s[0].lat_pct_ms, 0.48, 1e-12);
	assert_true(isnan(r.s[0].lat_mean_ms));
	/* [ 5s ] ... eps: 2395.93 lat (ms,95%): 0.47 */
	assert_close(r.s[4].iv.count, 2395.93, 1e-12);
	assert_close(r.s[4].lat_pct_ms, 0.47, 1e-12);
	/* "total number of events: 11954" in 5.0 s */
	assert_close(total_count(&r), 11954, 0.01);
	ab_source_free(&src);
}

static void test_sysbench_memory(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("sysbench"), NULL);
	replay(&src, "sysbench-memory.txt", &r);
	/* [ 1s ] 4707.65 MiB/sec ... [ 4s ] 4459.17 MiB/sec: MiB per second */
	assert_int_equal(r.n, 4);
	assert_ordered(&r);
	assert_close(r.s[0].iv.count, 4707.65, 1e-12);
	assert_close(r.s[3].iv.count, 4459.17, 1e-12);
	assert_true(isnan(r.s[3].lat_pct_ms));
	/* 22774.72 MiB in 5.0 s, the last second unreported */
	assert_close(total_count(&r), 22774.72 * 4 / 5.001, 0.03);
	ab_source_free(&src);
}

static void test_pgbench(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("pgbench"), NULL);
	replay(&src, "pgbench.txt", &r);
	assert_int_equal(r.n, 5);
	assert_ordered(&r);
	/* progress: 2.0 s, 891.1 tps, lat 1.122 ms stddev 0.462, 0 failed */
	assert_close(r.s[1].iv.interval_s, 1, 1e-12);
	assert_close(r.s[1].iv.count, 891.1, 1e-12);
	assert_close(r.s[1].lat_mean_ms, 1.122, 1e-12);
	assert_true(isnan(r.s[1].lat_pct_ms));
	/* "number of transactions actually processed: 4123" */
	assert_close(total_count(&r), 4123, 0.01);
	assert_true(ab_source_preset("pgbench")->on_stderr);
	ab_source_free(&src);
}

static void test_iperf3_one_stream(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("iperf3"), NULL);
	replay(&src, "iperf3-client.txt", &r);
	/* five intervals; the sender and receiver totals are not intervals */
	assert_int_equal(r.n, 5);
	assert_ordered(&r);
	/* [  5]   0.00-1.00   sec  1.72 GBytes ... */
	assert_close(r.s[0].iv.interval_s, 1, 1e-12);
	assert_close(r.s[0].iv.count, 1.72 * 1024 * 1024 * 1024, 1e-12);
	/* "0.00-5.00 sec 8.33 GBytes ... sender", rounded to 3 digits */
	assert_close(total_count(&r), 8.33 * 1024 * 1024 * 1024, 0.005);
	ab_source_free(&src);
}

static void test_iperf3_two_streams(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("iperf3"), NULL);
	replay(&src, "iperf3-client-P2.txt", &r);
	/* the [SUM] lines, not the streams' as well */
	assert_int_equal(r.n, 5);
	assert_ordered(&r);
	/* [SUM]   1.00-2.00   sec  1.22 GBytes */
	assert_close(r.s[1].iv.count, 1.22 * 1024 * 1024 * 1024, 1e-12);
	/* "[SUM] 0.00-5.00 sec 7.53 GBytes ... sender" */
	assert_close(total_count(&r), 7.53 * 1024 * 1024 * 1024, 0.005);
	ab_source_free(&src);
}

static void test_fio_json(void **state)
{
	struct ab_source src;
	struct replay r;

	(void)state;
	ab_source_open(&src, ab_source_preset("fio"), NULL);
	replay(&src, "fio-randread.json.txt", &r);
	/* six reports: the first starts the count, five intervals follow */
	assert_int_equal(r.n, 5);
	assert_int_equal(r.invalid, 0);
	assert_ordered(&r);
	/* 41951232 then 93196288 bytes, timestamp_ms ...050896 then ...051895 */
	assert_close(r.s[0].iv.interval_s, 0.999, 1e-6);
	assert_close(r.s[0].iv.count, 93196288 - 41951232, 1e-12);
	/* 4 KiB reads: the mean latency of the interval's own 12511 I/Os */
	assert_true(r.s[0].lat_mean_ms > 0.01 && r.s[0].lat_mean_ms < 10);
	assert_true(isnan(r.s[0].lat_pct_ms));
	ab_source_free(&src);
}

static void test_rate_regex(void **state)
{
	struct ab_source src;
	struct replay r;
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "eps: ([0-9.]+)", REG_EXTENDED), 0);
	ab_source_open(&src, ab_source_by_option("rate-regex"), &re);
	replay(&src, "sysbench-cpu.txt", &r);
	/* the first match starts the clock; its four successors are rates */
	assert_int_equal(r.n, 4);
	assert_ordered(&r);
	/* "[ 2s ]" arrived one line after "[ 1s ]" */
	assert_close(r.s[0].iv.interval_s, LINE_GAP_S, 1e-9);
	assert_close(r.s[0].iv.count, 2361.48 * LINE_GAP_S, 1e-9);
	ab_source_free(&src);
	regfree(&re);
}

static void test_count_regex(void **state)
{
	struct ab_source src;
	struct replay r;
	regex_t re;

	(void)state;
	/* the interval lines carry a Cwnd column, the totals do not */
	assert_int_equal(regcomp(&re, "sec +([0-9.]+) GBytes +[0-9.]+ Gbits/sec +[0-9]+ +[0-9.]+ [KM]Bytes",
				 REG_EXTENDED), 0);
	ab_source_open(&src, ab_source_by_option("count-regex"), &re);
	replay(&src, "iperf3-client.txt", &r);
	assert_int_equal(r.n, 4);
	assert_close(r.s[0].iv.count, 1.71, 1e-12);
	assert_close(r.s[3].iv.count, 1.52, 1e-12);
	assert_close(r.s[3].iv.interval_s, LINE_GAP_S, 1e-9);
	ab_source_free(&src);
	regfree(&re);
}

static void test_regex_rejects_nonsense(void **state)
{
	struct ab_source src;
	struct ab_sample s;
	regex_t re;

	(void)state;
	assert_int_equal(regcomp(&re, "rate=([^ ]+)", REG_EXTENDED), 0);
	ab_source_open(&src, ab_source_by_option("rate-regex"), &re);
	assert_int_equal(ab_source_take(&src, "rate=5", 6, 1.0, &s), 0);
	assert_int_equal(ab_source_take(&src, "rate=abc", 8, 2.0, &s), -EINVAL);
	assert_int_equal(ab_source_take(&src, "rate=-3", 7, 3.0, &s), -EINVAL);
	assert_int_equal(ab_source_take(&src, "other", 5, 4.0, &s), 0);
	/* from the last good line on */
	assert_int_equal(ab_source_take(&src, "rate=10", 7, 5.0, &s), 1);
	assert_close(s.iv.interval_s, 4.0, 1e-12);
	assert_close(s.iv.count, 40, 1e-12);
	ab_source_free(&src);
	regfree(&re);
}

static void test_preset_names(void **state)
{
	(void)state;
	assert_string_equal(ab_source_preset("fio")->name, "fio");
	assert_string_equal(ab_source_preset("pgbench")->name, "pgbench");
	assert_null(ab_source_preset("stress-ng"));
	/* a regex is picked by its option, not as a preset */
	assert_null(ab_source_preset("regex"));
	assert_string_equal(ab_source_by_option("count-regex")->option, "count-regex");
	assert_null(ab_source_by_option("preset"));
}

static double counter_in(const char *spec, const char *base, const char *file)
{
	struct ab_counter c;
	char path[256], *text;
	double value;
	int err;

	assert_int_equal(ab_counter_parse(spec, base, &c), 0);
	snprintf(path, sizeof(path), COUNTERS "%s", file);
	text = slurp(path);
	err = ab_counter_value(&c, text, &value);
	free(text);
	if (err)
		fail_msg("%s in %s: %s", spec, file, strerror(-err));
	return value;
}

static void test_counter_keyed_files(void **state)
{
	(void)state;
	assert_close(counter_in("/proc/vmstat:pgfault", NULL, "vmstat.txt"),
		     331180296, 0);
	assert_close(counter_in("memory.stat:pgfault", "/sys/fs/cgroup/x", "memory.stat.txt"),
		     1070814, 0);
	/* "total_pgfault" is another key, not a second pgfault */
	assert_close(counter_in("memory.stat:cache+rss", "/cg", "memory.stat.txt"),
		     188203008.0 + 2076672.0, 0);
	assert_close(counter_in("io:rchar", "/proc/42", "proc-pid-io.txt"), 6976, 0);
	assert_close(counter_in("io:rchar+wchar", "/proc/42", "proc-pid-io.txt"), 6976, 0);
}

static void test_counter_net_dev(void **state)
{
	(void)state;
	/* eth0: 4584186029  107481 ... then 5454051 transmitted */
	assert_close(counter_in("/proc/net/dev:eth0.rx_bytes", NULL, "net-dev.txt"),
		     4584186029.0, 0);
	assert_close(counter_in("/proc/net/dev:eth0.tx_bytes", NULL, "net-dev.txt"),
		     5454051, 0);
	assert_close(counter_in("/proc/net/dev:eth0.rx_packets+eth0.tx_packets", NULL,
				"net-dev.txt"), 107481 + 74100, 0);
	assert_close(counter_in("/proc/net/dev:lo.tx_bytes", NULL, "net-dev.txt"),
		     38327636599.0, 0);
}

/*
 * cgroup v2's io.stat as 6.12 printed it for a memcg that wrote 2 MiB to
 * one zram device (254:1), read 1 MiB back, and wrote 192 KiB to another
 * (254:2): tests/vm/guest/tests-workloads.sh, test_workloads_io_stat.
 */
static void test_counter_io_stat(void **state)
{
	struct ab_counter c;
	char path[256], *text;
	double v;

	(void)state;
	/* a key sums over the devices; DEV.KEY picks one */
	assert_close(counter_in("io.stat:wbytes", "/cg", "io.stat.txt"),
		     2097152.0 + 196608.0, 0);
	assert_close(counter_in("io.stat:254:1.rbytes", "/cg", "io.stat.txt"), 1048576, 0);
	assert_close(counter_in("io.stat:254:2.wios", "/cg", "io.stat.txt"), 3, 0);
	assert_close(counter_in("io.stat:rios+wios", "/cg", "io.stat.txt"), 256 + 512 + 3, 0);
	/* dbytes is not bytes, nor rios rbytes; no device 8:0 */
	snprintf(path, sizeof(path), COUNTERS "io.stat.txt");
	text = slurp(path);
	assert_int_equal(ab_counter_parse("io.stat:bytes", "/cg", &c), 0);
	assert_int_equal(ab_counter_value(&c, text, &v), -ENOENT);
	assert_int_equal(ab_counter_parse("io.stat:8:0.wbytes", "/cg", &c), 0);
	assert_int_equal(ab_counter_value(&c, text, &v), -ENOENT);
	free(text);
}

static void test_counter_spelling(void **state)
{
	struct ab_counter c;
	double v;

	(void)state;
	assert_int_equal(ab_counter_parse("memory.stat:pgfault", "/sys/fs/cgroup/web", &c), 0);
	assert_string_equal(c.file, "/sys/fs/cgroup/web/memory.stat");
	assert_int_equal(c.n_fields, 1);
	assert_string_equal(c.fields[0], "pgfault");
	/* one number in the file: no field */
	assert_int_equal(ab_counter_parse("/sys/class/net/eth0/statistics/rx_bytes", NULL, &c), 0);
	assert_int_equal(c.n_fields, 0);
	assert_int_equal(ab_counter_value(&c, "12345\n", &v), 0);
	assert_close(v, 12345, 0);
	assert_int_equal(ab_counter_value(&c, "x\n", &v), -EINVAL);
	/* relative without a target; empty pieces */
	assert_int_equal(ab_counter_parse("memory.stat:pgfault", NULL, &c), -EINVAL);
	assert_int_equal(ab_counter_parse(":pgfault", "/cg", &c), -EINVAL);
	assert_int_equal(ab_counter_parse("memory.stat:", "/cg", &c), -EINVAL);
	assert_int_equal(ab_counter_parse("memory.stat:a=b", "/cg", &c), -EINVAL);
	/* a field that is not there */
	assert_int_equal(ab_counter_parse("memory.stat:nosuch", "/cg", &c), 0);
	assert_int_equal(ab_counter_value(&c, "pgfault 1\n", &v), -ENOENT);
	assert_int_equal(ab_counter_value(&c, "nosuch x\n", &v), -EINVAL);
}

/* Writes text to path, replacing what was there. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * --counter through the options and its ops alone, as interleave.c drives
 * it: a polled source, configured with the target's path, whose readings
 * give the growth between them.
 */
static void test_counter_polled_through_ops(void **state)
{
	char dir[] = "/tmp/vmpctl-test-counter-XXXXXX", file[64];
	struct ab_source_options o = { 0 };
	struct ab_source src;
	struct ab_sample s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/memory.stat", dir);
	write_file(file, "pgfault 100\n");
	assert_int_equal(ab_source_option("counter", "memory.stat:pgfault", &o), 0);
	o.cgroup = dir;
	/* no command: ab watches the cgroup */
	assert_int_equal(ab_source_finish_options(&o, 1, 10, false), 0);
	assert_true(ab_source_attached(&o));
	ab_source_init(&src, &o);
	assert_true(ab_source_polled(&src));
	assert_false(ab_source_takes_lines(&src));
	/* the first reading only starts the count */
	assert_int_equal(ab_source_sample(&src, true, &s), 0);
	write_file(file, "pgfault 250\n");
	usleep(1000);
	assert_int_equal(ab_source_sample(&src, true, &s), 1);
	assert_close(s.iv.count, 150, 0);
	assert_true(s.iv.interval_s > 0);
	assert_true(isnan(s.lat_mean_ms));
	/* a flip lies between: none, and the count starts again */
	write_file(file, "pgfault 300\n");
	assert_int_equal(ab_source_sample(&src, false, &s), 0);
	write_file(file, "pgfault 400\n");
	usleep(1000);
	assert_int_equal(ab_source_sample(&src, true, &s), 1);
	assert_close(s.iv.count, 100, 0);
	/* a counter that went back gives nothing */
	write_file(file, "pgfault 50\n");
	usleep(1000);
	assert_int_equal(ab_source_sample(&src, true, &s), 0);
	ab_source_free(&src);
	ab_source_options_free(&o);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
}

static int configure_only(const struct ab_source_ops *ops, const char *arg,
			  const char *target, void **config)
{
	static int configured;

	(void)ops;
	(void)arg;
	(void)target;
	*config = &configured;
	return 0;
}

/* A source whose configuration needs no freeing has no unconfigure. */
static void test_configure_without_unconfigure(void **state)
{
	static const struct ab_source_ops fake = {
		.name = "fake", .option = "preset", .family = AB_SOURCE_PRESET,
		.configure = configure_only,
	};
	struct ab_source_options o = { 0 };

	(void)state;
	o.picked[AB_SOURCE_PRESET] = (struct ab_source_pick){ .ops = &fake, .arg = "fake" };
	assert_int_equal(ab_source_finish_options(&o, 1, 0, true), 0);
	assert_non_null(o.config);
	ab_source_options_free(&o);
	assert_null(o.config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysbench_cpu),
		cmocka_unit_test(test_sysbench_memory),
		cmocka_unit_test(test_pgbench),
		cmocka_unit_test(test_iperf3_one_stream),
		cmocka_unit_test(test_iperf3_two_streams),
		cmocka_unit_test(test_fio_json),
		cmocka_unit_test(test_rate_regex),
		cmocka_unit_test(test_count_regex),
		cmocka_unit_test(test_regex_rejects_nonsense),
		cmocka_unit_test(test_preset_names),
		cmocka_unit_test(test_counter_keyed_files),
		cmocka_unit_test(test_counter_net_dev),
		cmocka_unit_test(test_counter_io_stat),
		cmocka_unit_test(test_counter_spelling),
		cmocka_unit_test(test_counter_polled_through_ops),
		cmocka_unit_test(test_configure_without_unconfigure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
