// SPDX-License-Identifier: GPL-2.0
/*
 * The sources of progress (sources.h) as one table, from source_list.h,
 * and a source's life while the command runs.
 */
#include "output.h"
#include "sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AB_SOURCE(name) extern const struct ab_source_ops ab_source_##name;
#include "source_list.h"
#undef AB_SOURCE

#define AB_SOURCE(name) &ab_source_##name,
const struct ab_source_ops *const ab_sources[] = {
#include "source_list.h"
	NULL
};
#undef AB_SOURCE

const struct ab_source_ops *ab_source_preset(const char *name)
{
	for (size_t i = 0; ab_sources[i]; i++)
		if (ab_sources[i]->family == AB_SOURCE_PRESET &&
		    strcmp(ab_sources[i]->name, name) == 0)
			return ab_sources[i];
	return NULL;
}

void ab_source_preset_names(char *buf, size_t size)
{
	size_t n = 0, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; ab_sources[i]; i++)
		n += ab_sources[i]->family == AB_SOURCE_PRESET;
	for (size_t i = 0, k = 0; ab_sources[i] && len < size; i++) {
		if (ab_sources[i]->family != AB_SOURCE_PRESET)
			continue;
		k++;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					k == 1 ? "" : k == n ? " or " : ", ",
					ab_sources[i]->name);
	}
}

const struct ab_source_ops *ab_source_by_option(const char *option)
{
	for (size_t i = 0; ab_sources[i]; i++)
		if (ab_sources[i]->family != AB_SOURCE_PRESET &&
		    strcmp(ab_sources[i]->option, option) == 0)
			return ab_sources[i];
	return NULL;
}

void ab_source_open(struct ab_source *src, const struct ab_source_ops *ops,
		    const void *config)
{
	*src = (struct ab_source){ .ops = ops, .config = config };
}

void ab_source_free(struct ab_source *src)
{
	if (src->state && src->ops->release)
		src->ops->release(src->state);
	free(src->state);
	src->state = NULL;
}

const char *ab_source_name(const struct ab_source *src)
{
	return src->ops->name;
}

bool ab_source_takes_lines(const struct ab_source *src)
{
	return src->ops && src->ops->take;
}

bool ab_source_polled(const struct ab_source *src)
{
	return src->ops && src->ops->sample;
}

/* The source's state, zeroed at first use; NULL: out of memory. */
static void *state_of(struct ab_source *src)
{
	if (!src->state)
		src->state = calloc(1, src->ops->state_size ? src->ops->state_size : 1);
	return src->state;
}

int ab_source_take(struct ab_source *src, const char *line, size_t len,
		   double arrival, struct ab_sample *out)
{
	char text[RATE_LINE_MAX];

	if (!state_of(src))
		return -ENOMEM;
	if (src->ops->whole_lines)
		return src->ops->take(src->state, src->config, line, len, arrival, out);
	/* the other reports are short lines; longer ones are something else */
	if (len >= sizeof(text))
		return 0;
	memcpy(text, line, len);
	text[len] = '\0';
	return src->ops->take(src->state, src->config, text, len, arrival, out);
}

int ab_source_finish(struct ab_source *src, struct ab_sample *out)
{
	if (!src->state || !src->ops->finish)
		return 0;
	return src->ops->finish(src->state, out);
}

int ab_source_sample(struct ab_source *src, bool since_last,
		     struct ab_sample *out)
{
	if (!state_of(src)) {
		vmpctl_error("ab: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return src->ops->sample(src->state, src->config, since_last, out);
}
