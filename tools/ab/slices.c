// SPDX-License-Identifier: GPL-2.0
/* ab --interleave's slices, report intervals and pairs (see slices.h). */
#include "slices.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void il_init(struct interleave *il, double max_flip_s, size_t warmup)
{
	memset(il, 0, sizeof(*il));
	il->max_flip_s = max_flip_s;
	il->warmup = warmup;
	il->last_t = -INFINITY;
}

void il_free(struct interleave *il)
{
	free(il->slices);
	il->slices = NULL;
	il->n = il->allocated = 0;
}

enum ab_arm il_next_arm(struct interleave *il, struct ab_schedule *schedule)
{
	size_t k = il->n;

	if (k < il->warmup)
		return k % 2 ? AB_ARM_B : AB_ARM_A;
	if ((k - il->warmup) % 2 == 0)
		ab_schedule_next(schedule, il->block);
	return il->block[(k - il->warmup) % 2];
}

int il_begin_slice(struct interleave *il, enum ab_arm arm, double flip_started,
		   double start, double flip_s, bool toggled)
{
	struct il_slice *s;

	if (il->n == il->allocated) {
		size_t n = il->allocated ? 2 * il->allocated : 64;
		struct il_slice *grown = realloc(il->slices, n * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		il->slices = grown;
		il->allocated = n;
	}
	if (il->n)
		il->slices[il->n - 1].end = flip_started;
	s = &il->slices[il->n];
	memset(s, 0, sizeof(*s));
	s->arm = arm;
	s->warmup = il->n < il->warmup;
	s->long_slice = !s->warmup && il->long_every &&
		((il->n - il->warmup) / 2) % il->long_every == il->long_every - 1;
	s->flip_started = flip_started;
	s->start = start;
	s->end = INFINITY;
	s->flip_s = flip_s;
	s->toggled = toggled;
	il->n++;
	return 0;
}

/*
 * The part [from, to] of iv into slice s, and into the half of the slice
 * where the part's middle is: its count in proportion to its time, as if
 * the command ran at one rate through the interval.
 */
static void add_part(const struct interleave *il, struct il_slice *s,
		     const struct rate_interval *iv, double from, double to)
{
	double time_s = to - from;
	double count = time_s == iv->interval_s ? iv->count :
		iv->count * time_s / iv->interval_s;

	s->count += count;
	s->time_s += time_s;
	s->intervals++;
	if (il->slice_s > 0) {
		double counted_from = s->start + il->settle_s;
		double length = s->long_slice ? IL_LONG_FACTOR * il->slice_s : il->slice_s;
		double middle = (counted_from + s->flip_started + length) / 2;
		int half = (from + to) / 2 < middle ? 0 : 1;

		s->half_count[half] += count;
		s->half_time_s[half] += time_s;
	}
}

/*
 * Each slice from first on gets the part of [begin, t] in its counted
 * time (after --settle, before the next flip); the parts in flip windows
 * and settle times are not counted. Splitting by overlap instead of
 * dropping an interval that crosses a flip keeps each arm's counted time
 * independent of how long its report intervals are: dropping them kept
 * less of the slower arm (longer intervals cross more flips), and the
 * part it kept was its faster stretches. With stall, the slice given
 * the most of it is marked stalled, and every slice it covers whole: a
 * stall that began a moment before a flip is the next arm's, not the one
 * it began in.
 */
/*
 * The part [*from, *to] of [begin, t] in slice s's counted time (after
 * --settle, before the next flip); false when there is none.
 */
static bool counted_part(const struct interleave *il, const struct il_slice *s,
			 double begin, double t, double *from, double *to)
{
	*from = fmax(begin, s->start + il->settle_s);
	*to = fmin(t, s->end);
	return *to > *from;
}

static void add_parts(struct interleave *il, size_t first,
		      const struct rate_interval *iv, bool stall)
{
	double begin = iv->t - iv->interval_s, most = 0;
	struct il_slice *longest = NULL;

	for (size_t k = first; k < il->n && il->slices[k].flip_started < iv->t; k++) {
		struct il_slice *s = &il->slices[k];
		double from, to;

		if (!counted_part(il, s, begin, iv->t, &from, &to))
			continue;
		add_part(il, s, iv, from, to);
		if (to - from > most) {
			most = to - from;
			longest = s;
		}
		s->stalled |= stall && begin <= s->flip_started && iv->t >= s->end;
	}
	if (stall && longest)
		longest->stalled = true;
}

/*
 * A dropped interval's parts in the counted time of the slices after the
 * warmup, added to lost_s by their arm: what a reason of dropping costs
 * each arm, since a slower arm's longer intervals cross more flips.
 */
static void lose_parts(const struct interleave *il, size_t first,
		       const struct rate_interval *iv, double lost_s[2])
{
	double begin = iv->t - iv->interval_s;

	for (size_t k = first; k < il->n && il->slices[k].flip_started < iv->t; k++) {
		const struct il_slice *s = &il->slices[k];
		double from, to;

		if (!s->warmup && counted_part(il, s, begin, iv->t, &from, &to))
			lost_s[s->arm] += to - from;
	}
}

/* Counted by overlap (--split-intervals, or a stall), or dropped. */
static void split_or_lose(struct interleave *il, size_t first,
			  const struct rate_interval *iv, bool stall,
			  double lost_s[2])
{
	if (il->split || stall)
		add_parts(il, first, iv, stall);
	else
		lose_parts(il, first, iv, lost_s);
}

static int compare_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

double il_recent_median(const struct interleave *il)
{
	size_t n = il->recent_n < IL_STALL_WINDOW ? il->recent_n : IL_STALL_WINDOW;
	double sorted[IL_STALL_WINDOW];

	if (!n)
		return NAN;
	memcpy(sorted, il->recent_s, n * sizeof(double));
	qsort(sorted, n, sizeof(double), compare_doubles);
	return sorted[n / 2];
}

/*
 * Whether iv is a stall: longer than IL_STALL_MIN_S and IL_STALL_FACTOR
 * times the median of the last IL_STALL_WINDOW intervals (none before
 * there are as many).
 * Every interval read goes into that window.
 */
static bool is_stall(struct interleave *il, const struct rate_interval *iv)
{
	double least = INFINITY;
	bool stall = false;

	for (size_t i = 0; i < IL_STALL_WINDOW; i++)
		least = fmin(least, il->recent_s[i]);
	/* the median is at least the least: sort only when it may be a stall */
	if (il->find_stalls && il->recent_n >= IL_STALL_WINDOW &&
	    iv->interval_s > IL_STALL_MIN_S && iv->interval_s > IL_STALL_FACTOR * least)
		stall = iv->interval_s > IL_STALL_FACTOR * il_recent_median(il);
	il->recent_s[il->recent_n++ % IL_STALL_WINDOW] = iv->interval_s;
	return stall;
}

enum il_placed il_add_interval(struct interleave *il,
			       const struct rate_interval *iv)
{
	double begin = iv->t - iv->interval_s;
	bool stall;
	size_t k;

	if (!(iv->t > il->last_t)) {
		il->intervals_out_of_order++;
		return IL_OUT_OF_ORDER;
	}
	il->last_t = iv->t;
	il->intervals_read++;
	/*
	 * a stall is the arm's own slowness: its time is counted, split by
	 * overlap when it crosses a flip, as the time of a slice it lies in
	 * is; dropped, it crossed flips more often than a short interval,
	 * and a stalling arm kept only its fast stretches
	 */
	stall = is_stall(il, iv);
	il->intervals_stalled += stall;
	if (!il->n || begin < il->slices[0].start) {
		/* before the schedule began, or across the first flip */
		if (il->n && iv->t > il->slices[0].flip_started) {
			il->intervals_straddling++;
			split_or_lose(il, 0, iv, stall, il->straddling_lost_s);
			return IL_STRADDLES;
		}
		il->intervals_before_first++;
		return IL_BEFORE_FIRST;
	}
	/* the last slice that started before the interval did */
	for (k = il->n - 1; il->slices[k].start > begin; k--)
		;
	if (iv->t > il->slices[k].end) {
		il->intervals_straddling++;
		split_or_lose(il, k, iv, stall, il->straddling_lost_s);
		return IL_STRADDLES;
	}
	if (begin < il->slices[k].start + il->settle_s) {
		il->intervals_settling++;
		split_or_lose(il, k, iv, stall, il->settling_lost_s);
		return IL_SETTLING;
	}
	add_parts(il, k, iv, stall);
	return IL_IN_SLICE;
}

enum il_fate il_slice_fate(const struct interleave *il, size_t index)
{
	const struct il_slice *s = &il->slices[index];

	if (!isfinite(s->end) || (!il->input_done && il->last_t < s->end))
		return IL_OPEN;
	if (s->warmup)
		return IL_WARMUP;
	if (s->flip_s > il->max_flip_s)
		return IL_FLIP_TOO_LONG;
	if (!s->intervals)
		return IL_NO_INTERVAL;
	return IL_KEPT;
}

enum il_fate il_slice_fate_paired(const struct interleave *il, size_t index)
{
	enum il_fate own = il_slice_fate(il, index), other;
	size_t partner;

	if (own != IL_KEPT)
		return own;
	partner = il->warmup + ((index - il->warmup) ^ 1);
	if (partner >= il->n)
		return IL_OPEN;
	other = il_slice_fate(il, partner);
	if (other == IL_OPEN)
		return IL_OPEN;
	return other == IL_KEPT ? IL_KEPT : IL_PARTNER_DROPPED;
}

double il_slice_length(const struct interleave *il, size_t index)
{
	return il->slices[index].long_slice ? IL_LONG_FACTOR * il->slice_s :
		il->slice_s;
}

double il_slice_rate(const struct il_slice *slice)
{
	return slice->time_s > 0 ? slice->count / slice->time_s : NAN;
}

void il_each_final_pair(const struct interleave *il,
			void (*fn)(const struct interleave *il, size_t first,
				   enum il_fate f0, enum il_fate f1, void *arg),
			void *arg)
{
	for (size_t k = il->warmup; k + 1 < il->n; k += 2) {
		enum il_fate f0 = il_slice_fate(il, k);
		enum il_fate f1 = il_slice_fate(il, k + 1);

		if (f0 == IL_OPEN || f1 == IL_OPEN)
			break;
		fn(il, k, f0, f1, arg);
	}
}

static void count_pair(const struct interleave *il, size_t first,
		       enum il_fate f0, enum il_fate f1, void *arg)
{
	struct il_pair_counts *c = arg;

	(void)il;
	(void)first;
	if (f0 == IL_KEPT && f1 == IL_KEPT) {
		c->kept++;
		return;
	}
	c->dropped++;
	c->slices_flip_too_long += (f0 == IL_FLIP_TOO_LONG) + (f1 == IL_FLIP_TOO_LONG);
	c->slices_no_interval += (f0 == IL_NO_INTERVAL) + (f1 == IL_NO_INTERVAL);
}

void il_count_pairs(const struct interleave *il, struct il_pair_counts *c)
{
	memset(c, 0, sizeof(*c));
	il_each_final_pair(il, count_pair, c);
}

/* il_count_losses()'s tally, and each final pair's lost time, B's less A's */
struct loss_tally {
	struct ab_losses *l;
	double *lost_diff;
	size_t n;
};

/*
 * Every final pair's slices count, kept or not: a slice's countable time
 * is from its flip and --settle to the next flip, and it counted none of
 * it when it was dropped itself (a slice kept but dropped with its
 * partner counted its own). So a slow arm's whole slices lost to no
 * report interval weigh as its intervals lost to straddled flips do.
 */
static void count_losses(const struct interleave *il, size_t first,
			 enum il_fate f0, enum il_fate f1, void *arg)
{
	struct loss_tally *tally = arg;
	struct ab_losses *l = tally->l;
	const enum il_fate fates[2] = { f0, f1 };
	double lost[2] = { 0, 0 };

	for (size_t k = first; k < first + 2; k++) {
		const struct il_slice *s = &il->slices[k];
		enum il_fate fate = fates[k - first];
		double countable = s->end - (s->start + il->settle_s);
		double counted = fate == IL_KEPT ? s->time_s : 0;

		l->total[s->arm]++;
		l->stalled[s->arm] += s->stalled;
		l->lost[AB_LOSS_SLOW_FLIP][s->arm] += fate == IL_FLIP_TOO_LONG;
		l->lost[AB_LOSS_NO_INTERVAL][s->arm] += fate == IL_NO_INTERVAL;
		l->ran_s[s->arm] += countable;
		l->kept_s[s->arm] += counted;
		lost[s->arm] = countable - counted;
	}
	/* a microsecond apart is a tie: equal drops of equal intervals */
	tally->lost_diff[tally->n++] = fabs(lost[1] - lost[0]) > 1e-6 ?
		lost[1] - lost[0] : 0;
}

int il_count_losses(const struct interleave *il, struct ab_losses *l)
{
	struct loss_tally tally = { l, malloc((il->n / 2 + 1) * sizeof(double)), 0 };
	bool exact;
	double w;
	int err;

	memset(l, 0, sizeof(*l));
	if (!tally.lost_diff)
		return -ENOMEM;
	l->slices = true;
	il_each_final_pair(il, count_losses, &tally);
	err = stats_wilcoxon(tally.lost_diff, tally.n, &w, &l->kept_p, &exact);
	free(tally.lost_diff);
	if (err && err != -EINVAL)
		return err;
	ab_losses_judge(l, AB_LOSS_SLICES_ALPHA);
	return 0;
}

static void take_pair(const struct interleave *il, size_t first,
		      enum il_fate f0, enum il_fate f1, void *arg)
{
	struct il_pair_arrays *p = arg;

	if (f0 != IL_KEPT || f1 != IL_KEPT)
		return;
	for (size_t k = first; k < first + 2; k++) {
		double rate = il_slice_rate(&il->slices[k]);

		if (il->slices[k].arm == AB_ARM_A)
			p->a[p->n] = rate;
		else
			p->b[p->n] = rate;
	}
	p->n++;
}

size_t il_kept_pairs(const struct interleave *il, double *a, double *b)
{
	struct il_pair_arrays p = { a, b, 0 };

	il_each_final_pair(il, take_pair, &p);
	return p.n;
}

static const char *fate_name(enum il_fate fate)
{
	switch (fate) {
	case IL_OPEN:
		return "unfinished";
	case IL_KEPT:
		return "kept";
	case IL_WARMUP:
		return "warmup";
	case IL_FLIP_TOO_LONG:
		return "flip too long";
	case IL_NO_INTERVAL:
		return "no whole interval";
	case IL_PARTNER_DROPPED:
		return "partner dropped";
	}
	return "?";
}

json_t *il_intervals_json(const struct interleave *il)
{
	json_t *obj = json_object();

	json_put(obj, "read", json_count(il->intervals_read));
	json_put(obj, "straddling", json_count(il->intervals_straddling));
	json_put(obj, "stalls", json_count(il->intervals_stalled));
	if (il->split)
		json_put(obj, "split", json_true());
	json_put(obj, "straddling_lost_s", json_pair(il->straddling_lost_s[AB_ARM_A],
						     il->straddling_lost_s[AB_ARM_B]));
	json_put(obj, "settling", json_count(il->intervals_settling));
	json_put(obj, "settling_lost_s", json_pair(il->settling_lost_s[AB_ARM_A],
						   il->settling_lost_s[AB_ARM_B]));
	json_put(obj, "before_first", json_count(il->intervals_before_first));
	json_put(obj, "out_of_order", json_count(il->intervals_out_of_order));
	return obj;
}

json_t *il_slice_json(const struct interleave *il, size_t k, double zero)
{
	const struct il_slice *s = &il->slices[k];
	json_t *o = json_object();

	json_put(o, "arm", json_text(ab_arm_name(s->arm)));
	json_put(o, "fate", json_text(fate_name(il_slice_fate_paired(il, k))));
	json_put(o, "start_s", json_real_or_null(s->start - zero));
	json_put(o, "end_s", json_real_or_null(s->end - zero));
	json_put(o, "flip_s", json_real_or_null(s->flip_s));
	json_put(o, "toggled", json_boolean(s->toggled));
	json_put(o, "intervals", json_count(s->intervals));
	json_put(o, "time_s", json_real_or_null(s->time_s));
	json_put(o, "count", json_real_or_null(s->count));
	json_put(o, "rate", json_real_or_null(il_slice_rate(s)));
	json_put(o, "long", json_boolean(s->long_slice));
	/*
	 * only when true: saves from before stalls were found read the same;
	 * a stall's time is counted in it
	 */
	if (s->stalled)
		json_put(o, "stalled", json_true());
	json_put(o, "half_count", json_pair(s->half_count[0], s->half_count[1]));
	json_put(o, "half_time_s", json_pair(s->half_time_s[0], s->half_time_s[1]));
	json_put(o, "pgscan", s->have_reclaim ? json_count(s->pgscan) : json_null());
	json_put(o, "skipped", s->have_skipped ? json_count(s->skipped) : json_null());
	return o;
}
