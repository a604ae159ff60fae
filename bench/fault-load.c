// SPDX-License-Identifier: GPL-2.0
/*
 * fault-load KNOB EFFECT_PCT STEP_S [DURATION_S]: make bench section 4's
 * host workload
 * with a real injected effect. It faults in anonymous pages (256 KiB
 * mapped, written a page at a time, unmapped, again) and every STEP_S of
 * CLOCK_MONOTONIC prints a rate line (vmpctl(1), RATE LINES) of the pages
 * it counted. While KNOB holds "0" (ab's arm B) it spends EFFECT_PCT% of
 * its CPU time spinning after each region: B's rate of faults (counted and
 * the kernel's pgfault alike) is that much lower, by real work, and the
 * machine's own noise (other processes, the page allocator) is in both
 * arms as it is. With DURATION_S it ends after that long, its last line
 * "pages_per_s=R" (a whole run's metric).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGION (256UL << 10)

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/*
 * The CPU time it ran: B's extra work is measured in it, not in wall
 * time, which would count the time other processes ran in between twice
 * (in the region's time and again while it spins).
 */
static double cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* Whether KNOB holds "0": arm B. */
static bool arm_b(const char *knob)
{
	char v[16] = "";
	FILE *f = fopen(knob, "re");

	if (!f)
		return false;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	return v[0] == '0';
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	double share, step, last, duration = 0, started;
	unsigned long total = 0;
	unsigned long counted = 0;
	bool b;

	if (argc < 4 || argc > 5 || (share = atof(argv[2]) / 100) < 0 || share >= 1 ||
	    (step = atof(argv[3])) <= 0 || (argc == 5 && (duration = atof(argv[4])) <= 0)) {
		fprintf(stderr, "usage: fault-load KNOB EFFECT_PCT STEP_S [DURATION_S]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	b = arm_b(argv[1]);
	started = last = now_s();
	for (;;) {
		char *m = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t, faulted = cpu_s();

		if (m == MAP_FAILED) {
			perror("fault-load: mmap");
			return 1;
		}
		for (size_t off = 0; off < REGION; off += page)
			m[off] = 1;
		munmap(m, REGION);
		counted += REGION / page;
		total += REGION / page;
		if (b) {
			/* that share of B's CPU time: spin the rest of it */
			double spun = cpu_s(), until = spun + (spun - faulted) * share / (1 - share);

			while (cpu_s() < until)
				;
		}
		t = now_s();
		if (duration && t - started >= duration) {
			printf("pages_per_s=%.1f\n", (double)total / (t - started));
			return 0;
		}
		if (t - last < step)
			continue;
		printf("{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%lu}\n",
		       t, t - last, counted);
		counted = 0;
		last = t;
		b = arm_b(argv[1]);
	}
}
