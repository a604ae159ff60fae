// SPDX-License-Identifier: GPL-2.0
/*
 * vmpctl ab merge FILE...: the --save files of one A/B run on many hosts
 * (merge.h). Each file is read and analysed as vmpctl ab report does; its
 * effect enters a random-effects meta-analysis (stats_meta.h) as the log
 * of B's mean over A's, with the delta method's variance from the same
 * analysis (paired: pairs or blocks, so the pairing's covariance counts),
 * times df / (df - 2): that variance is itself estimated from the host's
 * few pairs, its error is t-distributed at the host's df, and pooled as if
 * known it made Q call hosts different when they are not (docs/fleet.md).
 */
#include "ab.h"
#include "load.h"
#include "plot.h"
#include "summary.h"
#include "commands.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "stats_meta.h"

#include <errno.h>
#include <stddef.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct host {
	struct ab_saved saved;
	char *label;		/* the file's name without folder and .jsonl */
	char *stratum;		/* --by's header field, as text */
	size_t n;		/* pairs, blocks, or the smaller arm's runs */
	double df;		/* of the host's own test */
	double y;		/* log(mean B / mean A) */
	double se;		/* the pool's: t's variance at df */
	double effect_pct;	/* the file's own report: B vs A, 95% CI */
	double lo_pct;
	double hi_pct;
	bool differs;		/* its interval leaves out the pooled effect */
};

/* The hosts of one stratum (or all of them) pooled. */
struct pool {
	const char *name;	/* the stratum; NULL: every host */
	size_t k;
	struct meta_result m;	/* k == 1: that host's y and se only */
	const char *verdict;
};

struct merge {
	struct host *hosts;
	size_t n_hosts;
	const char *by;		/* --by FIELD, or NULL */
	bool higher_is_better;
	struct pool all;
	struct pool *strata;
	size_t n_strata;
	bool strata_tested;	/* at least 2 strata: q and p are set */
	double strata_q;
	double strata_p;
};

static const char *const merge_host_headers[] = {
	"host", "n", "B vs A", "95% CI", "log ratio", "se", "differs", NULL
};
static const char *const merge_strata_headers[] = {
	"stratum", "hosts", "B vs A", "95% CI", "tau", "I2", "verdict", NULL
};
static const char *const *const merge_tables[] = {
	merge_host_headers, merge_strata_headers, NULL
};

static void merge_usage(FILE *out)
{
	fputs("Usage: vmpctl ab merge [options] FILE...\n"
	      "\n"
	      "Pools the files vmpctl ab --save wrote on many hosts (the same knob,\n"
	      "arms, metric and design) by a random-effects meta-analysis: REML for\n"
	      "the spread between hosts, Hartung-Knapp-Sidik-Jonkman's interval for\n"
	      "the pooled effect, heterogeneity (Q, I2, tau) and the 95% prediction\n"
	      "interval for a new host. A host is its file's name without .jsonl.\n"
	      "\n"
	      "  -f, --force           pool files that do not agree (each difference\n"
	      "                        is still named)\n"
	      "      --by FIELD        also pool within the groups of a field of the\n"
	      "                        files' header (kernel, vmpctl_version, ...) and\n"
	      "                        test the difference between them\n"
	      "  -j, --json            one JSON line instead of the tables\n"
	      "      --csv             CSV: a row per host, stratum and the pool\n"
	      "      --markdown        a Markdown table\n"
	      "      --raw             tables unaligned, one space between cells\n"
	      "      --noheadings      tables without their header line\n"
	      "      --output COLUMNS  only these columns of the tables\n"
	      "      --plot OUT        also draw the forest plot to OUT.png or OUT.svg\n"
	      "  -h, --help            this text\n", out);
}

static double pct_of_log(double x)
{
	return 100.0 * expm1(x);
}

/* A header field as text (NULL: absent); the caller frees it. */
static char *field_text(const json_t *header, const char *key)
{
	const json_t *v = json_object_get(header, key);

	if (!v)
		return NULL;
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

static char *major_version(const json_t *header)
{
	char *v = field_text(header, "vmpctl_version");

	if (v)
		v[strcspn(v, ".")] = '\0';
	return v;
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * Names each field of host's header that is not the first host's; the
 * number of differences.
 */
static unsigned int name_differences(const struct host *first,
				     const struct host *host)
{
	static const char *const fields[][2] = {
		{ "knob", "knob" }, { "a", "arm A's value" },
		{ "b", "arm B's value" }, { "metric_name", "metric" },
		{ "metric_regex", "metric pattern" },
		{ "higher_is_better", "direction of the metric" },
		{ "mode", "design" }, { "order", "order of the arms" },
	};
	unsigned int differences = 0;
	char *mine, *theirs;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		mine = field_text(host->saved.header, fields[i][0]);
		theirs = field_text(first->saved.header, fields[i][0]);
		if (!same_text(mine, theirs)) {
			vmpctl_error("ab merge: %s: %s %s, not %s as in %s",
				     host->saved.path, fields[i][1],
				     mine ? mine : "(none)", theirs ? theirs : "(none)",
				     first->saved.path);
			differences++;
		}
		free(mine);
		free(theirs);
	}
	mine = major_version(host->saved.header);
	theirs = major_version(first->saved.header);
	if (!same_text(mine, theirs)) {
		vmpctl_error("ab merge: %s: vmpctl major version %s, not %s as in %s",
			     host->saved.path, mine ? mine : "(none)",
			     theirs ? theirs : "(none)", first->saved.path);
		differences++;
	}
	free(mine);
	free(theirs);
	return differences;
}

/* Paired means: their variances and covariance from a, b and b - a. */
static void paired_moments(const struct stats_paired *p, double *va, double *vb,
			   double *cov)
{
	double n = (double)p->n;
	double sa2 = p->a.stddev * p->a.stddev, sb2 = p->b.stddev * p->b.stddev;
	double sd2 = p->d.stddev * p->d.stddev;

	*va = sa2 / n;
	*vb = sb2 / n;
	*cov = (sa2 + sb2 - sd2) / (2.0 * n);
}

static int paired_effect(struct host *h, const struct stats_paired *p)
{
	double va, vb, cov, var;

	paired_moments(p, &va, &vb, &cov);
	h->n = p->n;
	h->df = p->df;
	h->effect_pct = p->diff_pct;
	h->lo_pct = p->diff_ci_lo_pct;
	h->hi_pct = p->diff_ci_hi_pct;
	if (meta_log_ratio(p->a.mean, p->b.mean, va, vb, cov, &h->y, &var))
		return -EDOM;
	h->se = sqrt(var);
	return 0;
}

static int unpaired_effect(struct host *h, const struct stats_comparison *c)
{
	double var;

	h->n = c->a.n < c->b.n ? c->a.n : c->b.n;
	h->df = c->welch_df;
	h->effect_pct = c->diff_pct;
	h->lo_pct = c->diff_ci_lo_pct;
	h->hi_pct = c->diff_ci_hi_pct;
	if (meta_log_ratio(c->a.mean, c->b.mean,
			   c->a.stddev * c->a.stddev / (double)c->a.n,
			   c->b.stddev * c->b.stddev / (double)c->b.n, 0,
			   &h->y, &var))
		return -EDOM;
	h->se = sqrt(var);
	return 0;
}

/* The host's effect by its file's own analysis; 0 or the exit status. */
static int host_effect(struct host *h)
{
	struct ab_saved *s = &h->saved;
	int err;

	if (s->interleaved) {
		struct il_report r;

		err = il_build_report(&s->il, &s->opts, &r);
		if (!err && !r.compared)
			err = -ERANGE;
		if (!err)
			err = paired_effect(h, &r.cmp);
	} else {
		struct ab_report r;
		const struct ab_metric_report *m = &r.metrics[0];

		err = ab_build_report(&s->opts, s->runs, s->n_runs, &r) ? -ERANGE : 0;
		if (!err)
			err = m->paired ? paired_effect(h, &m->blocks) :
				unpaired_effect(h, &m->cmp);
	}
	if (!err && !(h->se > 0 && isfinite(h->se)))
		err = -ERANGE;
	if (!err && !(h->df > 2)) {
		vmpctl_error("ab merge: %s: %.3g degrees of freedom: its standard error is too uncertain to pool (4 pairs or runs per arm at least)",
			     s->path, h->df);
		return EXIT_CHECK_FAILED;
	}
	if (!err)
		h->se *= sqrt(h->df / (h->df - 2));
	switch (err) {
	case 0:
		return 0;
	case -ERANGE:
		vmpctl_error("ab merge: %s: too few %s per arm, or no spread: no effect with a standard error",
			     s->path, s->interleaved ? "kept pairs" : "runs");
		return EXIT_CHECK_FAILED;
	case -EDOM:
		vmpctl_error("ab merge: %s: a mean of the metric is not positive: no log ratio",
			     s->path);
		return EXIT_CHECK_FAILED;
	default:
		vmpctl_error("ab merge: %s: %s", s->path, strerror(-err));
		return EXIT_CHECK_FAILED;
	}
}

static char *host_label(const char *path)
{
	char *copy = strdup(path), *label;
	size_t len;

	if (!copy)
		return NULL;
	label = strdup(basename(copy));
	free(copy);
	if (!label)
		return NULL;
	len = strlen(label);
	if (len > 6 && strcmp(label + len - 6, ".jsonl") == 0)
		label[len - 6] = '\0';
	return label;
}

/*
 * "it depends on the host" when a new host's interval has both signs
 * while the pooled effect is clear of 0 (or the hosts plainly disagree);
 * else the pooled effect's sign, or "no difference".
 */
static const char *fleet_verdict(const struct meta_result *m, bool higher_is_better)
{
	bool clear = m->ci_lo > 0 || m->ci_hi < 0;
	bool both_signs = m->pi_lo < 0 && m->pi_hi > 0;

	if (both_signs && (clear || m->q_p < STATS_ALPHA))
		return "it depends on the host";
	if (!clear)
		return "no difference";
	return (m->mu > 0) == higher_is_better ? "B better on the fleet" :
		"B worse on the fleet";
}

/* Pools hosts[i] for which pick(i) (all when name is NULL). */
static int pool_hosts(struct merge *mg, const char *name, struct pool *p)
{
	double *y = malloc(mg->n_hosts * sizeof(*y));
	double *v = malloc(mg->n_hosts * sizeof(*v));
	int err = 0;

	*p = (struct pool){ .name = name };
	if (!y || !v) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < mg->n_hosts; i++) {
		if (name && strcmp(mg->hosts[i].stratum, name))
			continue;
		y[p->k] = mg->hosts[i].y;
		v[p->k++] = mg->hosts[i].se * mg->hosts[i].se;
	}
	if (p->k == 1) {
		/* one host: its own effect; nothing to say about a spread */
		double se = sqrt(v[0]), z = 1.959963984540054;

		p->m = (struct meta_result){
			.k = 1, .mu = y[0], .se = se, .se_z = se,
			.ci_lo = y[0] - z * se, .ci_hi = y[0] + z * se,
			.tau = NAN, .tau2 = NAN, .i2_pct = NAN, .q = NAN,
			.q_p = NAN, .pi_lo = NAN, .pi_hi = NAN, .p = NAN,
			.t = NAN, .converged = true,
		};
		p->verdict = p->m.ci_lo > 0 || p->m.ci_hi < 0 ?
			((p->m.mu > 0) == mg->higher_is_better ? "B better" : "B worse") :
			"no difference";
		goto out;
	}
	err = meta_random_effects(y, v, p->k, &p->m);
	if (!err)
		p->verdict = fleet_verdict(&p->m, mg->higher_is_better);
out:
	free(y);
	free(v);
	return err;
}

static int pool_strata(struct merge *mg)
{
	double *mu, *se;
	int err;

	mg->strata = calloc(mg->n_hosts, sizeof(*mg->strata));
	if (!mg->strata)
		return -ENOMEM;
	for (size_t i = 0; i < mg->n_hosts; i++) {
		size_t j;

		for (j = 0; j < mg->n_strata; j++)
			if (strcmp(mg->strata[j].name, mg->hosts[i].stratum) == 0)
				break;
		if (j < mg->n_strata)
			continue;
		err = pool_hosts(mg, mg->hosts[i].stratum, &mg->strata[mg->n_strata++]);
		if (err)
			return err;
	}
	if (mg->n_strata < 2)
		return 0;
	mu = malloc(mg->n_strata * sizeof(*mu));
	se = malloc(mg->n_strata * sizeof(*se));
	err = mu && se ? 0 : -ENOMEM;
	for (size_t j = 0; !err && j < mg->n_strata; j++) {
		mu[j] = mg->strata[j].m.mu;
		se[j] = mg->strata[j].m.se_z;
	}
	if (!err)
		err = meta_q_between(mu, se, mg->n_strata, &mg->strata_q, &mg->strata_p);
	mg->strata_tested = !err;
	free(mu);
	free(se);
	return err;
}

/* The knob, arms and metric, from the first file. */
static const char *header_text(const struct merge *mg, const char *key)
{
	const char *t = json_string_value(json_object_get(mg->hosts[0].saved.header, key));

	return t ? t : "?";
}

static void pool_ci_cell(char *buf, size_t size, const struct meta_result *m)
{
	ab_ci_cell(buf, size, pct_of_log(m->ci_lo), pct_of_log(m->ci_hi));
}

static void print_hosts_table(FILE *out, const struct merge *mg)
{
	struct table t;

	if (table_init(&t, merge_host_headers, 0x3eU))
		return;
	for (size_t i = 0; i < mg->n_hosts; i++) {
		const struct host *h = &mg->hosts[i];
		char cells[5][48];
		const char *row[8];

		snprintf(cells[0], sizeof(cells[0]), "%zu", h->n);
		snprintf(cells[1], sizeof(cells[1]), "%+.2f%%", h->effect_pct);
		ab_ci_cell(cells[2], sizeof(cells[2]), h->lo_pct, h->hi_pct);
		snprintf(cells[3], sizeof(cells[3]), "%+.5f", h->y);
		snprintf(cells[4], sizeof(cells[4]), "%.5f", h->se);
		row[0] = h->label;
		row[1] = cells[0];
		row[2] = cells[1];
		row[3] = cells[2];
		row[4] = cells[3];
		row[5] = cells[4];
		row[6] = h->differs ? "yes" : "-";
		row[7] = NULL;
		table_add_row(&t, row);
	}
	table_print(&t, out);
	table_free(&t);
}

static void print_strata_table(FILE *out, const struct merge *mg)
{
	struct table t;

	if (table_init(&t, merge_strata_headers, 0x3eU))
		return;
	for (size_t j = 0; j < mg->n_strata; j++) {
		const struct pool *p = &mg->strata[j];
		char cells[5][48];
		const char *row[8];

		snprintf(cells[0], sizeof(cells[0]), "%zu", p->k);
		snprintf(cells[1], sizeof(cells[1]), "%+.2f%%", pct_of_log(p->m.mu));
		pool_ci_cell(cells[2], sizeof(cells[2]), &p->m);
		ab_cell(cells[3], sizeof(cells[3]), "%.2f%%", pct_of_log(p->m.tau));
		ab_cell(cells[4], sizeof(cells[4]), "%.1f%%", p->m.i2_pct);
		row[0] = p->name;
		for (int c = 0; c < 5; c++)
			row[c + 1] = cells[c];
		row[6] = p->verdict;
		row[7] = NULL;
		table_add_row(&t, row);
	}
	table_print(&t, out);
	table_free(&t);
}

static void print_differing(FILE *out, const struct merge *mg, const char *sep)
{
	const char *s = "";

	for (size_t i = 0; i < mg->n_hosts; i++) {
		if (!mg->hosts[i].differs)
			continue;
		fprintf(out, "%s%s", s, mg->hosts[i].label);
		s = sep;
	}
}

static void print_table(FILE *out, const struct merge *mg)
{
	const struct meta_result *m = &mg->all.m;
	char ci[48], pi[48];

	fprintf(out, "vmpctl ab merge: knob %s, A=%s B=%s, metric %s (%s is better), %zu hosts\n",
		header_text(mg, "knob"), header_text(mg, "a"), header_text(mg, "b"),
		header_text(mg, "metric_name"),
		mg->higher_is_better ? "higher" : "lower", mg->n_hosts);
	print_hosts_table(out, mg);
	pool_ci_cell(ci, sizeof(ci), m);
	ab_ci_cell(pi, sizeof(pi), pct_of_log(m->pi_lo), pct_of_log(m->pi_hi));
	fprintf(out, "\npooled B vs A (REML, Hartung-Knapp): %+.2f%% %s, t(%zu) = %.3g, p = %.3g\n",
		pct_of_log(m->mu), ci, m->k - 1, m->t, m->p);
	fprintf(out, "a new host (95%% prediction interval): %s\n", pi);
	fprintf(out, "between hosts: Q = %.4g (df %zu, p = %.3g), I2 = %.1f%%, tau = %.2f%%%s\n",
		m->q, m->k - 1, m->q_p, m->i2_pct, pct_of_log(m->tau),
		m->converged ? "" : " (REML did not converge)");
	if (mg->by) {
		fprintf(out, "\nby %s:\n", mg->by);
		print_strata_table(out, mg);
		if (mg->strata_tested)
			fprintf(out, "difference between the strata: Q = %.4g (df %zu, p = %.3g)\n",
				mg->strata_q, mg->n_strata - 1, mg->strata_p);
	}
	fprintf(out, "verdict: %s", mg->all.verdict);
	if (strcmp(mg->all.verdict, "it depends on the host") == 0) {
		fputs(" (hosts whose interval leaves out the pooled effect: ", out);
		print_differing(out, mg, ", ");
		fputc(')', out);
	}
	fputc('\n', out);
}

static json_t *pool_json(const struct pool *p)
{
	const struct meta_result *m = &p->m;
	json_t *o = json_object();

	if (p->name)
		json_put(o, "stratum", json_text(p->name));
	json_put(o, "hosts", json_count(p->k));
	json_put(o, "effect_pct", json_real_or_null(pct_of_log(m->mu)));
	json_put(o, "ci_pct", json_pair(pct_of_log(m->ci_lo), pct_of_log(m->ci_hi)));
	json_put(o, "log_ratio", json_real_or_null(m->mu));
	json_put(o, "se", json_real_or_null(m->se));
	json_put(o, "t", json_real_or_null(m->t));
	json_put(o, "p", json_real_or_null(m->p));
	json_put(o, "prediction_pct", json_pair(pct_of_log(m->pi_lo), pct_of_log(m->pi_hi)));
	json_put(o, "tau2", json_real_or_null(m->tau2));
	json_put(o, "tau_pct", json_real_or_null(pct_of_log(m->tau)));
	json_put(o, "q", json_real_or_null(m->q));
	json_put(o, "q_p", json_real_or_null(m->q_p));
	json_put(o, "i2_pct", json_real_or_null(m->i2_pct));
	json_put(o, "verdict", json_text(p->verdict));
	return o;
}

static int print_json(FILE *out, const struct merge *mg)
{
	json_t *doc = json_object(), *hosts = json_array(), *differ = json_array();

	json_put(doc, "type", json_text("merge"));
	json_put(doc, "knob", json_text(header_text(mg, "knob")));
	json_put(doc, "a", json_text(header_text(mg, "a")));
	json_put(doc, "b", json_text(header_text(mg, "b")));
	json_put(doc, "metric", json_text(header_text(mg, "metric_name")));
	json_put(doc, "higher_is_better", json_boolean(mg->higher_is_better));
	for (size_t i = 0; i < mg->n_hosts; i++) {
		const struct host *h = &mg->hosts[i];
		json_t *o = json_object();

		json_put(o, "host", json_text(h->label));
		json_put(o, "file", json_text(h->saved.path));
		if (mg->by)
			json_put(o, "stratum", json_text(h->stratum));
		json_put(o, "n", json_count(h->n));
		json_put(o, "effect_pct", json_real_or_null(h->effect_pct));
		json_put(o, "ci_pct", json_pair(h->lo_pct, h->hi_pct));
		json_put(o, "log_ratio", json_real_or_null(h->y));
		json_put(o, "se", json_real_or_null(h->se));
		json_put(o, "differs", json_boolean(h->differs));
		json_append(hosts, o);
		if (h->differs)
			json_append(differ, json_text(h->label));
	}
	json_put(doc, "hosts", hosts);
	json_put(doc, "pooled", pool_json(&mg->all));
	if (mg->by) {
		json_t *strata = json_array();

		for (size_t j = 0; j < mg->n_strata; j++)
			json_append(strata, pool_json(&mg->strata[j]));
		json_put(doc, "by", json_text(mg->by));
		json_put(doc, "strata", strata);
		json_put(doc, "strata_q", mg->strata_tested ?
			 json_real_or_null(mg->strata_q) : json_null());
		json_put(doc, "strata_q_p", mg->strata_tested ?
			 json_real_or_null(mg->strata_p) : json_null());
	}
	json_put(doc, "verdict", json_text(mg->all.verdict));
	json_put(doc, "hosts_differ", differ);
	return json_print_line(out, doc);
}

/* ",value", or "," alone for a figure that does not exist (one host's tau). */
static void csv_number(FILE *out, double value)
{
	if (isfinite(value))
		fprintf(out, ",%.6g", value);
	else
		fputc(',', out);
}

static void csv_pool_row(FILE *out, const char *kind, const char *name,
			 const struct pool *p)
{
	const struct meta_result *m = &p->m;
	const double figures[] = {
		pct_of_log(m->mu), pct_of_log(m->ci_lo), pct_of_log(m->ci_hi), m->mu,
		m->se, pct_of_log(m->pi_lo), pct_of_log(m->pi_hi), pct_of_log(m->tau),
		m->i2_pct, m->q, m->q_p,
	};

	fprintf(out, "%s,%s,%zu", kind, name, p->k);
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		csv_number(out, figures[i]);
	fprintf(out, ",%s\n", p->verdict);
}

static void print_csv(FILE *out, const struct merge *mg)
{
	fputs("kind,name,n,effect_pct,ci_lo_pct,ci_hi_pct,log_ratio,se,pi_lo_pct,pi_hi_pct,tau_pct,i2_pct,q,q_p,verdict\n",
	      out);
	for (size_t i = 0; i < mg->n_hosts; i++) {
		const struct host *h = &mg->hosts[i];
		const double figures[] = { h->effect_pct, h->lo_pct, h->hi_pct, h->y, h->se };

		fprintf(out, "host,%s,%zu", h->label, h->n);
		for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++)
			csv_number(out, figures[f]);
		fprintf(out, ",,,,,,,%s\n", h->differs ? "differs" : "");
	}
	for (size_t j = 0; j < mg->n_strata; j++)
		csv_pool_row(out, "stratum", mg->strata[j].name, &mg->strata[j]);
	csv_pool_row(out, "pooled", "all", &mg->all);
}

static void print_markdown(FILE *out, const struct merge *mg)
{
	const struct meta_result *m = &mg->all.m;
	char ci[48], pi[48];

	fprintf(out, "vmpctl ab merge: knob `%s`, A=`%s` B=`%s`, metric %s (%s is better)\n\n",
		header_text(mg, "knob"), header_text(mg, "a"), header_text(mg, "b"),
		header_text(mg, "metric_name"), mg->higher_is_better ? "higher" : "lower");
	fputs("| host | n | B vs A | 95% CI | differs |\n|---|---:|---:|---:|---|\n", out);
	for (size_t i = 0; i < mg->n_hosts; i++) {
		const struct host *h = &mg->hosts[i];

		ab_ci_cell(ci, sizeof(ci), h->lo_pct, h->hi_pct);
		fprintf(out, "| %s | %zu | %+.2f%% | %s | %s |\n", h->label, h->n,
			h->effect_pct, ci, h->differs ? "yes" : "");
	}
	pool_ci_cell(ci, sizeof(ci), m);
	ab_ci_cell(pi, sizeof(pi), pct_of_log(m->pi_lo), pct_of_log(m->pi_hi));
	fprintf(out, "| **pooled** | %zu hosts | **%+.2f%%** | %s | |\n\n", m->k,
		pct_of_log(m->mu), ci);
	fprintf(out, "A new host: %s (95%% prediction interval). Between hosts: Q = %.4g (p = %.3g), I² = %.1f%%, tau = %.2f%%. **Verdict: %s**\n",
		pi, m->q, m->q_p, m->i2_pct, pct_of_log(m->tau), mg->all.verdict);
}

static int draw(const struct merge *mg, const char *path)
{
	struct forest_row *rows = calloc(mg->n_hosts, sizeof(*rows));
	const struct meta_result *m = &mg->all.m;
	struct forest_plot f = { 0 };
	char title[512];
	int rc;

	if (!rows) {
		vmpctl_error("ab merge: --plot: %s", strerror(ENOMEM));
		return EXIT_CHECK_FAILED;
	}
	for (size_t i = 0; i < mg->n_hosts; i++)
		rows[i] = (struct forest_row){
			.label = mg->hosts[i].label,
			.effect_pct = mg->hosts[i].effect_pct,
			.lo_pct = mg->hosts[i].lo_pct,
			.hi_pct = mg->hosts[i].hi_pct,
		};
	snprintf(title, sizeof(title), "%s: A=%s vs B=%s on %zu hosts: %s",
		 header_text(mg, "knob"), header_text(mg, "a"), header_text(mg, "b"),
		 mg->n_hosts, mg->all.verdict);
	f.title = title;
	f.metric = header_text(mg, "metric_name");
	f.rows = rows;
	f.n_rows = mg->n_hosts;
	f.pooled = (struct forest_row){
		.label = "pooled", .effect_pct = pct_of_log(m->mu),
		.lo_pct = pct_of_log(m->ci_lo), .hi_pct = pct_of_log(m->ci_hi),
	};
	f.pi_lo_pct = pct_of_log(m->pi_lo);
	f.pi_hi_pct = pct_of_log(m->pi_hi);
	rc = ab_plot_forest(&f, path);
	free(rows);
	return rc;
}

static void merge_free(struct merge *mg)
{
	for (size_t i = 0; i < mg->n_hosts; i++) {
		ab_saved_free(&mg->hosts[i].saved);
		free(mg->hosts[i].label);
		free(mg->hosts[i].stratum);
	}
	free(mg->hosts);
	free(mg->strata);
}

/* Reads and analyses every file; 0 or the exit status. */
static int load_hosts(struct merge *mg, char **paths, size_t n, bool force)
{
	unsigned int differences = 0;
	int rc;

	mg->hosts = calloc(n, sizeof(*mg->hosts));
	if (!mg->hosts)
		return EXIT_CHECK_FAILED;
	for (size_t i = 0; i < n; i++) {
		struct host *h = &mg->hosts[i];

		rc = ab_saved_load(paths[i], &h->saved);
		if (rc)
			return rc;
		mg->n_hosts++;
		h->label = host_label(paths[i]);
		if (mg->by) {
			h->stratum = field_text(h->saved.header, mg->by);
			if (!h->stratum) {
				vmpctl_error("ab merge: %s: --by %s: the header has no such field",
					     paths[i], mg->by);
				return EXIT_USAGE;
			}
		}
		if (!h->label)
			return EXIT_CHECK_FAILED;
		if (i > 0)
			differences += name_differences(&mg->hosts[0], h);
		rc = host_effect(h);
		if (rc)
			return rc;
	}
	if (differences && !force) {
		vmpctl_error("ab merge: the files are not of the same A/B (%u differences above); --force pools them anyway",
			     differences);
		return EXIT_USAGE;
	}
	mg->higher_is_better = mg->hosts[0].saved.opts.higher_is_better;
	return 0;
}

static int merge_analyse(struct merge *mg)
{
	int err = pool_hosts(mg, NULL, &mg->all);

	if (!err && mg->by)
		err = pool_strata(mg);
	if (err) {
		vmpctl_error("ab merge: pooling: %s", strerror(-err));
		return EXIT_CHECK_FAILED;
	}
	for (size_t i = 0; i < mg->n_hosts; i++) {
		struct host *h = &mg->hosts[i];
		double pooled = pct_of_log(mg->all.m.mu);

		h->differs = isfinite(h->lo_pct) && isfinite(h->hi_pct) &&
			(pooled < h->lo_pct || pooled > h->hi_pct);
	}
	return 0;
}

struct merge_options {
	enum ab_format format;
	const char *by, *plot;
	bool force;
};

#define MERGE_FIELD(member) offsetof(struct merge_options, member)

int cmd_ab_merge(int argc, char **argv)
{
	static const struct opt table[] = {
		{ "force", 'f', OPT_TRUE, MERGE_FIELD(force), 0, 0, false, NULL },
		{ "by", 0, OPT_TEXT, MERGE_FIELD(by), 0, 0, false, NULL },
		{ "json", 'j', OPT_CALL, 0, 0, 0, false, ab_opt_format_json },
		{ "csv", 0, OPT_CALL, 0, 0, 0, false, ab_opt_format_csv },
		{ "markdown", 0, OPT_CALL, 0, 0, 0, false, ab_opt_format_markdown },
		{ "plot", 0, OPT_TEXT, MERGE_FIELD(plot), 0, 0, false, NULL },
		OPT_TABLE_FORMAT,
	};
	struct merge_options o = { .format = AB_FORMAT_TABLE };
	const struct opt_parser parser = {
		.cmd = "ab merge", .table = table, .n_options = OPT_COUNT(table),
		.fields = &o, .ctx = &o.format, .tables = merge_tables,
		.usage = merge_usage, .operands = OPT_OPERANDS,
	};
	enum parse_result parsed;
	enum ab_format format;
	struct merge mg = { 0 };
	const char *plot;
	bool force;
	int rc, first;

	parsed = opt_parse(&parser, argc, argv, &first);
	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	format = o.format;
	plot = o.plot;
	force = o.force;
	mg.by = o.by;
	if (argc - first < 2) {
		vmpctl_error("ab merge: at least 2 FILEs, please (vmpctl ab merge [options] FILE...)");
		return EXIT_USAGE;
	}
	rc = load_hosts(&mg, argv + first, (size_t)(argc - first), force);
	if (!rc)
		rc = merge_analyse(&mg);
	if (!rc) {
		switch (format) {
		case AB_FORMAT_JSON:
			if (print_json(stdout, &mg)) {
				vmpctl_error("ab merge: writing the JSON: %s", strerror(EIO));
				rc = EXIT_CHECK_FAILED;
			}
			break;
		case AB_FORMAT_CSV:
			print_csv(stdout, &mg);
			break;
		case AB_FORMAT_MARKDOWN:
			print_markdown(stdout, &mg);
			break;
		default:
			print_table(stdout, &mg);
		}
	}
	if (!rc && plot)
		rc = draw(&mg, plot);
	merge_free(&mg);
	return rc;
}
