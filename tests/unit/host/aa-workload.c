// SPDX-License-Identifier: GPL-2.0
/*
 * aa-workload [OPTIONS] SEED STEP_S DURATION_S: a fast fake workload for
 * the real process A/A calibration of vmpctl ab --interleave. Every
 * STEP_S of CLOCK_MONOTONIC it prints a rate line (see RATE LINES in
 * vmpctl(1)) whose count is 1000 per second with 10% noise (seeded,
 * Gaussian), whatever the knob holds: the arms cannot differ, so every
 * "B better" or "B worse" is a false positive.
 *
 *   --pgbench         print pgbench -P lines instead, with a mean latency
 *                     of 1 ms (10% noise): the latency's A/A as well
 *   --period P        rate and latency drift up 20% over the run and
 *                     swing 10% with a period of P seconds (a load that
 *                     aliases into a fixed order of arms)
 *   --flip-knob FILE  every change of FILE's content (a flip, either
 *                     way) slows the workload: 50% more latency, 50%
 *                     less rate, decaying with a time constant of 2
 *                     steps (a disturbance carried over after the flip)
 *   --throttle-b FILE not an A/A: while FILE holds 0 (arm B) the work
 *                     stops and goes on at random (on for 0.2 s, off for
 *                     0.25 s, exponential; a CPU quota's bursts), 44% of
 *                     A's rate, and a line comes every STEP_S worth of
 *                     work, so B's report intervals are longer and vary
 *                     (a load generator that reports per work done)
 *   --hang-after S    print nothing after S seconds, and never end
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

/* What the run varies besides noise; see the options above. */
struct aa_shape {
	bool pgbench;
	double period_s;	/* 0: no drift nor swing */
	const char *flip_knob;	/* NULL: flips do not disturb */
	const char *throttle_b;	/* NULL: B runs as A */
	double step_s;
	char knob_seen[64];
	double last_flip;	/* -INFINITY: none yet */
};

/* The factor by which the workload is slower at t than at rest (>= 1). */
static double slowdown(struct aa_shape *shape, double start, double end, double t)
{
	double slow = 1.0;

	if (shape->period_s > 0)
		slow *= 1.0 + 0.2 * (t - start) / (end - start) +
			0.1 * sin(2.0 * M_PI * t / shape->period_s);
	if (shape->flip_knob) {
		char now[sizeof(shape->knob_seen)] = "";
		FILE *f = fopen(shape->flip_knob, "re");

		if (f) {
			if (!fgets(now, sizeof(now), f))
				now[0] = '\0';
			fclose(f);
		}
		if (strcmp(now, shape->knob_seen)) {
			if (shape->knob_seen[0])
				shape->last_flip = t;
			strcpy(shape->knob_seen, now);
		}
		slow *= 1.0 + 0.5 * exp(-(t - shape->last_flip) / (2.0 * shape->step_s));
	}
	return slow;
}

/* Whether FILE holds arm B's value, 0. */
static bool in_arm_b(const char *file)
{
	char now[16] = "";
	FILE *f = fopen(file, "re");

	if (f) {
		if (!fgets(now, sizeof(now), f))
			now[0] = '\0';
		fclose(f);
	}
	return now[0] == '0';
}

static void sleep_until(double t)
{
	struct timespec at = { .tv_sec = (time_t)t };

	at.tv_nsec = (long)((t - (double)at.tv_sec) * 1e9);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
}

/* Mean on and off times of --throttle-b's bursts, and its tick. */
#define THROTTLE_ON_S 0.2
#define THROTTLE_OFF_S 0.25
#define THROTTLE_TICK_S 0.002

/*
 * --throttle-b: work at AA_RATE in ticks (not in B's off bursts), a line
 * each STEP_S worth of work done, until end.
 */
static int throttled(const struct aa_shape *shape, unsigned short state[3],
		     double start, double end)
{
	double t = start, last = start, work = 0, switch_at = start;
	bool on = true;

	while (t < end) {
		t += THROTTLE_TICK_S;
		sleep_until(t);
		if (!in_arm_b(shape->throttle_b)) {
			on = true;
		} else if (t >= switch_at) {
			on = !on;
			switch_at = t - (on ? THROTTLE_ON_S : THROTTLE_OFF_S) *
				log(1.0 - erand48(state));
		}
		if (on)
			work += AA_RATE * THROTTLE_TICK_S;
		if (work < AA_RATE * shape->step_s - 1e-9)
			continue;
		if (printf("{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%.3f}\n", t,
			   t - last, work * (1.0 + AA_NOISE * gaussian(state))) < 0)
			return 1;
		last = t;
		work = 0;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: aa-workload [--pgbench] [--period P] [--flip-knob FILE] [--throttle-b FILE] [--hang-after S] SEED STEP_S DURATION_S\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pgbench", no_argument, NULL, 'g' },
		{ "period", required_argument, NULL, 'p' },
		{ "flip-knob", required_argument, NULL, 'k' },
		{ "throttle-b", required_argument, NULL, 'b' },
		{ "hang-after", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct aa_shape shape = { .last_flip = -INFINITY };
	unsigned short state[3] = { 0x330e, 0, 0 };
	double step, start, end, t, hang_after = INFINITY;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'g')
			shape.pgbench = true;
		else if (c == 'p')
			shape.period_s = atof(optarg);
		else if (c == 'k')
			shape.flip_knob = optarg;
		else if (c == 'b')
			shape.throttle_b = optarg;
		else if (c == 'h')
			hang_after = atof(optarg);
		else
			return usage();
	}
	if (argc - optind != 3)
		return usage();
	state[1] = (unsigned short)atoi(argv[optind]);
	state[2] = (unsigned short)(atoi(argv[optind]) >> 16);
	step = shape.step_s = atof(argv[optind + 1]);
	t = start = now_s();
	end = t + atof(argv[optind + 2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (start + hang_after < end)
		end = start + hang_after;
	if (shape.throttle_b && throttled(&shape, state, start, end))
		return 1;
	while (!shape.throttle_b && t < end) {
		double slow, rate, latency_ms;
		int printed;

		t += step;
		sleep_until(t);
		slow = slowdown(&shape, start, end, t);
		rate = fmax(0, AA_RATE / slow * (1.0 + AA_NOISE * gaussian(state)));
		if (shape.pgbench) {
			latency_ms = fmax(0.001, slow * (1.0 + AA_NOISE * gaussian(state)));
			printed = printf("progress: %.6f s, %.3f tps, lat %.4f ms stddev 0.100, 0 failed\n",
					 t - start, rate, latency_ms);
		} else {
			printed = printf("{\"t\":%.6f,\"interval_s\":%.6f,\"count\":%.3f}\n",
					 t, step, rate * step);
		}
		if (printed < 0)
			return 1;
	}
	/* --hang-after: alive, silent, until a signal ends it */
	while (isfinite(hang_after))
		pause();
	return 0;
}
