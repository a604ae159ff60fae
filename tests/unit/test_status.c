// SPDX-License-Identifier: GPL-2.0
/* vmpctl status against a fake sysfs directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "fileio.h"
#include "status.h"

static char fake_dir[] = "/tmp/vmpctl-sysfs-XXXXXX";
static const char *const attrs[] = { "enabled", "method", "skipped", "targets",
				     "resident" };

static void put(const char *attr, const char *text)
{
	char path[4096];

	assert_int_equal(path_join(path, sizeof(path), fake_dir, attr), 0);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void unlink_attr(const char *attr)
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
	vmp_params_dir = fake_dir;
	return 0;
}

static int teardown(void **state)
{
	char path[4096];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (path_join(path, sizeof(path), fake_dir, attrs[i]) == 0)
			unlink(path);
	rmdir(fake_dir);
	return 0;
}

static char *capture(const struct status *st, bool json)
{
	struct capture c;
	FILE *out = capture_open(&c);

	if (json)
		assert_int_equal(status_print_json(out, st), 0);
	else
		status_print_text(out, st);
	return json ? capture_json_text(&c) : capture_text(&c);
}

static void expect_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" lacks \"%s\"", text, part);
}

static void test_loaded_module(void **state)
{
	struct status st;
	char *text;

	(void)state;
	put("enabled", "0\n");
	put("method", "kprobe\n");
	put("skipped", "1234\n");
	put("targets", "vmpressure\nvmpressure_prio\n");
	status_gather(&st);
	assert_true(st.loaded);
	assert_true(st.readable);
	text = capture(&st, true);
	expect_contains(text, "{\"loaded\":true,\"enabled\":0,\"method\":\"kprobe\","
			"\"resident\":false,\"skipped\":1234,\"count_skipped\":true,\"targets\":[\"vmpressure\",\"vmpressure_prio\"],"
			"\"kernel\":\"");
	assert_int_equal(strchr(text, '\n') - text, strlen(text) - 1);
	free(text);
	text = capture(&st, false);
	expect_contains(text, "module:          loaded\n");
	expect_contains(text, "enabled:         0 (short-circuited)\n");
	expect_contains(text, "method:          kprobe\n");
	expect_contains(text, "targets:         vmpressure vmpressure_prio\n");
	free(text);
}

/* resident=1 shows in /sys/module/.../parameters as Y; N is the default. */
static void test_resident(void **state)
{
	struct status st;
	char *text;

	(void)state;
	put("enabled", "1\n");
	put("method", "direct\n");
	put("skipped", "0\n");
	put("targets", "vmpressure\n");
	put("resident", "Y\n");
	status_gather(&st);
	assert_true(st.readable);
	text = capture(&st, true);
	expect_contains(text, "\"method\":\"direct\",\"resident\":true,");
	free(text);
	text = capture(&st, false);
	expect_contains(text, "method:          direct (resident: hooked from load to unload, the knob a flag)\n");
	free(text);
	put("resident", "N\n");
	status_gather(&st);
	text = capture(&st, true);
	expect_contains(text, "\"method\":\"direct\",\"resident\":false,");
	free(text);
	unlink_attr("resident");
}

static void test_one_target(void **state)
{
	struct status st;
	char *text;

	(void)state;
	put("enabled", "1\n");
	put("method", "ftrace\n");
	put("skipped", "0\n");
	put("targets", "vmpressure\n");
	status_gather(&st);
	text = capture(&st, true);
	expect_contains(text, "\"enabled\":1,\"method\":\"ftrace\",\"resident\":false,\"skipped\":0,\"count_skipped\":true,"
			"\"targets\":[\"vmpressure\"],");
	free(text);
}

/*
 * count_skipped=0: the module has no skipped attribute, and status says
 * the calls are not counted, never that none were short-circuited.
 */
static void test_skipped_not_counted(void **state)
{
	struct status st;
	char *text;

	(void)state;
	put("enabled", "0\n");
	put("method", "direct\n");
	unlink_attr("skipped");
	put("targets", "vmpressure\n");
	status_gather(&st);
	assert_true(st.readable);
	text = capture(&st, true);
	expect_contains(text, "\"method\":\"direct\",\"resident\":false,\"skipped\":null,"
			"\"count_skipped\":false,\"targets\":[\"vmpressure\"],");
	free(text);
	text = capture(&st, false);
	expect_contains(text, "skipped:         not counted (loaded with count_skipped=0)\n");
	free(text);
}

static void test_unreadable_module(void **state)
{
	struct status st;

	(void)state;
	put("skipped", "lots\n");
	status_gather(&st);
	assert_true(st.loaded);
	assert_false(st.readable);
}

static void test_module_missing(void **state)
{
	const char *real = vmp_sysfs_dir;
	struct status st;
	char *text;

	(void)state;
	vmp_sysfs_dir = "/nonexistent/vmpressure_ctl";
	status_gather(&st);
	vmp_sysfs_dir = real;
	text = capture(&st, true);
	expect_contains(text, "{\"loaded\":false,\"enabled\":null,\"method\":null,"
			"\"resident\":null,\"skipped\":null,\"count_skipped\":null,\"targets\":null,");
	free(text);
	text = capture(&st, false);
	expect_contains(text, "module:          not loaded\n");
	assert_null(strstr(text, "enabled:"));
	free(text);
}

static void test_cmdline_socket_accounting(void **state)
{
	(void)state;
	assert_false(cmdline_disables_socket_accounting("BOOT_IMAGE=/vmlinuz ro quiet\n"));
	assert_true(cmdline_disables_socket_accounting("ro cgroup.memory=nosocket\n"));
	assert_true(cmdline_disables_socket_accounting("cgroup.memory=nokmem,nosocket quiet"));
	assert_true(cmdline_disables_socket_accounting("a cgroup.memory=nosocket,nokmem b"));
	assert_false(cmdline_disables_socket_accounting("cgroup.memory=nokmem quiet nosocket"));
	assert_false(cmdline_disables_socket_accounting("xcgroup.memory=nosocket"));
	assert_false(cmdline_disables_socket_accounting("cgroup.memory=nosockets"));
}

/* A cgroup-v2 machine as status_gather() would find it. */
static void v2_status(struct status *st)
{
	memset(st, 0, sizeof(*st));
	strcpy(st->kernel, "7.3.4+deb13-amd64");
	strcpy(st->layout.v2_root, "/sys/fs/cgroup");
	st->v2_memory = true;
	st->socket_accounting = true;
	strcpy(st->sock_cgroup, "/sys/fs/cgroup/app");
	st->sock_cgroup_read = true;
	st->has_sock_throttled = true;
	st->sock_throttled = 417;
}

static void test_v2_sockets(void **state)
{
	struct status st;
	char *text;

	(void)state;
	v2_status(&st);
	text = capture(&st, false);
	expect_contains(text, "socket memory:   charged to memory cgroups (vmpressure raises their socket pressure)\n");
	expect_contains(text, "sock_throttled:  417 in /sys/fs/cgroup/app\n");
	free(text);
	text = capture(&st, true);
	expect_contains(text, "\"socket_accounting\":true,\"sock_throttled_cgroup\":\"/sys/fs/cgroup/app\",\"sock_throttled\":417}\n");
	free(text);

	/* 6.12: memory.events without the counter */
	st.has_sock_throttled = false;
	st.socket_accounting = false;
	text = capture(&st, false);
	expect_contains(text, "socket memory:   not charged (cgroup.memory=nosocket)");
	expect_contains(text, "sock_throttled:  not counted by this kernel (memory.events of /sys/fs/cgroup/app)\n");
	free(text);
	text = capture(&st, true);
	expect_contains(text, "\"socket_accounting\":false,\"sock_throttled_cgroup\":\"/sys/fs/cgroup/app\",\"sock_throttled\":false}\n");
	free(text);

	/* no memory cgroup to ask */
	st.sock_cgroup_read = false;
	st.sock_cgroup[0] = '\0';
	text = capture(&st, false);
	expect_contains(text, "sock_throttled:  unknown (no memory cgroup below /sys/fs/cgroup to ask; try --cgroup)\n");
	free(text);
	text = capture(&st, true);
	expect_contains(text, "\"sock_throttled_cgroup\":null,\"sock_throttled\":null}\n");
	free(text);

	/* cgroup v1: nothing about sockets */
	strcpy(st.layout.v1_memory, "/sys/fs/cgroup/memory");
	text = capture(&st, false);
	assert_null(strstr(text, "socket memory:"));
	free(text);
	text = capture(&st, true);
	expect_contains(text, "\"socket_accounting\":null,");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded_module),
		cmocka_unit_test(test_one_target),
		cmocka_unit_test(test_resident),
		cmocka_unit_test(test_skipped_not_counted),
		cmocka_unit_test(test_unreadable_module),
		cmocka_unit_test(test_module_missing),
		cmocka_unit_test(test_cmdline_socket_accounting),
		cmocka_unit_test(test_v2_sockets),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
