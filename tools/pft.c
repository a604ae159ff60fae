// SPDX-License-Identifier: GPL-2.0
/* vmpctl pft: the page-fault workload (see pft.h). */
#include "pft.h"
#include "args.h"
#include "cgroup.h"
#include "commands.h"
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
#include <time.h>
#include <unistd.h>

#define PFT_EXIT_ATTACH 125
#define PFT_EXIT_RUN 124

int pft_parse_size(const char *text, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *unit;
	char *end;
	double value;
	int power = 2;	/* no suffix: MiB, like measure's --size */

	errno = 0;
	if (!text[0] || text[0] == '-')
		return -EINVAL;
	value = strtod(text, &end);
	if (end == text || errno)
		return -EINVAL;
	if (*end) {
		unit = strchr(units, *end & ~0x20);
		if (!unit || !*unit)
			return -EINVAL;
		power = (int)(unit - units) + 1;
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	value *= pow(1024.0, power);
	if (!(value >= 1) || value >= 18446744073709551616.0)
		return -ERANGE;
	*bytes = (uint64_t)value;
	return 0;
}

static void pft_usage(FILE *out)
{
	fputs("Usage: vmpctl pft [options]\n"
	      "Page-fault test: threads touch every page of fresh anonymous memory.\n"
	      "\n"
	      "  -s, --size SIZE         memory per repetition: MiB, or with a K/M/G\n"
	      "                          suffix (default 1G)\n"
	      "  -t, --threads N         touching threads (default 1)\n"
	      "  -r, --reps N            repetitions, each on fresh memory (default 1)\n"
	      "  -w, --whole-page        write every cache line (CLine 0), not one per page\n"
	      "  -m, --memcg-limit SIZE  run in a temporary memory cgroup with this limit\n"
	      "                          (below --size and with swap: reclaim, vmpressure)\n"
	      "  -j, --json              one JSON object instead of the table\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Columns: Gb Rep Thr CLine User(s) System(s) Wall(s) flt/cpu/s fault/wsec\n"
	      "(faults per CPU second and per wall-clock second). Transparent huge pages\n"
	      "are turned off for the mapping, so every base page faults once.\n", out);
}

static int parse_count(const char *text, unsigned int *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (text[0] == '-')
		return -EINVAL;
	v = strtoul(text, &end, 10);
	if (end == text || *end || errno || v == 0 || v > 100000)
		return -EINVAL;
	*value = (unsigned int)v;
	return 0;
}

enum parse_result pft_parse_args(int argc, char **argv,
				 struct pft_options *opts)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "reps", required_argument, NULL, 'r' },
		{ "whole-page", no_argument, NULL, 'w' },
		{ "memcg-limit", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->bytes = 1ULL << 30;
	opts->threads = 1;
	opts->reps = 1;
	optind = 0;	/* glibc: full re-initialisation, argv[0] is the command */
	while ((c = getopt_long(argc, argv, ":s:t:r:wm:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (pft_parse_size(optarg, &opts->bytes)) {
				vmpctl_error("pft: bad --size '%s': want MiB or e.g. 512M, 1G",
					     optarg);
				return PARSE_USAGE;
			}
			break;
		case 't':
			if (parse_count(optarg, &opts->threads)) {
				vmpctl_error("pft: bad --threads '%s': want 1..100000",
					     optarg);
				return PARSE_USAGE;
			}
			break;
		case 'r':
			if (parse_count(optarg, &opts->reps)) {
				vmpctl_error("pft: bad --reps '%s': want 1..100000",
					     optarg);
				return PARSE_USAGE;
			}
			break;
		case 'w':
			opts->whole_page = true;
			break;
		case 'm':
			if (pft_parse_size(optarg, &opts->memcg_limit)) {
				vmpctl_error("pft: bad --memcg-limit '%s': want e.g. 64M",
					     optarg);
				return PARSE_USAGE;
			}
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

static double timeval_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

static void json_number(FILE *out, double value)
{
	if (isfinite(value))
		fprintf(out, "%.17g", value);
	else
		fputs("null", out);
}

void pft_print_json(FILE *out, const struct pft_options *opts,
		    const struct pft_result *result)
{
	fputs("{\"Gb\":", out);
	json_number(out, gib(opts->bytes));
	fprintf(out, ",\"Rep\":%u,\"Thr\":%u,\"CLine\":%d,\"User(s)\":",
		opts->reps, opts->threads, opts->whole_page ? 0 : 1);
	json_number(out, result->user_s);
	fputs(",\"System(s)\":", out);
	json_number(out, result->system_s);
	fputs(",\"Wall(s)\":", out);
	json_number(out, result->wall_s);
	fputs(",\"flt/cpu/s\":", out);
	json_number(out, pft_faults_per_cpu_second(result));
	fputs(",\"fault/wsec\":", out);
	json_number(out, pft_faults_per_wall_second(result));
	fprintf(out, ",\"pages\":%llu,\"minor_faults\":%llu,\"major_faults\":%llu,\"memcg_limit\":",
		(unsigned long long)result->pages_touched,
		(unsigned long long)result->minor_faults,
		(unsigned long long)result->major_faults);
	if (opts->memcg_limit)
		fprintf(out, "%llu", (unsigned long long)opts->memcg_limit);
	else
		fputs("null", out);
	fputs("}\n", out);
}

static void run_child(const struct memcg *cg, const struct pft_options *opts,
		      int result_fd)
{
	struct pft_result result;
	int err;

	err = memcg_enter_child(cg);
	if (err) {
		vmpctl_error("pft: moving into %s: %s", cg->path, strerror(-err));
		_exit(PFT_EXIT_ATTACH);
	}
	err = pft_run(opts, &result);
	if (err) {
		vmpctl_error("pft: touching %llu bytes: %s",
			     (unsigned long long)opts->bytes, strerror(-err));
		_exit(PFT_EXIT_RUN);
	}
	if (write(result_fd, &result, sizeof(result)) != sizeof(result))
		_exit(PFT_EXIT_RUN);
	_exit(0);
}

/* Reads the child's result and reaps it; kills it when we are stopped. */
static int reap_child(pid_t pid, int result_fd, struct pft_result *result,
		      int *status)
{
	size_t got = 0;
	bool killed = false;

	while (got < sizeof(*result)) {
		ssize_t n = read(result_fd, (char *)result + got,
				 sizeof(*result) - got);

		if (n > 0) {
			got += (size_t)n;
		} else if (n == 0) {
			break;
		} else if (errno != EINTR) {
			break;
		} else if (stop_requested() && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		}
	}
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (stop_requested() && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		}
	}
	return got == sizeof(*result) ? 0 : -EIO;
}

static int run_in_memcg(const struct pft_options *opts,
			struct pft_result *result)
{
	struct cgroup_layout layout;
	uint64_t oom_before = 0, oom_after = 0;
	struct memcg cg;
	int pipefd[2], status = 0, err, ret = EXIT_CHECK_FAILED;
	bool have_oom;
	pid_t pid;

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
	if (pipe(pipefd) < 0) {
		vmpctl_error("pft: pipe: %s", strerror(errno));
		memcg_remove(&cg);
		return EXIT_CHECK_FAILED;
	}
	stop_signals_install();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		vmpctl_error("pft: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		run_child(&cg, opts, pipefd[1]);
	}
	close(pipefd[1]);
	pipefd[1] = -1;
	err = reap_child(pid, pipefd[0], result, &status);
	if (stop_requested()) {
		ret = EXIT_CHECK_FAILED;
	} else if (WIFSIGNALED(status)) {
		bool oom = WTERMSIG(status) == SIGKILL &&
			(!have_oom || (memcg_read_oom_kills(&cg, &oom_after) == 0 &&
				       oom_after > oom_before));

		vmpctl_error("pft: the workload was %s", oom ?
			     "killed by the OOM killer (no swap? raise --memcg-limit)" :
			     strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == PFT_EXIT_ATTACH) {
		ret = EXIT_ENVIRONMENT;
	} else if (!err && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		ret = 0;
	}
out:
	close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
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
	if (opts.json)
		pft_print_json(stdout, &opts, &result);
	else
		pft_print_table(stdout, &opts, &result);
	if (!pft_faults_match(&result))
		vmpctl_error("pft: warning: %llu pages touched but %llu faults "
			     "(more than %.0f%% off: huge pages or a stale mapping?)",
			     (unsigned long long)result.pages_touched,
			     (unsigned long long)(result.minor_faults +
						 result.major_faults),
			     PFT_FAULT_TOLERANCE * 100);
	return 0;
}
