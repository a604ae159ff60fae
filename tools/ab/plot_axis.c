// SPDX-License-Identifier: GPL-2.0
/* Tick values and their labels for the plots (plot_axis.h). */
#include "plot_axis.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* 1, 2 or 5 times a power of ten, the smallest step giving <= 10 ticks. */
static double round_step(double span)
{
	double base = pow(10, floor(log10(span / 10)));
	static const double factors[] = { 1, 2, 5, 10 };

	for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); i++)
		if (span / (base * factors[i]) <= 10)
			return base * factors[i];
	return base * 10;
}

size_t plot_ticks(double lo, double hi, double *ticks, size_t max)
{
	double step, first;
	size_t n = 0;

	if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
		return 0;
	step = round_step(hi - lo);
	first = ceil(lo / step - 1e-9) * step;
	for (double v = first; v <= hi + step * 1e-9 && n < max; v = first + step * (double)n) {
		/* -0 and 1e-17 print as 0 */
		ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

void plot_tick_labels(const double *ticks, size_t n, const char *unit,
		      char labels[][32])
{
	static const char *const prefixes[] = { "n", "µ", "m", "", "k", "M", "G" };
	bool scaled = strcmp(unit, "%") && *unit;
	double top = 0, step = n > 1 ? fabs(ticks[1] - ticks[0]) : fabs(ticks[0]);
	int power = 0, decimals;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fabs(ticks[i]));
	if (scaled && top > 0) {
		power = (int)floor(log10(top) / 3) * 3;
		power = power < -9 ? -9 : power > 9 ? 9 : power;
	}
	step /= pow(10, power);
	decimals = step > 0 ? (int)ceil(-log10(step) - 1e-9) : 0;
	decimals = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	for (size_t i = 0; i < n; i++)
		snprintf(labels[i], 32, "%.*f%s%s%s", decimals,
			 ticks[i] / pow(10, power), scaled ? " " : "",
			 scaled ? prefixes[power / 3 + 3] : "", unit);
}
