// SPDX-License-Identifier: GPL-2.0
/*
 * aa-workload SEED STEP_S DURATION_S: a fast fake workload for the real
 * process A/A calibration of vmpctl ab --interleave. Every STEP_S of
 * CLOCK_MONOTONIC it prints a rate line (see RATE LINES in vmpctl(1))
 * whose count is 1000 per second with 10% noise (seeded, Gaussian),
 * whatever the knob holds: the arms cannot differ, so every "B better" or
 * "B worse" is a false positive.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define AA_RATE 1000.0
#define AA_NOISE 0.1

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Box-Muller from the seeded erand48 stream */
static double gaussian(unsigned short state[3])
{
	double u = 1.0 - erand48(state), v = erand48(state);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

int main(int argc, char **argv)
{
	unsigned short state[3] = { 0x330e, 0, 0 };
	double step, end, t;

	if (argc != 4) {
		fprintf(stderr, "usage: aa-workload SEED STEP_S DURATION_S\n");
		return 2;
	}
	state[1] = (unsigned short)atoi(argv[1]);
	state[2] = (unsigned short)(atoi(argv[1]) >> 16);
	step = atof(argv[2]);
	t = now_s();
	end = t + atof(argv[3]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (t < end) {
		struct timespec at;
		double count;

		t += step;
		at.tv_sec = (time_t)t;
		at.tv_nsec = (long)((t - (double)at.tv_sec) * 1e9);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		count = AA_RATE * step * (1.0 + AA_NOISE * gaussian(state));
		if (printf("{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%.3f}\n", t,
			   step, count > 0 ? count : 0) < 0)
			return 1;
	}
	return 0;
}
