// SPDX-License-Identifier: GPL-2.0
/* JSON output (jansson, any bytes valid) and table layout. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "capture.h"
#include "commands.h"
#include "json.h"
#include "output.h"

/* The JSON text of json_text(s) as one line, owned by the test. */
static char *json_of(const char *s)
{
	struct capture c;
	char *text;

	assert_int_equal(json_print_line(capture_open(&c), json_text(s)), 0);
	text = capture_text(&c);
	text[strlen(text) - 1] = '\0';	/* the newline */
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
	/* no "\/": pft's "fault/wsec" key is matched as written */
	expect_json("fault/wsec", "\"fault/wsec\"");
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
	expect_json("\x01z\x1f", "\"\\u0001z\\u001F\"");
}

static void test_json_passes_utf8_through(void **state)
{
	(void)state;
	expect_json("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	expect_json("\xf0\x9f\x90\xa7", "\"\xf0\x9f\x90\xa7\"");
}

/* Issue 6: a non-UTF-8 argument made invalid JSON. */
static void test_json_replaces_invalid_utf8(void **state)
{
	(void)state;
	/* a lone continuation byte, Latin-1 é, a truncated sequence */
	expect_json("a\x80z", "\"a\xef\xbf\xbdz\"");
	expect_json("caf\xe9", "\"caf\xef\xbf\xbd\"");
	expect_json("\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	/* overlong "/", a surrogate, above U+10FFFF */
	expect_json("\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	expect_json("\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	expect_json("\xf4\x90\x80\x80",
		    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

/*
 * Any bytes at all give a document a strict parser (jansson's own, which
 * checks UTF-8) reads back; valid input comes back unchanged.
 */
static void test_json_any_bytes_parse_back(void **state)
{
	unsigned int seed = 20240611;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		char in[24], *text, *valid;
		json_error_t error;
		json_t *back;
		size_t n = (size_t)(rand_r(&seed) % (sizeof(in) - 1));

		for (size_t i = 0; i < n; i++)
			in[i] = (char)(1 + rand_r(&seed) % 255);
		in[n] = '\0';
		text = json_of(in);
		back = json_loads(text, JSON_DECODE_ANY, &error);
		if (!back)
			fail_msg("round %d: %s: %s", round, text, error.text);
		valid = utf8_sanitize(in);
		assert_non_null(valid);
		assert_string_equal(json_string_value(back), valid);
		/* sanitizing is idempotent: valid UTF-8 is left alone */
		free(text);
		text = utf8_sanitize(valid);
		assert_string_equal(text, valid);
		free(text);
		free(valid);
		json_decref(back);
	}
}

static void test_json_numbers(void **state)
{
	struct capture c;
	char *text;
	json_t *o = json_object();

	(void)state;
	json_put(o, "nan", json_real_or_null(NAN));
	json_put(o, "inf", json_real_or_null(INFINITY));
	json_put(o, "x", json_real_or_null(0.1));
	json_put(o, "big", json_count(UINT64_MAX));
	json_put(o, "pair", json_pair(1.5, NAN));
	assert_int_equal(json_print_line(capture_open(&c), o), 0);
	text = capture_text(&c);
	assert_non_null(strstr(text, "{\"nan\":null,\"inf\":null,\"x\":0.1,"
			       "\"big\":9223372036854775807,\"pair\":[1.5,null],"));
	free(text);
}

/* Every document names the tool's version and the kernel it ran on, last. */
static void test_json_names_version_and_kernel(void **state)
{
	struct capture c;
	struct utsname uts;
	char *text, expected[256];
	json_t *o = json_object(), *status = json_object();

	(void)state;
	assert_int_equal(uname(&uts), 0);
	json_put(o, "x", json_count(1));
	assert_int_equal(json_print_line(capture_open(&c), o), 0);
	text = capture_text(&c);
	snprintf(expected, sizeof(expected),
		 "{\"x\":1,\"vmpctl_version\":\"test\",\"kernel\":\"%s\"}\n",
		 uts.release);
	assert_string_equal(text, expected);
	free(text);
	/* a document that names its kernel keeps its own */
	json_put(status, "kernel", json_text("6.1.0-mine"));
	assert_int_equal(json_print_record(capture_open(&c), status), 0);
	text = capture_text(&c);
	assert_string_equal(text, "{\"kernel\":\"6.1.0-mine\",\"vmpctl_version\":\"test\"}\n");
	free(text);
	/* a bare value is left alone */
	assert_int_equal(json_print_line(capture_open(&c), json_text("v")), 0);
	text = capture_text(&c);
	assert_string_equal(text, "\"v\"\n");
	free(text);
}

/* A value jansson could not allocate fails the document, not half of it. */
static void test_json_put_null_fails_the_document(void **state)
{
	struct capture c;
	char *text;
	json_t *o = json_object();

	(void)state;
	json_put(o, "lost", NULL);
	assert_int_equal(json_print_line(capture_open(&c), o), -ENOMEM);
	text = capture_text(&c);
	assert_string_equal(text, "");
	free(text);
}

static char *table_text(const struct table *t)
{
	struct capture c;

	table_print(t, capture_open(&c));
	return capture_text(&c);
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

/* The character (not byte) offset of needle in the line of text it is on. */
static size_t column_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *line = at;
	size_t chars = 0;

	assert_non_null(at);
	while (line > text && line[-1] != '\n')
		line--;
	for (; line < at; line++)
		chars += ((unsigned char)*line & 0xc0) != 0x80;
	return chars;
}

/*
 * A multibyte label ("µs", "Δ") is as wide as its characters, and a table
 * wider than TABLE_WIDTH characters is fitted: its text column wraps.
 */
static void test_table_fits_width_in_characters(void **state)
{
	static const char *const headers[] = {
		"métrique", "B vs A", "95% CI", "p", "MDE", NULL
	};
	static const char *const short_row[] = {
		"µs/Δ", "+1.00%", "[-1.00%, +3.00%]", "0.03", "2.00%"
	};
	static const char *const long_row[] = {
		"latence µs — une étiquette très longue, bien plus large que la "
		"table ne peut l'être sur une ligne de cent caractères",
		"+10.00%", "[-10.00%, +30.00%]", "0.0312", "12.00%"
	};
	struct table t;
	char *text;

	(void)state;
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	assert_int_equal(table_init(&t, headers, 0x1e), 0);
	assert_int_equal(table_add_row(&t, short_row), 0);
	text = table_text(&t);
	/* the number after "µs/Δ" starts where the one after "métrique" does */
	assert_int_equal(column_of(text, "+1.00%") + strlen("+1.00%"),
			 column_of(text, "B vs A") + strlen("B vs A"));
	free(text);
	assert_int_equal(table_add_row(&t, long_row), 0);
	text = table_text(&t);
	assert_true(capture_widest_line(text) <= TABLE_WIDTH);
	/* the label wraps onto lines of its own; the numbers stay whole */
	assert_non_null(strstr(text, "latence µs"));
	assert_true(strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n') != NULL);
	assert_non_null(strstr(text, "[-10.00%, +30.00%]"));
	assert_non_null(strstr(text, "12.00%"));
	free(text);
	table_free(&t);
	setlocale(LC_CTYPE, "C");
}

static void test_table_raw_noheadings_and_columns(void **state)
{
	static const char *const headers[] = { "phase", "knob", "low", NULL };
	static const char *const other[] = { "B vs A", "95% CI", NULL };
	static const char *const *const tables[] = { headers, other, NULL };
	static const char *const row[] = { "re-enabled", "1", "12 345" };
	struct table t;
	char *text;

	(void)state;
	assert_int_equal(table_init(&t, headers, 0x6), 0);
	assert_int_equal(table_add_row(&t, row), 0);
	table_format.raw = true;
	text = table_text(&t);
	/* util-linux's raw form: a blank inside a cell is escaped */
	assert_string_equal(text, "phase knob low\nre-enabled 1 12\\x20345\n");
	free(text);
	table_format.raw = false;

	assert_int_equal(table_format_columns("test", "low,phase", tables), 0);
	table_format.noheadings = true;
	text = table_text(&t);
	assert_string_equal(text, "12 345  re-enabled\n");
	free(text);
	table_format.noheadings = false;

	/* names another table's columns only: this one prints nothing */
	assert_int_equal(table_format_columns("test", "95-ci,b-vs-a", tables), 0);
	text = table_text(&t);
	assert_string_equal(text, "");
	free(text);

	/* a column on request: left out by default, printed when named */
	t.on_request = 1u << 1;
	table_format.columns = NULL;
	text = table_text(&t);
	assert_string_equal(text, "phase          low\nre-enabled  12 345\n");
	free(text);
	assert_int_equal(table_format_option("test", "output", "knob", tables), 0);
	text = table_text(&t);
	assert_string_equal(text, "knob\n   1\n");
	free(text);
	t.on_request = 0;

	assert_int_equal(table_format_columns("test", "low,high", tables), EXIT_USAGE);
	assert_int_equal(table_format_columns("test", "low,", tables), EXIT_USAGE);
	table_format.columns = NULL;
	table_free(&t);
}

static void test_table_column_names(void **state)
{
	static const char *const cases[][2] = {
		{ "B vs A", "b-vs-a" }, { "95% CI", "95-ci" },
		{ "median 95% CI", "median-95-ci" }, { "pairs for 1%", "pairs" },
		{ "runs/arm for 2.5%", "runs-arm" }, { "User(s)", "user-s" },
		{ "TCP MB/s", "tcp-mb-s" }, { "p", "p" },
	};
	char name[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		table_column_name(cases[i][0], name, sizeof(name));
		assert_string_equal(name, cases[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_plain),
		cmocka_unit_test(test_json_escapes_quote_and_backslash),
		cmocka_unit_test(test_json_escapes_control_characters),
		cmocka_unit_test(test_json_passes_utf8_through),
		cmocka_unit_test(test_json_replaces_invalid_utf8),
		cmocka_unit_test(test_json_any_bytes_parse_back),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_put_null_fails_the_document),
		cmocka_unit_test(test_json_names_version_and_kernel),
		cmocka_unit_test(test_table_aligns_columns),
		cmocka_unit_test(test_table_left_aligned_last_column_has_no_trailing_space),
		cmocka_unit_test(test_table_rejects_bad_headers),
		cmocka_unit_test(test_table_fits_width_in_characters),
		cmocka_unit_test(test_table_raw_noheadings_and_columns),
		cmocka_unit_test(test_table_column_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
