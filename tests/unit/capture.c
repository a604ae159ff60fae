// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
