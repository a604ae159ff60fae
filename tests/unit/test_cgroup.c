// SPDX-License-Identifier: GPL-2.0
/* Finding the memory hierarchy in /proc/mounts; existing-cgroup checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup.h"

static void test_v1_hybrid_layout(void **state)
{
	const char *mounts =
		"sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
		"tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
		"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
		"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
		"cgroup /sys/fs/cgroup/memory cgroup rw,nosuid,relatime,memory 0 0\n"
		"cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\n";
	struct cgroup_layout l;

	(void)state;
	cgroup_layout_parse(mounts, &l);
	assert_string_equal(l.v1_memory, "/sys/fs/cgroup/memory");
	assert_string_equal(l.v2_root, "/sys/fs/cgroup/unified");
}

static void test_pure_v2_layout(void **state)
{
	/* Debian 6.12: no v1 memory; memory_recursiveprot is not "memory" */
	const char *mounts =
		"proc /proc proc rw,relatime 0 0\n"
		"cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0";
	struct cgroup_layout l;

	(void)state;
	cgroup_layout_parse(mounts, &l);
	assert_string_equal(l.v1_memory, "");
	assert_string_equal(l.v2_root, "/sys/fs/cgroup");
}

static void test_v1_memory_among_other_controllers(void **state)
{
	const char *mounts =
		"none /cg cgroup rw,cpuset,memory,pids 0 0\n"
		"none /cg2 cgroup rw,memory 0 0\n";
	struct cgroup_layout l;

	(void)state;
	cgroup_layout_parse(mounts, &l);
	/* first mount wins; later ones are bind mounts */
	assert_string_equal(l.v1_memory, "/cg");
}

static void test_escaped_mount_point(void **state)
{
	const char *mounts = "cgroup /mnt/my\\040cgroups/mem cgroup rw,memory 0 0\n";
	struct cgroup_layout l;

	(void)state;
	cgroup_layout_parse(mounts, &l);
	assert_string_equal(l.v1_memory, "/mnt/my cgroups/mem");
}

static void test_no_cgroups(void **state)
{
	const char *mounts = "proc /proc proc rw 0 0\nnone /memory tmpfs rw,memory 0 0\n";
	struct cgroup_layout l;

	(void)state;
	cgroup_layout_parse(mounts, &l);
	assert_string_equal(l.v1_memory, "");
	assert_string_equal(l.v2_root, "");
	cgroup_layout_parse("", &l);
	assert_string_equal(l.v1_memory, "");
	assert_false(cgroup_v2_has_memory(&l));
}

static void test_create_without_memory_controller(void **state)
{
	struct cgroup_layout l = { "", "" };
	struct memcg cg;

	(void)state;
	assert_int_equal(memcg_create_temp(&l, 1 << 20, &cg), -ENODEV);
	assert_false(cg.created);
}

static void test_open_existing_rejects_non_cgroups(void **state)
{
	char dir[] = "/tmp/vmpctl-test-XXXXXX";
	struct memcg cg;

	(void)state;
	assert_int_equal(memcg_open_existing("/nonexistent-vmpctl", &cg), -ENOENT);
	assert_int_equal(memcg_open_existing("/proc/self/status", &cg), -ENOTDIR);
	assert_non_null(mkdtemp(dir));
	/* a directory that is not on a cgroup filesystem */
	assert_int_equal(memcg_open_existing(dir, &cg), -ENOTDIR);
	rmdir(dir);
	/* memcg_remove never touches what it did not create */
	assert_false(cg.created);
	assert_int_equal(memcg_remove(&cg), 0);
}

static void test_pgscan_source(void **state)
{
	struct memcg v1 = { .version = 1 }, v2 = { .version = 2 };

	(void)state;
	assert_false(memcg_pgscan_is_local(&v1));
	assert_true(memcg_pgscan_is_local(&v2));
	assert_false(memcg_has_pressure_level(&v2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_hybrid_layout),
		cmocka_unit_test(test_pure_v2_layout),
		cmocka_unit_test(test_v1_memory_among_other_controllers),
		cmocka_unit_test(test_escaped_mount_point),
		cmocka_unit_test(test_no_cgroups),
		cmocka_unit_test(test_create_without_memory_controller),
		cmocka_unit_test(test_open_existing_rejects_non_cgroups),
		cmocka_unit_test(test_pgscan_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
