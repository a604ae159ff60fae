// SPDX-License-Identifier: GPL-2.0
/*
 * The grammar of the enabled attribute: exactly one of the words below, in
 * any case, optionally followed by one newline; anything else is -EINVAL.
 * kstrtobool() alone reads only the first characters, so it takes "0x1" as
 * false, "1abc" as true and "nah" as false.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "vmpressure_ctl.h"

static const struct {
	const char *word;
	bool value;
} vmpc_knob_words[] = {
	{ "1", true },	 { "y", true },	  { "yes", true },  { "on", true },
	{ "true", true }, { "0", false },  { "n", false },   { "no", false },
	{ "off", false }, { "false", false },
};

int vmpc_parse_knob(const char *buf, size_t count, bool *val)
{
	unsigned int i;

	if (count && buf[count - 1] == '\n')
		count--;
	/* Compared over count bytes: an embedded NUL is a mismatch. */
	for (i = 0; i < ARRAY_SIZE(vmpc_knob_words); i++) {
		const char *word = vmpc_knob_words[i].word;

		if (strlen(word) == count && !strncasecmp(buf, word, count)) {
			*val = vmpc_knob_words[i].value;
			return 0;
		}
	}
	return -EINVAL;
}
