// SPDX-License-Identifier: GPL-2.0
/*
 * Counting vmpressure_work_fn's runs in a function tracer's buffer
 * (tools/worktrace.c): only its own call lines count, not the header, not
 * a function whose name starts the same, not a line that only mentions it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "worktrace.h"

static uint64_t count(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	uint64_t runs;

	assert_non_null(f);
	runs = work_trace_count_runs(f);
	fclose(f);
	return runs;
}

static void test_counts_the_calls(void **state)
{
	static const char trace[] =
		"# tracer: function\n"
		"#\n"
		"# entries-in-buffer/entries-written: 3/3   #P:2\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"     kworker/1:2-57      [001] ..... 12.345678: vmpressure_work_fn <-process_one_work\n"
		"     kworker/0:1-23      [000] ..... 12.400001: vmpressure_work_fn <-process_one_work\n"
		"     kworker/0:1-23      [000] ..... 12.500002: vmpressure_work_fn_other <-process_one_work\n"
		"     kworker/0:1-23      [000] ..... 12.600003: vmpressure_work_fn <-process_one_work\n";

	(void)state;
	assert_int_equal(count(trace), 3);
}

static void test_empty_buffer_is_zero(void **state)
{
	(void)state;
	assert_int_equal(count("# tracer: function\n#\n"), 0);
	assert_int_equal(count(""), 0);
	/* the header's own example line is a comment */
	assert_int_equal(count("# x-1 [000] ..... 1.0: vmpressure_work_fn <-process_one_work\n"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_the_calls),
		cmocka_unit_test(test_empty_buffer_is_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
