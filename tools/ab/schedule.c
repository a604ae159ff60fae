// SPDX-License-Identifier: GPL-2.0
/* vmpctl ab: the order of the arms, block by block (see ab.h). */
#include "ab.h"

#include <errno.h>
#include <string.h>

int ab_schedule_init(struct ab_schedule *s, enum ab_order order,
		     unsigned long seed)
{
	memset(s, 0, sizeof(*s));
	s->order = order;
	if (order == AB_ORDER_RANDOM) {
		s->rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!s->rng)
			return -ENOMEM;
		gsl_rng_set(s->rng, seed);
	}
	return 0;
}

void ab_schedule_next(struct ab_schedule *s, enum ab_arm arms[2])
{
	if (!s->repeat) {
		s->b_first = s->order == AB_ORDER_RANDOM ?
			gsl_rng_uniform_int(s->rng, 2) == 1 : s->blocks % 2 == 1;
		s->blocks++;
	}
	s->repeat = false;
	arms[0] = s->b_first ? AB_ARM_B : AB_ARM_A;
	arms[1] = s->b_first ? AB_ARM_A : AB_ARM_B;
}

void ab_schedule_repeat(struct ab_schedule *s)
{
	s->repeat = s->blocks > 0;
}

void ab_schedule_free(struct ab_schedule *s)
{
	if (s->rng)
		gsl_rng_free(s->rng);
	s->rng = NULL;
}
