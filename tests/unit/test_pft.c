// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl pft: option parsing, rates, the fault check, real small runs:
 * repetitions, --duration's steady touching, and --report-interval's rate
 * lines adding up to the pages touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "cgroup.h"
#include "commands.h"
#include "pft.h"
#include "rate.h"

static enum parse_result parse(struct pft_options *opts, int argc,
			       const char **argv)
{
	return pft_parse_args(argc, (char **)argv, opts);
}

static void test_parse_args(void **state)
{
	const char *defaults[] = { "pft", NULL };
	const char *full[] = { "pft", "--size", "256M", "--threads", "4", "--reps",
			       "3", "--whole-page", "--memcg-limit", "64M",
			       "--json", NULL };
	const char *bad_threads[] = { "pft", "--threads", "0", NULL };
	const char *bad_reps[] = { "pft", "-r", "x", NULL };
	const char *stray[] = { "pft", "extra", NULL };
	const char *unknown[] = { "pft", "--frobnicate", NULL };
	const char *tiny[] = { "pft", "-s", "4K", "--threads", "8", NULL };
	struct pft_options o;

	(void)state;
	assert_int_equal(parse(&o, 1, defaults), PARSE_RUN);
	assert_int_equal(o.bytes, 1ULL << 30);
	assert_int_equal(o.threads, 1);
	assert_int_equal(o.reps, 1);
	assert_false(o.whole_page);
	assert_int_equal(o.memcg_limit, 0);
	assert_false(o.json);

	assert_int_equal(parse(&o, 11, full), PARSE_RUN);
	assert_int_equal(o.bytes, 256ULL << 20);
	assert_int_equal(o.threads, 4);
	assert_int_equal(o.reps, 3);
	assert_true(o.whole_page);
	assert_int_equal(o.memcg_limit, 64ULL << 20);
	assert_true(o.json);

	assert_int_equal(parse(&o, 3, bad_threads), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, bad_reps), PARSE_USAGE);
	assert_int_equal(parse(&o, 2, stray), PARSE_USAGE);
	assert_int_equal(parse(&o, 2, unknown), PARSE_USAGE);
	assert_int_equal(parse(&o, 5, tiny), PARSE_USAGE);
}

static void test_parse_duration_and_report_interval(void **state)
{
	const char *both[] = { "pft", "--duration", "2.5", "--report-interval",
			       "0.05", NULL };
	const char *with_reps[] = { "pft", "--reps", "2", "--duration", "1", NULL };
	const char *zero_duration[] = { "pft", "--duration", "0", NULL };
	const char *zero_interval[] = { "pft", "--report-interval", "0", NULL };
	const char *long_interval[] = { "pft", "--report-interval", "3601", NULL };
	const char *word[] = { "pft", "--report-interval", "often", NULL };
	struct pft_options o;

	(void)state;
	assert_int_equal(parse(&o, 5, both), PARSE_RUN);
	assert_true(o.duration_s == 2.5 && o.report_interval_s == 0.05);
	assert_int_equal(o.report_fd, STDOUT_FILENO);
	assert_int_equal(parse(&o, 5, with_reps), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, zero_duration), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, zero_interval), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, long_interval), PARSE_USAGE);
	assert_int_equal(parse(&o, 3, word), PARSE_USAGE);
}

static void test_rates_and_fault_check(void **state)
{
	struct pft_result r = {
		.pages_touched = 262144, .minor_faults = 262150,
		.user_s = 0.5, .system_s = 1.5, .wall_s = 1.0,
	};

	(void)state;
	assert_true(fabs(pft_faults_per_cpu_second(&r) - 131072) < 1e-6);
	assert_true(fabs(pft_faults_per_wall_second(&r) - 262144) < 1e-6);
	assert_true(pft_faults_match(&r));
	/* 2 MiB huge pages: one fault per 512 pages */
	r.minor_faults = 512;
	assert_false(pft_faults_match(&r));
	r.minor_faults = 262144 * 11 / 10 + 1;
	assert_false(pft_faults_match(&r));
	r.minor_faults = 262144 * 109 / 100;
	assert_true(pft_faults_match(&r));
	r.user_s = r.system_s = r.wall_s = 0;
	assert_true(isnan(pft_faults_per_cpu_second(&r)));
	assert_true(isnan(pft_faults_per_wall_second(&r)));
}

static char *capture(bool json, const struct pft_options *o,
		     const struct pft_result *r)
{
	struct capture c;
	FILE *out = capture_open(&c);

	if (json)
		assert_int_equal(pft_print_json(out, o, r), 0);
	else
		pft_print_table(out, o, r);
	return json ? capture_json_text(&c) : capture_text(&c);
}

static void test_output(void **state)
{
	struct pft_options o = { .bytes = 1ULL << 30, .threads = 2, .reps = 3 };
	struct pft_options timed = { .bytes = 1ULL << 30, .threads = 2,
				     .reps = 1, .duration_s = 2.5 };
	struct pft_result r = {
		.pages_touched = 786432, .minor_faults = 786440,
		.user_s = 0.25, .system_s = 1.75, .wall_s = 1.25,
	};
	char *text;

	(void)state;
	text = capture(false, &o, &r);
	assert_string_equal(text,
		"  Gb  Rep  Thr  CLine  User(s)  System(s)  Wall(s)  flt/cpu/s  fault/wsec\n"
		"1.00    3    2      1     0.25       1.75     1.25   393216.0    629145.6\n");
	free(text);
	o.whole_page = true;
	text = capture(true, &o, &r);
	assert_string_equal(text,
		"{\"Gb\":1.0,\"Rep\":3,\"Thr\":2,\"CLine\":0,\"User(s)\":0.25,"
		"\"System(s)\":1.75,\"Wall(s)\":1.25,\"flt/cpu/s\":393216.0,"
		"\"fault/wsec\":629145.6,\"pages\":786432,"
		"\"minor_faults\":786440,\"major_faults\":0,\"memcg_limit\":null,"
		"\"duration_s\":null}\n");
	free(text);
	/* --duration: Rep is the whole passes done (786432 pages = 3 GiB) */
	text = capture(true, &timed, &r);
	assert_non_null(strstr(text, "\"Rep\":3,"));
	assert_non_null(strstr(text, "\"duration_s\":2.5}"));
	free(text);
}

/*
 * A real run: every page must fault exactly once per repetition, which
 * also proves the compiler kept the stores.
 */
static void test_run_faults_every_page(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct pft_options o = {
		.bytes = 8u << 20, .threads = 3, .reps = 2,
	};
	struct pft_result r;

	(void)state;
	for (int whole = 0; whole < 2; whole++) {
		o.whole_page = whole;
		assert_int_equal(pft_run(&o, &r), 0);
		assert_int_equal(r.pages_touched, 2 * (o.bytes / page));
		assert_true(pft_faults_match(&r));
		assert_true(r.minor_faults >= r.pages_touched);
		assert_true(r.wall_s > 0);
	}
}

/*
 * --duration: many passes over 2 MiB in 0.3 s, and every touch of every
 * pass faulted, so each chunk was dropped before it was touched again.
 */
static void test_duration_touches_fresh_pages_steadily(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct pft_options o = {
		.bytes = 2u << 20, .threads = 2, .reps = 1, .duration_s = 0.3,
	};
	struct pft_result r;

	(void)state;
	assert_int_equal(pft_run(&o, &r), 0);
	assert_true(r.pages_touched >= 3 * (o.bytes / page));
	assert_true(pft_passes(&o, &r) >= 3);
	assert_true(pft_faults_match(&r));
	assert_true(r.wall_s >= 0.3 && r.wall_s < 2);
}

/* Sums the counts of the rate lines in fd; checks each line and the gaps. */
static double rate_lines_sum(int fd, size_t *lines)
{
	static char text[1 << 16];
	struct rate_interval got;
	double sum = 0, last_t = 0;
	char *line, *end;
	size_t len = 0;
	ssize_t n;

	while ((n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	*lines = 0;
	for (line = text; (end = strchr(line, '\n')); line = end + 1) {
		assert_int_equal(rate_line_parse(line, (size_t)(end - line), &got), 0);
		if (*lines)
			assert_true(fabs(got.t - got.interval_s - last_t) < 3e-6);
		last_t = got.t;
		sum += got.count;
		(*lines)++;
	}
	assert_true(*line == '\0');
	return sum;
}

/* The rate lines count every page touched, with --duration and with --reps. */
static void test_report_interval_counts_every_page(void **state)
{
	struct pft_options timed = {
		.bytes = 4u << 20, .threads = 2, .reps = 1, .duration_s = 0.4,
		.report_interval_s = 0.05,
	};
	struct pft_options reps = {
		.bytes = 8u << 20, .threads = 1, .reps = 3,
		.report_interval_s = 0.01,
	};
	struct pft_result r;
	size_t lines;
	int fds[2];

	(void)state;
	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	timed.report_fd = reps.report_fd = fds[1];
	assert_int_equal(pft_run(&timed, &r), 0);
	assert_true(rate_lines_sum(fds[0], &lines) == (double)r.pages_touched);
	/*
	 * One line per 0.05 s the run took, and a last one: a loaded host
	 * stretches the run or starves the reporter, so bound by its wall time.
	 */
	assert_true(lines >= 2 && lines <= r.wall_s / timed.report_interval_s + 2);
	assert_int_equal(pft_run(&reps, &r), 0);
	assert_true(rate_lines_sum(fds[0], &lines) == (double)r.pages_touched);
	assert_true(lines >= 1);
	close(fds[0]);
	close(fds[1]);
}

/* cmd_pft with stdout in a file; its exit status, the output in text. */
static int run_cmd_pft(int argc, const char **argv, char *text, size_t size)
{
	char out_path[] = "/tmp/vmpctl-test-pft-XXXXXX";
	int saved, fd, rc;
	ssize_t n;

	fd = mkstemp(out_path);
	assert_true(fd >= 0);
	fflush(NULL);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	rc = cmd_pft(argc, (char **)argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, text, size - 1, 0);
	close(fd);
	unlink(out_path);
	assert_true(n > 0);
	text[n] = '\0';
	return rc;
}

/*
 * --memcg-limit for real: root and a memory controller needed. The limit
 * is above the size, so no swap is needed either; the cgroup must be gone
 * afterwards. With --report-interval the rate lines come from the child
 * in the cgroup, past the pipe that carries its result.
 */
static void test_cmd_pft_in_memcg(void **state)
{
	const char *argv[] = { "pft", "--size", "8M", "--memcg-limit", "64M",
			       "--json", NULL };
	const char *reporting[] = { "pft", "--size", "8M", "--memcg-limit", "64M",
				    "--duration", "0.3", "--report-interval",
				    "0.05", "--json", NULL };
	static char text[65536];
	char pages[64], leftover[PATH_MAX + 32], *line, *end;
	struct cgroup_layout layout;
	struct rate_interval got;
	unsigned long long reported;
	double sum = 0;

	(void)state;
	if (geteuid() != 0 || cgroup_layout_detect(&layout) ||
	    (!layout.v1_memory[0] && !cgroup_v2_has_memory(&layout))) {
		print_message("SKIP: needs root and a memory cgroup controller\n");
		skip();
	}
	assert_int_equal(run_cmd_pft(6, argv, text, sizeof(text)), 0);
	/* the child's counts came back through the pipe */
	snprintf(pages, sizeof(pages), "\"pages\":%ld,",
		 (8L << 20) / sysconf(_SC_PAGESIZE));
	assert_non_null(strstr(text, pages));
	assert_non_null(strstr(text, "\"memcg_limit\":67108864,"));
	snprintf(leftover, sizeof(leftover), "%s/vmpctl-%ld",
		 layout.v1_memory[0] ? layout.v1_memory : layout.v2_root,
		 (long)getpid());
	assert_int_equal(access(leftover, F_OK), -1);

	assert_int_equal(run_cmd_pft(10, reporting, text, sizeof(text)), 0);
	for (line = text; (end = strchr(line, '\n')) &&
	     rate_line_parse(line, (size_t)(end - line), &got) == 0;
	     line = end + 1)
		sum += got.count;
	/* then the summary, whose pages the lines add up to */
	assert_non_null(strstr(line, "\"pages\":"));
	assert_int_equal(sscanf(strstr(line, "\"pages\":"), "\"pages\":%llu,",
				&reported), 1);
	assert_true(sum == (double)reported && sum > 0);
	assert_int_equal(access(leftover, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_args),
		cmocka_unit_test(test_parse_duration_and_report_interval),
		cmocka_unit_test(test_rates_and_fault_check),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_run_faults_every_page),
		cmocka_unit_test(test_duration_touches_fresh_pages_steadily),
		cmocka_unit_test(test_report_interval_counts_every_page),
		cmocka_unit_test(test_cmd_pft_in_memcg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
