// SPDX-License-Identifier: GPL-2.0
/* vmpctl pft: the page-fault workload (see pft.h). */
#include "pft.h"
#include "args.h"
#include "cgroup.h"
#include "child.h"
#include "clock.h"
#include "commands.h"
#include "json.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define PFT_EXIT_ATTACH 125
#define PFT_EXIT_RUN 124

static void pft_usage(FILE *out)
{
	fputs("Usage: vmpctl pft [options]\n"
	      "Page-fault test: threads touch every page of fresh anonymous memory.\n"
	      "\n"
	      "  -s, --size SIZE         memory per repetition (default 1G)\n"
	      "      --threads N         touching threads (default 1)\n"
	      "  -r, --reps N            repetitions, each on fresh memory (default 1)\n"
	      "      --whole-page        write every cache line (CLine 0), not one per page\n"
	      "      --memcg-limit SIZE  run in a temporary memory cgroup with this limit\n"
	      "                          (below --size and with swap: reclaim, vmpressure)\n"
	      "  -j, --json              one JSON object instead of the table\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "SIZE: MiB, or with a K, M, G or T suffix (64, 64M, 1G).\n"
	      "Columns: Gb Rep Thr CLine User(s) System(s) Wall(s) flt/cpu/s fault/wsec\n"
	      "(faults per CPU second and per wall-clock second). Transparent huge pages\n"
	      "are turned off for the mapping, so every base page faults once.\n", out);
}

enum { OPT_THREADS = 256, OPT_WHOLE_PAGE, OPT_MEMCG_LIMIT };

enum parse_result pft_parse_args(int argc, char **argv,
				 struct pft_options *opts)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "reps", required_argument, NULL, 'r' },
		{ "whole-page", no_argument, NULL, OPT_WHOLE_PAGE },
		{ "memcg-limit", required_argument, NULL, OPT_MEMCG_LIMIT },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t number;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->bytes = 1ULL << 30;
	opts->threads = 1;
	opts->reps = 1;
	optind = 0;	/* glibc: full re-initialisation, argv[0] is the command */
	while ((c = getopt_long(argc, argv, ":s:r:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (arg_size("pft", "--size", optarg, &opts->bytes))
				return PARSE_USAGE;
			break;
		case OPT_THREADS:
			if (arg_uint("pft", "--threads", optarg, 1, 100000, &number))
				return PARSE_USAGE;
			opts->threads = (unsigned int)number;
			break;
		case 'r':
			if (arg_uint("pft", "--reps", optarg, 1, 100000, &number))
				return PARSE_USAGE;
			opts->reps = (unsigned int)number;
			break;
		case OPT_WHOLE_PAGE:
			opts->whole_page = true;
			break;
		case OPT_MEMCG_LIMIT:
			if (arg_size("pft", "--memcg-limit", optarg, &opts->memcg_limit))
				return PARSE_USAGE;
			break;
		case 'j':
			opts->json = true;
			break;
		case 'h':
			pft_usage(stdout);
			return PARSE_HELP;
		default:
			return arg_bad_option("pft", c, argv);
		}
	}
	if (arg_no_operands("pft", argc, argv, optind) != PARSE_RUN)
		return PARSE_USAGE;
	if (opts->bytes < (uint64_t)sysconf(_SC_PAGESIZE) * opts->threads) {
		vmpctl_error("pft: --size must give each thread at least one page");
		return PARSE_USAGE;
	}
	return PARSE_RUN;
}

struct toucher {
	pthread_t thread;
	unsigned char *base;
	size_t first_page;
	size_t end_page;
	size_t page_size;
	size_t bytes_per_page;	/* written per page: one line or all */
};

/*
 * Not instrumented under ASan: each store would also read its shadow
 * page, one more fault per 32 KiB, and the faults are what is measured.
 */
__attribute__((no_sanitize_address))
static void *touch_pages(void *arg)
{
	const struct toucher *t = arg;
	size_t words = t->bytes_per_page / sizeof(uint64_t);

	for (size_t i = t->first_page; i < t->end_page; i++) {
		/* volatile: the stores are the workload, gcc must keep them */
		volatile uint64_t *p =
			(volatile uint64_t *)(t->base + i * t->page_size);

		for (size_t w = 0; w < words; w++)
			p[w] = (uint64_t)i ^ w;
	}
	return NULL;
}

static size_t cache_line_size(void)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	return line >= (long)sizeof(uint64_t) ? (size_t)line : 64;
}

/* One repetition: map, touch from all threads, unmap. */
static int run_repetition(const struct pft_options *opts,
			  struct toucher *touchers, struct pft_result *result)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = opts->bytes / page, length = pages * page;
	struct rusage before, after;
	unsigned int started = 0;
	unsigned char *base;
	double start;
	int err = 0;

	base = mmap(NULL, length, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	/* huge pages would fault once per 2 MiB: measure base-page faults */
	madvise(base, length, MADV_NOHUGEPAGE);

	getrusage(RUSAGE_SELF, &before);
	start = monotonic_s();
	for (unsigned int i = 0; i < opts->threads; i++) {
		struct toucher *t = &touchers[i];

		t->base = base;
		t->page_size = page;
		t->bytes_per_page = opts->whole_page ? page : cache_line_size();
		t->first_page = pages * i / opts->threads;
		t->end_page = pages * (i + 1) / opts->threads;
		err = -pthread_create(&t->thread, NULL, touch_pages, t);
		if (err)
			break;
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(touchers[i].thread, NULL);
	result->wall_s += monotonic_s() - start;
	getrusage(RUSAGE_SELF, &after);
	munmap(base, length);
	if (err)
		return err;

	result->pages_touched += pages;
	result->minor_faults += (uint64_t)(after.ru_minflt - before.ru_minflt);
	result->major_faults += (uint64_t)(after.ru_majflt - before.ru_majflt);
	result->user_s += timeval_s(&after.ru_utime) - timeval_s(&before.ru_utime);
	result->system_s += timeval_s(&after.ru_stime) -
		timeval_s(&before.ru_stime);
	return 0;
}

int pft_run(const struct pft_options *opts, struct pft_result *result)
{
	struct toucher *touchers = calloc(opts->threads, sizeof(*touchers));
	int err = 0;

	if (!touchers)
		return -ENOMEM;
	memset(result, 0, sizeof(*result));
	for (unsigned int rep = 0; rep < opts->reps && !err; rep++)
		err = run_repetition(opts, touchers, result);
	free(touchers);
	return err;
}

double pft_faults_per_cpu_second(const struct pft_result *result)
{
	double cpu = result->user_s + result->system_s;

	return cpu > 0 ? (double)result->pages_touched / cpu : NAN;
}

double pft_faults_per_wall_second(const struct pft_result *result)
{
	return result->wall_s > 0 ?
		(double)result->pages_touched / result->wall_s : NAN;
}

bool pft_faults_match(const struct pft_result *result)
{
	double touched = (double)result->pages_touched;
	double faults = (double)(result->minor_faults + result->major_faults);

	return touched > 0 &&
		fabs(faults - touched) <= PFT_FAULT_TOLERANCE * touched;
}

static double gib(uint64_t bytes)
{
	return (double)bytes / (double)(1ULL << 30);
}

void pft_print_table(FILE *out, const struct pft_options *opts,
		     const struct pft_result *result)
{
	static const char *const headers[] = {
		"Gb", "Rep", "Thr", "CLine", "User(s)", "System(s)", "Wall(s)",
		"flt/cpu/s", "fault/wsec", NULL
	};
	char cells[9][32];
	const char *row[9];
	struct table t;

	snprintf(cells[0], sizeof(cells[0]), "%.2f", gib(opts->bytes));
	snprintf(cells[1], sizeof(cells[1]), "%u", opts->reps);
	snprintf(cells[2], sizeof(cells[2]), "%u", opts->threads);
	snprintf(cells[3], sizeof(cells[3]), "%d", opts->whole_page ? 0 : 1);
	snprintf(cells[4], sizeof(cells[4]), "%.2f", result->user_s);
	snprintf(cells[5], sizeof(cells[5]), "%.2f", result->system_s);
	snprintf(cells[6], sizeof(cells[6]), "%.2f", result->wall_s);
	snprintf(cells[7], sizeof(cells[7]), "%.1f",
		 pft_faults_per_cpu_second(result));
	snprintf(cells[8], sizeof(cells[8]), "%.1f",
		 pft_faults_per_wall_second(result));
	for (int i = 0; i < 9; i++)
		row[i] = cells[i];
	if (table_init(&t, headers, 0x1ff) || table_add_row(&t, row)) {
		table_free(&t);
		return;
	}
	table_print(&t, out);
	table_free(&t);
}

int pft_print_json(FILE *out, const struct pft_options *opts,
		   const struct pft_result *result)
{
	json_t *o = json_object();

	json_put(o, "Gb", json_real_or_null(gib(opts->bytes)));
	json_put(o, "Rep", json_count(opts->reps));
	json_put(o, "Thr", json_count(opts->threads));
	json_put(o, "CLine", json_integer(opts->whole_page ? 0 : 1));
	json_put(o, "User(s)", json_real_or_null(result->user_s));
	json_put(o, "System(s)", json_real_or_null(result->system_s));
	json_put(o, "Wall(s)", json_real_or_null(result->wall_s));
	json_put(o, "flt/cpu/s", json_real_or_null(pft_faults_per_cpu_second(result)));
	json_put(o, "fault/wsec", json_real_or_null(pft_faults_per_wall_second(result)));
	json_put(o, "pages", json_count(result->pages_touched));
	json_put(o, "minor_faults", json_count(result->minor_faults));
	json_put(o, "major_faults", json_count(result->major_faults));
	json_put(o, "memcg_limit", opts->memcg_limit ? json_count(opts->memcg_limit) :
		 json_null());
	return json_print_line(out, o);
}

struct pft_child {
	const struct memcg *cg;
	const struct pft_options *opts;
};

/* In the memcg: the workload, its result as raw bytes on stdout. */
static int pft_child_body(void *arg)
{
	const struct pft_child *c = arg;
	struct pft_result result;
	int err;

	err = memcg_enter_child(c->cg);
	if (err) {
		vmpctl_error("pft: moving into %s: %s", c->cg->path, strerror(-err));
		return PFT_EXIT_ATTACH;
	}
	err = pft_run(c->opts, &result);
	if (err) {
		vmpctl_error("pft: touching %llu bytes: %s",
			     (unsigned long long)c->opts->bytes, strerror(-err));
		return PFT_EXIT_RUN;
	}
	if (write(STDOUT_FILENO, &result, sizeof(result)) != sizeof(result))
		return PFT_EXIT_RUN;
	return 0;
}

static int run_in_memcg(const struct pft_options *opts,
			struct pft_result *result)
{
	struct cgroup_layout layout;
	uint64_t oom_before = 0, oom_after = 0;
	struct memcg cg;
	struct pft_child child = { &cg, opts };
	struct child_spec spec = { .body = pft_child_body, .arg = &child,
				   .capture_max = 2 * sizeof(*result) };
	struct child_result res = { 0 };
	int err, ret = EXIT_CHECK_FAILED;
	bool have_oom;

	err = cgroup_layout_detect(&layout);
	if (!err)
		err = memcg_create_temp(&layout, opts->memcg_limit, &cg);
	if (err) {
		vmpctl_error("pft: creating a memory cgroup: %s",
			     err == -ENODEV ? "no memory controller mounted" :
			     strerror(-err));
		return EXIT_ENVIRONMENT;
	}
	have_oom = memcg_read_oom_kills(&cg, &oom_before) == 0;
	err = child_run(&spec, &res);
	if (err && err != -EINTR) {
		vmpctl_error("pft: starting the workload: %s", strerror(-err));
	} else if (err || stop_requested()) {
		ret = EXIT_CHECK_FAILED;
	} else if (WIFSIGNALED(res.status)) {
		bool oom = WTERMSIG(res.status) == SIGKILL &&
			(!have_oom || (memcg_read_oom_kills(&cg, &oom_after) == 0 &&
				       oom_after > oom_before));

		vmpctl_error("pft: the workload was %s", oom ?
			     "killed by the OOM killer (no swap? raise --memcg-limit)" :
			     strsignal(WTERMSIG(res.status)));
	} else if (WEXITSTATUS(res.status) == PFT_EXIT_ATTACH) {
		ret = EXIT_ENVIRONMENT;
	} else if (WEXITSTATUS(res.status) == 0 &&
		   res.out.total == sizeof(*result)) {
		memcpy(result, res.out.text, sizeof(*result));
		ret = 0;
	}
	child_result_free(&res);
	err = memcg_remove(&cg);
	if (err)
		vmpctl_error("pft: removing %s: %s", cg.path, strerror(-err));
	if (stop_requested())
		stop_signals_reraise();
	return ret;
}

int cmd_pft(int argc, char **argv)
{
	struct pft_options opts;
	struct pft_result result;
	enum parse_result parsed = pft_parse_args(argc, argv, &opts);
	int ret;

	if (parsed != PARSE_RUN)
		return parse_exit_status(parsed);
	if (opts.memcg_limit) {
		ret = run_in_memcg(&opts, &result);
		if (ret)
			return ret;
	} else {
		int err = pft_run(&opts, &result);

		if (err) {
			vmpctl_error("pft: touching %llu bytes: %s",
				     (unsigned long long)opts.bytes,
				     strerror(-err));
			return EXIT_CHECK_FAILED;
		}
	}
	if (opts.json) {
		int err = pft_print_json(stdout, &opts, &result);

		if (err) {
			vmpctl_error("pft: writing JSON: %s", strerror(-err));
			return EXIT_CHECK_FAILED;
		}
	} else {
		pft_print_table(stdout, &opts, &result);
	}
	if (!pft_faults_match(&result))
		vmpctl_error("pft: warning: %llu pages touched but %llu faults "
			     "(more than %.0f%% off: huge pages or a stale mapping?)",
			     (unsigned long long)result.pages_touched,
			     (unsigned long long)(result.minor_faults +
						 result.major_faults),
			     PFT_FAULT_TOLERANCE * 100);
	return 0;
}
