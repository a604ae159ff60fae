// SPDX-License-Identifier: GPL-2.0
/*
 * json-valid: exits 0 when stdin is exactly one JSON document followed by
 * one newline, as jansson's strict decoder (UTF-8 checked) reads it; else
 * prints why and exits 1. The host tests check vmpctl's --json with it.
 */
#include <jansson.h>
#include <stdio.h>

int main(void)
{
	json_error_t error;
	json_t *doc = json_loadf(stdin, JSON_DISABLE_EOF_CHECK, &error);
	int next;

	if (!doc) {
		fprintf(stderr, "json-valid: line %d column %d: %s\n", error.line,
			error.column, error.text);
		return 1;
	}
	json_decref(doc);
	next = getchar();
	if (next != '\n' || getchar() != EOF) {
		fprintf(stderr, "json-valid: not one document on one line\n");
		return 1;
	}
	return 0;
}
