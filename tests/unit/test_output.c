// SPDX-License-Identifier: GPL-2.0
/* JSON string escaping and table layout. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output.h"

/* Runs json_write_string into a string the test owns. */
static char *json_of(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	json_write_string(out, s);
	fclose(out);
	return text;
}

static void expect_json(const char *in, const char *want)
{
	char *got = json_of(in);

	assert_string_equal(got, want);
	free(got);
}

static void test_json_plain(void **state)
{
	(void)state;
	expect_json("ftrace", "\"ftrace\"");
	expect_json("", "\"\"");
}

static void test_json_escapes_quote_and_backslash(void **state)
{
	(void)state;
	expect_json("a\"b", "\"a\\\"b\"");
	expect_json("C:\\x", "\"C:\\\\x\"");
}

static void test_json_escapes_control_characters(void **state)
{
	(void)state;
	expect_json("a\nb\tc\r", "\"a\\nb\\tc\\r\"");
	expect_json("\b\f", "\"\\b\\f\"");
	expect_json("\x01z\x1f", "\"\\u0001z\\u001f\"");
	expect_json("\x7f", "\"\\u007f\"");
}

static void test_json_passes_utf8_through(void **state)
{
	(void)state;
	expect_json("caf\xc3\xa9", "\"caf\xc3\xa9\"");
}

static char *table_text(const struct table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	table_print(t, out);
	fclose(out);
	return text;
}

static void test_table_aligns_columns(void **state)
{
	static const char *const headers[] = { "phase", "knob", "low", NULL };
	static const char *const row1[] = { "enabled", "1", "12345" };
	static const char *const row2[] = { "disabled", "0", "0" };
	struct table t;
	char *text;

	(void)state;
	/* columns 1 and 2 hold numbers */
	assert_int_equal(table_init(&t, headers, 0x6), 0);
	assert_int_equal(table_add_row(&t, row1), 0);
	assert_int_equal(table_add_row(&t, row2), 0);
	text = table_text(&t);
	assert_string_equal(text,
			    "phase     knob    low\n"
			    "enabled      1  12345\n"
			    "disabled     0      0\n");
	free(text);
	table_free(&t);
}

static void test_table_left_aligned_last_column_has_no_trailing_space(void **state)
{
	static const char *const headers[] = { "a", "name", NULL };
	static const char *const row[] = { "1", "x" };
	struct table t;
	char *text;

	(void)state;
	assert_int_equal(table_init(&t, headers, 0), 0);
	assert_int_equal(table_add_row(&t, row), 0);
	text = table_text(&t);
	assert_string_equal(text, "a  name\n1  x\n");
	free(text);
	table_free(&t);
}

static void test_table_rejects_bad_headers(void **state)
{
	static const char *const none[] = { NULL };
	const char *many[TABLE_MAX_COLUMNS + 2];
	struct table t;
	int i;

	(void)state;
	assert_int_equal(table_init(&t, none, 0), -EINVAL);
	for (i = 0; i < TABLE_MAX_COLUMNS + 1; i++)
		many[i] = "h";
	many[TABLE_MAX_COLUMNS + 1] = NULL;
	assert_int_equal(table_init(&t, many, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_plain),
		cmocka_unit_test(test_json_escapes_quote_and_backslash),
		cmocka_unit_test(test_json_escapes_control_characters),
		cmocka_unit_test(test_json_passes_utf8_through),
		cmocka_unit_test(test_table_aligns_columns),
		cmocka_unit_test(test_table_left_aligned_last_column_has_no_trailing_space),
		cmocka_unit_test(test_table_rejects_bad_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
