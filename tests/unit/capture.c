// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "capture.h"

FILE *capture_open(struct capture *c)
{
	c->text = NULL;
	c->size = 0;
	c->out = open_memstream(&c->text, &c->size);
	assert_non_null(c->out);
	return c->out;
}

char *capture_text(struct capture *c)
{
	assert_int_equal(fclose(c->out), 0);
	c->out = NULL;
	assert_non_null(c->text);
	return c->text;
}

char *capture_json_text(struct capture *c)
{
	static const char version[] = ",\"vmpctl_version\":\"test\"";
	char kernel[128], *text = capture_text(c), *at;
	struct utsname uts;
	size_t len;

	assert_int_equal(uname(&uts), 0);
	snprintf(kernel, sizeof(kernel), ",\"kernel\":\"%s\"}\n", uts.release);
	at = strstr(text, version);
	assert_non_null(at);
	/* its last member, or last but the kernel's */
	if (strcmp(at + strlen(version), "}\n") != 0)
		assert_string_equal(at + strlen(version), kernel);
	len = strlen(at + strlen(version));
	memmove(at, at + strlen(version) + len - 2, 3);
	return text;
}

size_t capture_widest_line(const char *text)
{
	size_t widest = 0;

	while (*text) {
		size_t len = strcspn(text, "\n"), chars = 0;
		mbstate_t st;

		memset(&st, 0, sizeof(st));
		for (size_t i = 0; i < len;) {
			size_t n = mbrlen(text + i, len - i, &st);

			assert_true(n > 0 && n <= len - i);
			i += n;
			chars++;
		}
		if (chars > widest)
			widest = chars;
		text += len + (text[len] == '\n');
	}
	return widest;
}
