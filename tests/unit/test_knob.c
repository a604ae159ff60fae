// SPDX-License-Identifier: GPL-2.0
/* The module's attributes, read from a fake sysfs directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "commands.h"
#include "fileio.h"
#include "knob.h"

static char fake_dir[] = "/tmp/vmpctl-sysfs-XXXXXX";

static void put(const char *attr, const char *text)
{
	char path[4096];
	FILE *f;

	assert_int_equal(path_join(path, sizeof(path), fake_dir, attr), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm(const char *attr)
{
	char path[4096];

	assert_int_equal(path_join(path, sizeof(path), fake_dir, attr), 0);
	unlink(path);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(fake_dir))
		return -1;
	vmp_sysfs_dir = fake_dir;
	put("enabled", "1\n");
	put("method", "ftrace\n");
	put("skipped", "42\n");
	put("targets", "vmpressure\nvmpressure_prio\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm("enabled");
	rm("method");
	rm("skipped");
	rm("targets");
	rmdir(fake_dir);
	return 0;
}

static void test_read_state(void **state)
{
	struct vmp_state st;

	(void)state;
	assert_true(vmp_module_loaded());
	assert_int_equal(vmp_read_state(&st), 0);
	assert_int_equal(st.enabled, 1);
	assert_string_equal(st.method, "ftrace");
	assert_int_equal(st.skipped, 42);
	assert_string_equal(st.targets, "vmpressure vmpressure_prio");
}

static void test_write_reads_back(void **state)
{
	int v;

	(void)state;
	assert_int_equal(vmp_write_enabled(0), 0);
	assert_int_equal(vmp_read_enabled(&v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(vmp_write_enabled(1), 0);
	assert_int_equal(vmp_read_enabled(&v), 0);
	assert_int_equal(v, 1);
}

static void test_malformed_attributes(void **state)
{
	uint64_t skipped;
	int v;

	(void)state;
	put("enabled", "Y\n");
	assert_int_equal(vmp_read_enabled(&v), -EINVAL);
	put("skipped", "-3\n");
	assert_int_equal(vmp_read_skipped(&skipped), -EINVAL);
	put("enabled", "1\n");
	put("skipped", "42\n");
}

static void test_missing_module(void **state)
{
	const char *real = vmp_sysfs_dir;

	(void)state;
	vmp_sysfs_dir = "/nonexistent/vmpressure_ctl";
	assert_false(vmp_module_loaded());
	assert_int_equal(knob_write_preflight("enable"), EXIT_ENVIRONMENT);
	vmp_sysfs_dir = real;
}

/* As root, the check runs in a child that dropped to nobody first. */
static void test_not_root(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		assert_int_equal(knob_write_preflight("disable"), EXIT_ENVIRONMENT);
		return;
	}
	assert_int_equal(knob_write_preflight("disable"), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(knob_write_preflight("disable"));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), EXIT_ENVIRONMENT);
}

static void test_join_lines(void **state)
{
	char text[] = "a\nb\nc\n\n";
	char one[] = "x";

	(void)state;
	join_lines(text);
	assert_string_equal(text, "a b c");
	join_lines(one);
	assert_string_equal(one, "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_state),
		cmocka_unit_test(test_write_reads_back),
		cmocka_unit_test(test_malformed_attributes),
		cmocka_unit_test(test_missing_module),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_join_lines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
