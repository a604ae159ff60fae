// SPDX-License-Identifier: GPL-2.0
/* Level/mode names, the cgroup.event_control line, eventfd draining. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "pressure.h"

static void test_level_parse(void **state)
{
	unsigned int mask = 0;

	(void)state;
	assert_int_equal(pressure_level_parse("low", &mask), 0);
	assert_int_equal(mask, 1u << PRESSURE_LOW);
	assert_int_equal(pressure_level_parse("medium", &mask), 0);
	assert_int_equal(mask, 1u << PRESSURE_MEDIUM);
	assert_int_equal(pressure_level_parse("critical", &mask), 0);
	assert_int_equal(mask, 1u << PRESSURE_CRITICAL);
	assert_int_equal(pressure_level_parse("all", &mask), 0);
	assert_int_equal(mask, 7);
	assert_int_equal(pressure_level_parse("Low", &mask), -EINVAL);
	assert_int_equal(pressure_level_parse("", &mask), -EINVAL);
	assert_int_equal(pressure_level_parse("high", &mask), -EINVAL);
}

static void test_mode_parse(void **state)
{
	enum pressure_mode mode = PRESSURE_MODE_LOCAL;

	(void)state;
	assert_int_equal(pressure_mode_parse("default", &mode), 0);
	assert_int_equal(mode, PRESSURE_MODE_DEFAULT);
	assert_int_equal(pressure_mode_parse("hierarchy", &mode), 0);
	assert_int_equal(mode, PRESSURE_MODE_HIERARCHY);
	assert_int_equal(pressure_mode_parse("local", &mode), 0);
	assert_int_equal(mode, PRESSURE_MODE_LOCAL);
	assert_int_equal(pressure_mode_parse("global", &mode), -EINVAL);
	assert_string_equal(pressure_mode_name(PRESSURE_MODE_HIERARCHY), "hierarchy");
	assert_string_equal(pressure_level_name(PRESSURE_CRITICAL), "critical");
}

static void test_registration_line(void **state)
{
	char line[64];

	(void)state;
	assert_int_equal(pressure_registration_line(line, sizeof(line), 5, 4,
			 PRESSURE_MEDIUM, PRESSURE_MODE_DEFAULT), 0);
	/* default mode stays implicit: kernels before 4.10 know no modes */
	assert_string_equal(line, "5 4 medium");
	assert_int_equal(pressure_registration_line(line, sizeof(line), 12, 3,
			 PRESSURE_LOW, PRESSURE_MODE_HIERARCHY), 0);
	assert_string_equal(line, "12 3 low,hierarchy");
	assert_int_equal(pressure_registration_line(line, sizeof(line), 7, 3,
			 PRESSURE_CRITICAL, PRESSURE_MODE_LOCAL), 0);
	assert_string_equal(line, "7 3 critical,local");
	assert_int_equal(pressure_registration_line(line, 6, 7, 3,
			 PRESSURE_CRITICAL, PRESSURE_MODE_LOCAL), -ENAMETOOLONG);
	assert_int_equal(pressure_registration_line(line, sizeof(line), 7, 3,
			 PRESSURE_LEVELS, PRESSURE_MODE_LOCAL), -EINVAL);
}

static void signal_eventfd(int fd, uint64_t n)
{
	assert_int_equal(write(fd, &n, sizeof(n)), sizeof(n));
}

static void test_eventfd_drain_reads_and_resets(void **state)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	uint64_t count = 99;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(eventfd_drain(fd, &count), 0);
	assert_int_equal(count, 0);
	signal_eventfd(fd, 1);
	signal_eventfd(fd, 1);
	signal_eventfd(fd, 1);
	assert_int_equal(eventfd_drain(fd, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(eventfd_drain(fd, &count), 0);
	assert_int_equal(count, 0);
	close(fd);
	assert_int_equal(eventfd_drain(fd, &count), -EBADF);
}

static void test_listener_drain_accumulates_per_level(void **state)
{
	struct pressure_listener pl;
	uint64_t counts[PRESSURE_LEVELS] = { 10, 20, 30 };

	(void)state;
	pressure_init(&pl);
	/* nothing registered: draining adds nothing */
	assert_int_equal(pressure_drain(&pl, counts), 0);
	assert_int_equal(counts[PRESSURE_LOW], 10);
	pl.levels = (1u << PRESSURE_LOW) | (1u << PRESSURE_CRITICAL);
	pl.event_fd[PRESSURE_LOW] = eventfd(0, EFD_NONBLOCK);
	pl.event_fd[PRESSURE_CRITICAL] = eventfd(0, EFD_NONBLOCK);
	assert_true(pl.event_fd[PRESSURE_LOW] >= 0);
	assert_true(pl.event_fd[PRESSURE_CRITICAL] >= 0);

	assert_int_equal(pressure_wait(&pl, 0), 0);
	signal_eventfd(pl.event_fd[PRESSURE_LOW], 4);
	signal_eventfd(pl.event_fd[PRESSURE_CRITICAL], 1);
	assert_int_equal(pressure_wait(&pl, 0), 1);
	assert_int_equal(pressure_drain(&pl, counts), 0);
	assert_int_equal(counts[PRESSURE_LOW], 14);
	assert_int_equal(counts[PRESSURE_MEDIUM], 20);
	assert_int_equal(counts[PRESSURE_CRITICAL], 31);
	/* drained: nothing pending, a second drain adds nothing */
	assert_int_equal(pressure_wait(&pl, 0), 0);
	assert_int_equal(pressure_drain(&pl, counts), 0);
	assert_int_equal(counts[PRESSURE_LOW], 14);

	pressure_close(&pl);
	assert_int_equal(pl.event_fd[PRESSURE_LOW], -1);
	assert_int_equal(pl.levels, 0);
}

static void test_listen_without_pressure_level_fails_cleanly(void **state)
{
	struct pressure_listener pl;

	(void)state;
	assert_int_equal(pressure_listen(&pl, "/nonexistent-vmpctl-cgroup",
					 PRESSURE_ALL_LEVELS,
					 PRESSURE_MODE_DEFAULT), -ENOENT);
	assert_int_equal(pl.levels, 0);
	assert_int_equal(pl.event_fd[PRESSURE_LOW], -1);
	assert_int_equal(pl.event_fd[PRESSURE_CRITICAL], -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_parse),
		cmocka_unit_test(test_mode_parse),
		cmocka_unit_test(test_registration_line),
		cmocka_unit_test(test_eventfd_drain_reads_and_resets),
		cmocka_unit_test(test_listener_drain_accumulates_per_level),
		cmocka_unit_test(test_listen_without_pressure_level_fails_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
