// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab: the kernel counters of the sanity checks (/proc/vmstat's
 * reclaim, vmpressure_ctl's skipped) and what they say about a run.
 */
#include "ab.h"
#include "session.h"
#include "fileio.h"
#include "knob.h"

#include <errno.h>
#include <string.h>

static int sum_keys(const char *text, const char *const *keys, uint64_t *sum)
{
	uint64_t value;

	*sum = 0;
	for (; *keys; keys++) {
		if (find_keyed_u64(text, *keys, &value))
			return -ENOENT;
		*sum += value;
	}
	return 0;
}

int ab_parse_reclaim(const char *vmstat, uint64_t *pgscan, uint64_t *pgsteal)
{
	static const char *const scan_lru[] = { "pgscan_anon", "pgscan_file", NULL };
	static const char *const steal_lru[] = { "pgsteal_anon", "pgsteal_file", NULL };
	static const char *const scan_old[] = { "pgscan_kswapd", "pgscan_direct", NULL };
	static const char *const steal_old[] = { "pgsteal_kswapd", "pgsteal_direct", NULL };

	if (!sum_keys(vmstat, scan_lru, pgscan) &&
	    !sum_keys(vmstat, steal_lru, pgsteal))
		return 0;
	if (!sum_keys(vmstat, scan_old, pgscan) &&
	    !sum_keys(vmstat, steal_old, pgsteal))
		return 0;
	return -ENOENT;
}

unsigned int ab_run_warnings(const struct ab_run *run, bool vmpressure_knob)
{
	unsigned int warnings = 0;

	if (!vmpressure_knob)
		return 0;
	if (run->have_reclaim && run->pgscan == 0)
		warnings |= AB_WARN_NO_RECLAIM;
	if (run->have_skipped && run->arm == AB_ARM_B && run->skipped == 0 &&
	    !(warnings & AB_WARN_NO_RECLAIM))
		warnings |= AB_WARN_B_NOT_SKIPPED;
	if (run->have_skipped && run->arm == AB_ARM_A && run->skipped > 0)
		warnings |= AB_WARN_A_SKIPPED;
	return warnings;
}

void ab_read_counters(const struct ab_session *s, struct ab_counters *c)
{
	static char vmstat[32768];

	memset(c, 0, sizeof(*c));
	c->have_reclaim = read_text_file("/proc/vmstat", vmstat,
					 sizeof(vmstat)) == 0 &&
		ab_parse_reclaim(vmstat, &c->pgscan, &c->pgsteal) == 0;
	if (s->vmpressure_knob)
		c->have_skipped = vmp_read_skipped(&c->skipped) == 0;
}

void ab_counter_deltas(const struct ab_counters *before,
		       const struct ab_counters *after, struct ab_run *run)
{
	run->have_reclaim = before->have_reclaim && after->have_reclaim;
	if (run->have_reclaim) {
		run->pgscan = after->pgscan - before->pgscan;
		run->pgsteal = after->pgsteal - before->pgsteal;
	}
	run->have_skipped = before->have_skipped && after->have_skipped;
	if (run->have_skipped)
		run->skipped = after->skipped - before->skipped;
}
