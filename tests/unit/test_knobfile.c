// SPDX-License-Identifier: GPL-2.0
/*
 * Knobs of every kind (tools/knobfile.c): the kind and value of a knob's
 * text, and whole save/set/restore cycles on scratch files. Kernel files
 * (sysfs lists, sysctls) are exercised in the VM guests and, read-only, by
 * host/test-knobs.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "knobfile.h"

static char dir[] = "/tmp/vmpctl-knobfile-XXXXXX";
static char path[128];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/knob", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static void put(const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static size_t get(char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	return (size_t)n;
}

static void expect_content(const char *want, size_t len)
{
	char buf[256];

	assert_int_equal(get(buf, sizeof(buf)), len);
	assert_memory_equal(buf, want, len);
}

static void test_kinds_of_text(void **state)
{
	char value[64];

	(void)state;
	assert_int_equal(knob_kind_of(false, "always [madvise] never\n"), KNOB_FILE);
	assert_int_equal(knob_kind_of(true, "always [madvise] never\n"), KNOB_LIST);
	assert_int_equal(knob_kind_of(true, "[none] mq-deadline\n"), KNOB_LIST);
	assert_int_equal(knob_kind_of(true, "4096\t131072\t6291456\n"), KNOB_VALUE);
	assert_int_equal(knob_kind_of(true, "1\n"), KNOB_VALUE);
	/* two selections, or brackets around nothing: not a choice list */
	assert_int_equal(knob_kind_of(true, "[a] [b]\n"), KNOB_VALUE);
	assert_int_equal(knob_kind_of(true, "[] a\n"), KNOB_VALUE);

	knob_value_of(KNOB_LIST, "always [madvise] never\n", value, sizeof(value));
	assert_string_equal(value, "madvise");
	knob_value_of(KNOB_VALUE, "4096\t131072  6291456\n", value, sizeof(value));
	assert_string_equal(value, "4096 131072 6291456");
	knob_value_of(KNOB_FILE, "1\n0\n", value, sizeof(value));
	assert_string_equal(value, "1\n0");
}

static void test_value_matches(void **state)
{
	struct knob k = { .kind = KNOB_VALUE };

	(void)state;
	assert_true(knob_value_matches(&k, "4096 131072 6291456",
				       "4096\t131072 6291456"));
	assert_false(knob_value_matches(&k, "67108864", "64M"));
	k.kind = KNOB_LIST;
	assert_true(knob_value_matches(&k, "never", "never"));
	assert_false(knob_value_matches(&k, "madvise", "never"));
}

static void test_list_accepts_its_choices_only(void **state)
{
	char found[] = "always [madvise] never\n";
	struct knob k = { .kind = KNOB_LIST, .found = found };

	(void)state;
	assert_int_equal(knob_accepts(&k, "always"), 0);
	assert_int_equal(knob_accepts(&k, "madvise"), 0);
	assert_int_equal(knob_accepts(&k, "never"), 0);
	assert_int_equal(knob_accepts(&k, "[madvise]"), -EINVAL);
	assert_int_equal(knob_accepts(&k, "sometimes"), -EINVAL);
	assert_string_equal(k.why, "offers only: always [madvise] never");
	assert_int_equal(knob_accepts(&k, "alway"), -EINVAL);
}

/* Issue 1: "1\n" with --a 1 --b 100 left "1\n0\n" and arm A read "1\n0". */
static void test_file_knob_is_truncated_and_restored(void **state)
{
	struct knob k;
	char now[64];

	(void)state;
	put("1\n", 2);
	assert_int_equal(knob_open(&k, path), 0);
	assert_int_equal(k.kind, KNOB_FILE);
	assert_int_equal(knob_set(&k, "100"), 0);
	expect_content("100\n", 4);
	assert_int_equal(knob_set(&k, "1"), 0);
	expect_content("1\n", 2);
	assert_int_equal(knob_read_value(&k, now, sizeof(now)), 0);
	assert_true(knob_value_matches(&k, now, "1"));
	assert_int_equal(knob_set(&k, "100"), 0);
	assert_int_equal(knob_restore(&k), 0);
	expect_content("1\n", 2);
	knob_close(&k);
}

/* Whatever the file held comes back byte for byte, newline or not. */
static void test_file_knob_restores_exact_bytes(void **state)
{
	static const char odd[] = "two\nlines, no final newline";
	struct knob k;

	(void)state;
	put(odd, sizeof(odd) - 1);
	assert_int_equal(knob_open(&k, path), 0);
	assert_int_equal(knob_set(&k, "x"), 0);
	assert_int_equal(knob_restore(&k), 0);
	expect_content(odd, sizeof(odd) - 1);
	knob_close(&k);
	/* an empty file is a knob too */
	put("", 0);
	assert_int_equal(knob_open(&k, path), 0);
	assert_int_equal(knob_set(&k, "x"), 0);
	assert_int_equal(knob_restore(&k), 0);
	expect_content("", 0);
	knob_close(&k);
}

/* Issue 5: restore only what was written, once. */
static void test_restore_only_after_a_write(void **state)
{
	struct knob k;

	(void)state;
	put("1\n", 2);
	assert_int_equal(knob_open(&k, path), 0);
	put("changed by someone else\n", 24);
	assert_int_equal(knob_restore(&k), 0);
	expect_content("changed by someone else\n", 24);
	assert_int_equal(knob_set(&k, "0"), 0);
	assert_int_equal(knob_restore(&k), 0);
	expect_content("1\n", 2);
	/* a later change is not undone by a second restore */
	put("2\n", 2);
	assert_int_equal(knob_restore(&k), 0);
	expect_content("2\n", 2);
	knob_close(&k);
}

/* A restore that does not read back as found is an error. */
static void test_restore_checks_the_result(void **state)
{
	char old[160];
	struct knob k;

	(void)state;
	put("1\n", 2);
	assert_int_equal(knob_open(&k, path), 0);
	assert_int_equal(knob_set(&k, "0"), 0);
	/* the file is replaced (the old one kept, so its inode is not reused) */
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(rename(path, old), 0);
	put("1\n", 2);
	assert_int_equal(knob_restore(&k), -ESTALE);
	assert_string_equal(k.why, "is no longer the file found at the start");
	knob_close(&k);
	unlink(old);
}

/* Issue 5: a FIFO hung in open(); other non-files are refused too. */
static void test_refuses_what_is_not_a_regular_file(void **state)
{
	char fifo[160];
	struct knob k;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(knob_open(&k, fifo), -EINVAL);
	assert_string_equal(k.why, "is a FIFO: a knob is a regular file");
	unlink(fifo);
	assert_int_equal(knob_open(&k, dir), -EINVAL);
	assert_string_equal(k.why, "is a directory: a knob is a regular file");
	assert_int_equal(knob_open(&k, "/dev/null"), -EINVAL);
	assert_int_equal(knob_open(&k, "/nonexistent/knob"), -ENOENT);
	assert_string_equal(k.why, "cannot be read: No such file or directory");
}

static void test_refuses_large_files(void **state)
{
	static char big[KNOB_FILE_MAX + 1];
	struct knob k;

	(void)state;
	memset(big, 'x', sizeof(big));
	put(big, sizeof(big));
	assert_int_equal(knob_open(&k, path), -EFBIG);
	put(big, sizeof(big) - 1);
	assert_int_equal(knob_open(&k, path), 0);
	knob_close(&k);
}

/* 0 when knob_open() refuses path as unwritable, as it should. */
static int refused_as_unwritable(void)
{
	struct knob k;

	return knob_open(&k, path) == -EACCES &&
		strcmp(k.why, "cannot be written: Permission denied") == 0 ? 0 : 1;
}

/*
 * A read-only file is refused before anything is written. Root may write
 * 0444 files, so as root the check runs in a child that became nobody;
 * host/test-knobs.sh shows root refused on a read-only kernel file.
 */
static void test_refuses_unwritable(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	put("1\n", 2);
	assert_int_equal(chmod(path, 0444), 0);
	assert_int_equal(chmod(dir, 0755), 0);
	if (geteuid() != 0) {
		assert_int_equal(refused_as_unwritable(), 0);
	} else {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgid(65534) || setuid(65534))
				_exit(100);
			_exit(refused_as_unwritable());
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	chmod(dir, 0700);
	chmod(path, 0644);
}

/* Messages show the found value on one line. */
static void test_found_display_escapes(void **state)
{
	char shown[64];
	struct knob k;

	(void)state;
	put("a\tb\nc\n", 6);
	assert_int_equal(knob_open(&k, path), 0);
	assert_string_equal(knob_found_display(&k, shown, sizeof(shown)),
			    "a\\tb\\nc");
	knob_close(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_of_text),
		cmocka_unit_test(test_value_matches),
		cmocka_unit_test(test_list_accepts_its_choices_only),
		cmocka_unit_test(test_file_knob_is_truncated_and_restored),
		cmocka_unit_test(test_file_knob_restores_exact_bytes),
		cmocka_unit_test(test_restore_only_after_a_write),
		cmocka_unit_test(test_restore_checks_the_result),
		cmocka_unit_test(test_refuses_what_is_not_a_regular_file),
		cmocka_unit_test(test_refuses_large_files),
		cmocka_unit_test(test_refuses_unwritable),
		cmocka_unit_test(test_found_display_escapes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
