// SPDX-License-Identifier: GPL-2.0
/* Parsing of numbers, sizes and sysfs/cgroupfs values; the small-file helpers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "parse.h"

static void test_parse_u64_accepts_kernel_output(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("12345\n", &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_parse_u64_rejects_garbage(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(parse_u64("", &v), -EINVAL);
	assert_int_equal(parse_u64(" 1", &v), -EINVAL);
	assert_int_equal(parse_u64("-1", &v), -EINVAL);
	assert_int_equal(parse_u64("+1", &v), -EINVAL);
	assert_int_equal(parse_u64("12x", &v), -EINVAL);
	assert_int_equal(parse_u64("1 2", &v), -EINVAL);
	assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(v, 7);
}

static void test_parse_bool01(void **state)
{
	int v = -1;

	(void)state;
	assert_int_equal(parse_bool01("1\n", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(parse_bool01("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_bool01("Y\n", &v), -EINVAL);
	assert_int_equal(parse_bool01("10", &v), -EINVAL);
	assert_int_equal(parse_bool01("", &v), -EINVAL);
	assert_int_equal(v, 0);
}

static void test_find_keyed_u64_matches_whole_key(void **state)
{
	const char *vmstat = "pgscan_kswapd 11\npgscan_direct 22\npgscan 33\n"
			     "pgscan_anon 44\npgscan_file 55";
	uint64_t v;

	(void)state;
	assert_int_equal(find_keyed_u64(vmstat, "pgscan", &v), 0);
	assert_int_equal(v, 33);
	assert_int_equal(find_keyed_u64(vmstat, "pgscan_anon", &v), 0);
	assert_int_equal(v, 44);
	/* last line without a newline */
	assert_int_equal(find_keyed_u64(vmstat, "pgscan_file", &v), 0);
	assert_int_equal(v, 55);
	assert_int_equal(find_keyed_u64(vmstat, "pgsteal", &v), -ENOENT);
	assert_int_equal(find_keyed_u64(vmstat, "pgscan_", &v), -ENOENT);
	assert_int_equal(find_keyed_u64("oom_kill x\n", "oom_kill", &v), -EINVAL);
}

static void test_find_meminfo_kib(void **state)
{
	const char *meminfo = "MemTotal:        1001512 kB\n"
			      "SwapCached:            0 kB\n"
			      "SwapTotal:        393212 kB\n"
			      "SwapFree:         393212 kB\n";
	uint64_t kib;

	(void)state;
	assert_int_equal(find_meminfo_kib(meminfo, "SwapTotal", &kib), 0);
	assert_int_equal(kib, 393212);
	assert_int_equal(find_meminfo_kib(meminfo, "SwapCached", &kib), 0);
	assert_int_equal(kib, 0);
	assert_int_equal(find_meminfo_kib(meminfo, "Swap", &kib), -ENOENT);
	assert_int_equal(find_meminfo_kib("SwapTotal: lots\n", "SwapTotal", &kib), -EINVAL);
	assert_int_equal(find_meminfo_kib("SwapTotal: 5 MB\n", "SwapTotal", &kib), -EINVAL);
}

static void test_read_write_text_file(void **state)
{
	char path[] = "/tmp/vmpctl-test-XXXXXX";
	char buf[8];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_text_file(path, "1234567"), 0);
	/* exactly fills buf with its NUL */
	assert_int_equal(read_text_file(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1234567");
	assert_int_equal(write_text_file(path, "12345678"), 0);
	assert_int_equal(read_text_file(path, buf, sizeof(buf)), -EFBIG);
	unlink(path);
	assert_int_equal(read_text_file(path, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(write_text_file(path, "1"), -ENOENT);
}

static void test_read_keyed_u64_from_file(void **state)
{
	char path[] = "/tmp/vmpctl-test-XXXXXX";
	uint64_t v;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_text_file(path, "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), 0);
	assert_int_equal(read_keyed_u64(path, "oom_kill", &v), 0);
	assert_int_equal(v, 3);
	unlink(path);
}

static void test_parse_size(void **state)
{
	uint64_t bytes;

	(void)state;
	assert_int_equal(parse_size("64", &bytes), 0);
	assert_int_equal(bytes, 64ULL << 20);
	assert_int_equal(parse_size("512M", &bytes), 0);
	assert_int_equal(bytes, 512ULL << 20);
	assert_int_equal(parse_size("1g", &bytes), 0);
	assert_int_equal(bytes, 1ULL << 30);
	assert_int_equal(parse_size("1.5GiB", &bytes), 0);
	assert_int_equal(bytes, 3ULL << 29);
	assert_int_equal(parse_size("64KB", &bytes), 0);
	assert_int_equal(bytes, 64ULL << 10);
	assert_int_equal(parse_size("0.0625G", &bytes), 0);
	assert_int_equal(bytes, 64ULL << 20);
	assert_int_equal(parse_size("0.5K", &bytes), 0);
	assert_int_equal(bytes, 512);
	assert_int_equal(parse_size("", &bytes), -EINVAL);
	assert_int_equal(parse_size("-1G", &bytes), -EINVAL);
	assert_int_equal(parse_size(" 1G", &bytes), -EINVAL);
	assert_int_equal(parse_size("0x10", &bytes), -EINVAL);
	assert_int_equal(parse_size("inf", &bytes), -EINVAL);
	assert_int_equal(parse_size("12X", &bytes), -EINVAL);
	assert_int_equal(parse_size("1Gx", &bytes), -EINVAL);
	assert_int_equal(parse_size("1GiBB", &bytes), -EINVAL);
	assert_int_equal(parse_size("0", &bytes), -ERANGE);
	assert_int_equal(parse_size("99999999T", &bytes), -ERANGE);
}

static void test_path_join(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(path_join(buf, sizeof(buf), "/a/b", "c"), 0);
	assert_string_equal(buf, "/a/b/c");
	assert_int_equal(path_join(buf, sizeof(buf), "/0123456789", "abcd"),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64_accepts_kernel_output),
		cmocka_unit_test(test_parse_u64_rejects_garbage),
		cmocka_unit_test(test_parse_bool01),
		cmocka_unit_test(test_find_keyed_u64_matches_whole_key),
		cmocka_unit_test(test_find_meminfo_kib),
		cmocka_unit_test(test_read_write_text_file),
		cmocka_unit_test(test_read_keyed_u64_from_file),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_path_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
