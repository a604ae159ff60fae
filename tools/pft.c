// SPDX-License-Identifier: GPL-2.0
/* vmpctl pft: the page-fault workload (see pft.h). */
#include "pft.h"
#include "cgroup.h"
#include "child.h"
#include "clock.h"
#include "commands.h"
#include "json.h"
#include "options.h"
#include "output.h"
#include "rate.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
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
	      "      --duration S        touch at a steady rate for S seconds instead:\n"
	      "                          each chunk is dropped and faulted again\n"
	      "      --report-interval S a rate line every S seconds on stdout (for\n"
	      "                          vmpctl ab --interleave; see vmpctl(1))\n"
	      "      --whole-page        write every cache line (CLine 0), not one per page\n"
	      "      --memcg-limit SIZE  run in a temporary memory cgroup with this limit\n"
	      "                          (below --size and with swap: reclaim, vmpressure)\n"
	      "  -j, --json              one JSON object instead of the table\n"
	      "      --raw               the table with one space between cells\n"
	      "      --noheadings        the table without its header line\n"
	      "      --output COLUMNS    only these columns, in this order (names:\n"
	      "                          COLUMNS in vmpctl(1))\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Rate line: {\"t\":CLOCK_MONOTONIC s,\"interval_s\":S,\"count\":pages,\"rate\":pages/s}\n"
	      "SIZE: MiB, or with a K, M, G or T suffix (64, 64M, 1G).\n"
	      "Columns: Gb Rep Thr CLine User(s) System(s) Wall(s) flt/cpu/s fault/wsec\n"
	      "(faults per CPU second and per wall-clock second). Transparent huge pages\n"
	      "are turned off for the mapping, so every base page faults once.\n", out);
}

static const char *const pft_headers[] = {
	"Gb", "Rep", "Thr", "CLine", "User(s)", "System(s)", "Wall(s)",
	"flt/cpu/s", "fault/wsec", NULL
};
const char *const *const pft_tables[] = { pft_headers, NULL };

/* pft's option values, and what the parse learns beside them. */
struct pft_parse {
	struct pft_options opts;
	bool reps_given;
};

static int took_reps(void *ctx, const char *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	((struct pft_parse *)ctx)->reps_given = true;
	return 0;
}

static int check_duration(void *ctx, const char *opt, const char *arg)
{
	if (((struct pft_parse *)ctx)->opts.duration_s > 0)
		return 0;
	vmpctl_error("pft: %s: '%s' is not above 0 seconds", opt, arg);
	return -EINVAL;
}

static int check_report_interval(void *ctx, const char *opt, const char *arg)
{
	double s = ((struct pft_parse *)ctx)->opts.report_interval_s;

	if (s >= RATE_INTERVAL_MIN && s <= RATE_INTERVAL_MAX)
		return 0;
	vmpctl_error("pft: %s: '%s' is not between %g and %g seconds", opt, arg,
		     RATE_INTERVAL_MIN, RATE_INTERVAL_MAX);
	return -EINVAL;
}

#define PFT_FIELD(member) offsetof(struct pft_parse, opts.member)

enum parse_result pft_parse_args(int argc, char **argv,
				 struct pft_options *opts)
{
	static const struct opt table[] = {
		{ "size", 's', OPT_SIZE, PFT_FIELD(bytes), 0, 0, false, NULL },
		{ "threads", 0, OPT_UINT, PFT_FIELD(threads), 1, 100000, false, NULL },
		{ "reps", 'r', OPT_UINT, PFT_FIELD(reps), 1, 100000, false, took_reps },
		{ "whole-page", 0, OPT_TRUE, PFT_FIELD(whole_page), 0, 0, false, NULL },
		{ "memcg-limit", 0, OPT_SIZE, PFT_FIELD(memcg_limit), 0, 0, false, NULL },
		{ "duration", 0, OPT_SECONDS, PFT_FIELD(duration_s), 0, 0, false,
		  check_duration },
		{ "report-interval", 0, OPT_SECONDS, PFT_FIELD(report_interval_s), 0, 0,
		  false, check_report_interval },
		{ "json", 'j', OPT_TRUE, PFT_FIELD(json), 0, 0, false, NULL },
		OPT_TABLE_FORMAT,
	};
	struct pft_parse p = {
		.opts = {
			.bytes = 1ULL << 30,
			.threads = 1,
			.reps = 1,
			.report_fd = STDOUT_FILENO,
		},
	};
	const struct opt_parser parser = {
		.cmd = "pft", .table = table, .n_options = OPT_COUNT(table),
		.fields = &p, .ctx = &p, .tables = pft_tables, .usage = pft_usage,
	};
	enum parse_result parsed;

	parsed = opt_parse(&parser, argc, argv, NULL);
	*opts = p.opts;
	if (parsed != PARSE_RUN)
		return parsed;
	if (opts->bytes < (uint64_t)sysconf(_SC_PAGESIZE) * opts->threads) {
		vmpctl_error("pft: --size must give each thread at least one page");
		return PARSE_USAGE;
	}
	if (p.reps_given && opts->duration_s > 0) {
		vmpctl_error("pft: --reps and --duration: one way to say how long, please");
		return PARSE_USAGE;
	}
	return PARSE_RUN;
}

/* Pages a thread touched so far, alone on its cache line: the reporter reads it. */
struct pft_progress {
	uint64_t pages;
} __attribute__((aligned(64)));

struct toucher {
	pthread_t thread;
	unsigned char *base;
	size_t first_page;
	size_t end_page;
	size_t page_size;
	size_t bytes_per_page;	/* written per page: one line or all */
	bool steady;		/* --duration: cycle until *stop */
	const bool *stop;
	struct pft_progress *progress;
};

/*
 * Not instrumented under ASan: each store would also read its shadow
 * page, one more fault per 32 KiB, and the faults are what is measured.
 * Steady: chunk after chunk, each dropped before it is touched again, so
 * every touch faults a fresh page.
 */
__attribute__((no_sanitize_address))
static void *touch_pages(void *arg)
{
	const struct toucher *t = arg;
	size_t words = t->bytes_per_page / sizeof(uint64_t);
	uint64_t done = __atomic_load_n(&t->progress->pages, __ATOMIC_RELAXED);
	size_t i = t->first_page;
	bool again = false;

	for (;;) {
		size_t chunk_end = i + PFT_CHUNK_PAGES < t->end_page ?
			i + PFT_CHUNK_PAGES : t->end_page;

		if (again)
			madvise(t->base + i * t->page_size,
				(chunk_end - i) * t->page_size, MADV_DONTNEED);
		for (; i < chunk_end; i++) {
			/* volatile: the stores are the workload, gcc must keep them */
			volatile uint64_t *p =
				(volatile uint64_t *)(t->base + i * t->page_size);

			for (size_t w = 0; w < words; w++)
				p[w] = (uint64_t)i ^ w;
			__atomic_store_n(&t->progress->pages, ++done,
					 __ATOMIC_RELAXED);
		}
		if (t->steady && __atomic_load_n(t->stop, __ATOMIC_RELAXED))
			break;
		if (i == t->end_page) {
			if (!t->steady)
				break;
			i = t->first_page;
			again = true;
		}
	}
	return NULL;
}

static size_t cache_line_size(void)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	return line >= (long)sizeof(uint64_t) ? (size_t)line : 64;
}

static uint64_t pages_done(const struct pft_progress *progress,
			   unsigned int threads)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < threads; i++)
		sum += __atomic_load_n(&progress[i].pages, __ATOMIC_RELAXED);
	return sum;
}

/* Sleeps until the end of --duration on CLOCK_MONOTONIC. */
static void sleep_until(double end)
{
	struct timespec ts;

	ts.tv_sec = (time_t)end;
	ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * One repetition: map, touch from all threads, unmap; with --duration
 * the one steady pass that lasts until its end.
 */
static int run_repetition(const struct pft_options *opts,
			  struct toucher *touchers,
			  struct pft_progress *progress,
			  struct pft_result *result)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = opts->bytes / page, length = pages * page;
	uint64_t done_before = pages_done(progress, opts->threads);
	struct rusage before, after;
	unsigned int started = 0;
	unsigned char *base;
	bool stop = false;
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
		t->steady = opts->duration_s > 0;
		t->stop = &stop;
		t->progress = &progress[i];
		err = -pthread_create(&t->thread, NULL, touch_pages, t);
		if (err)
			break;
		started++;
	}
	if (opts->duration_s > 0)
		sleep_until(start + opts->duration_s);
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(touchers[i].thread, NULL);
	result->wall_s += monotonic_s() - start;
	getrusage(RUSAGE_SELF, &after);
	munmap(base, length);
	if (err)
		return err;

	result->pages_touched += pages_done(progress, opts->threads) - done_before;
	result->minor_faults += (uint64_t)(after.ru_minflt - before.ru_minflt);
	result->major_faults += (uint64_t)(after.ru_majflt - before.ru_majflt);
	result->user_s += timeval_s(&after.ru_utime) - timeval_s(&before.ru_utime);
	result->system_s += timeval_s(&after.ru_stime) -
		timeval_s(&before.ru_stime);
	return 0;
}

struct progress_sum {
	const struct pft_progress *progress;
	unsigned int threads;
};

static uint64_t count_pages(void *ctx)
{
	const struct progress_sum *sum = ctx;

	return pages_done(sum->progress, sum->threads);
}

int pft_run(const struct pft_options *opts, struct pft_result *result)
{
	struct toucher *touchers = calloc(opts->threads, sizeof(*touchers));
	struct pft_progress *progress = aligned_alloc(sizeof(*progress),
		opts->threads * sizeof(*progress));
	struct progress_sum sum = { progress, opts->threads };
	unsigned int reps = opts->duration_s > 0 ? 1 : opts->reps;
	struct rate_reporter reporter = { 0 };
	int err = 0, report_err;

	if (!touchers || !progress) {
		free(touchers);
		free(progress);
		return -ENOMEM;
	}
	memset(progress, 0, opts->threads * sizeof(*progress));
	memset(result, 0, sizeof(*result));
	if (opts->report_interval_s > 0)
		err = rate_reporter_start(&reporter, opts->report_fd,
					  opts->report_interval_s, count_pages, &sum);
	for (unsigned int rep = 0; rep < reps && !err; rep++)
		err = run_repetition(opts, touchers, progress, result);
	report_err = rate_reporter_stop(&reporter);
	free(touchers);
	free(progress);
	return err ? err : report_err;
}

uint64_t pft_passes(const struct pft_options *opts,
		    const struct pft_result *result)
{
	uint64_t pages = opts->bytes / (uint64_t)sysconf(_SC_PAGESIZE);

	if (!(opts->duration_s > 0))
		return opts->reps;
	return pages ? result->pages_touched / pages : 0;
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
	char cells[9][32];
	const char *row[9];
	struct table t;

	snprintf(cells[0], sizeof(cells[0]), "%.2f", gib(opts->bytes));
	snprintf(cells[1], sizeof(cells[1]), "%llu",
		 (unsigned long long)pft_passes(opts, result));
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
	if (table_init(&t, pft_headers, 0x1ff) || table_add_row(&t, row)) {
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
	json_put(o, "Rep", json_count(pft_passes(opts, result)));
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
	json_put(o, "duration_s", json_real_or_null(opts->duration_s > 0 ?
						     opts->duration_s : NAN));
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
	struct pft_options child_opts = *opts;
	struct pft_child child = { &cg, &child_opts };
	struct child_spec spec = { .body = pft_child_body, .arg = &child,
				   .capture_max = 2 * sizeof(*result) };
	struct child_result res = { 0 };
	int err, ret = EXIT_CHECK_FAILED;
	bool have_oom;

	/* the child's stdout carries its result: rate lines go to ours */
	if (opts->report_interval_s > 0) {
		child_opts.report_fd = fcntl(opts->report_fd, F_DUPFD_CLOEXEC, 3);
		if (child_opts.report_fd < 0) {
			vmpctl_error("pft: stdout for the rate lines: %s",
				     strerror(errno));
			return EXIT_CHECK_FAILED;
		}
	}
	err = cgroup_layout_detect(&layout);
	if (!err)
		err = memcg_create_temp(&layout, opts->memcg_limit, &cg);
	if (err) {
		vmpctl_error("pft: creating a memory cgroup: %s",
			     err == -ENODEV ? "no memory controller mounted" :
			     strerror(-err));
		if (opts->report_interval_s > 0)
			close(child_opts.report_fd);
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
	if (opts->report_interval_s > 0)
		close(child_opts.report_fd);
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
