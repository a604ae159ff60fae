// SPDX-License-Identifier: GPL-2.0
#include "child.h"
#include "clock.h"
#include "output.h"
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* The last max bytes of a stream, in a ring. */
struct tail {
	char *ring;
	size_t max;
	size_t start;	/* oldest byte */
	size_t len;
	uint64_t total;
};

static void tail_add(struct tail *t, const char *data, size_t n)
{
	t->total += n;
	if (n >= t->max) {
		memcpy(t->ring, data + n - t->max, t->max);
		t->start = 0;
		t->len = t->max;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t at = (t->start + t->len) % t->max;

		t->ring[at] = data[i];
		if (t->len < t->max)
			t->len++;
		else
			t->start = (t->start + 1) % t->max;
	}
}

/* Moves the ring into out, oldest byte first. */
static int tail_finish(struct tail *t, struct child_output *out)
{
	size_t first = t->max - t->start < t->len ? t->max - t->start : t->len;

	out->text = malloc(t->len + 1);
	if (!out->text)
		return -ENOMEM;
	memcpy(out->text, t->ring + t->start, first);
	memcpy(out->text + first, t->ring, t->len - first);
	out->text[t->len] = '\0';
	out->len = t->len;
	out->total = t->total;
	out->cut = t->total > t->len;
	return 0;
}

/* Reads what the pipe has now; false at EOF or on an error. */
static bool read_available(const struct child_spec *spec, int fd,
			   struct tail *t)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n > 0) {
			tail_add(t, chunk, (size_t)n);
			if (spec->on_output)
				spec->on_output(spec->ctx, chunk, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && errno == EAGAIN;
	}
}

static void run_in_child(const struct child_spec *spec, int out_fd)
{
	int null_fd;

	stop_signals_reset_in_child();
	if (spec->own_group)
		setpgid(0, 0);
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0) {
		vmpctl_error("child: stdin from /dev/null: %s", strerror(errno));
		_exit(CHILD_EXIT_CANNOT_EXEC);
	}
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0) {
		vmpctl_error("child: stdout to the capture pipe: %s", strerror(errno));
		_exit(CHILD_EXIT_CANNOT_EXEC);
	}
	if (out_fd >= 0 && spec->stderr_too && dup2(out_fd, STDERR_FILENO) < 0) {
		vmpctl_error("child: stderr to the capture pipe: %s", strerror(errno));
		_exit(CHILD_EXIT_CANNOT_EXEC);
	}
	if (spec->body)
		_exit(spec->body(spec->arg));
	execvp(spec->argv[0], spec->argv);
	vmpctl_error("running %s: %s", spec->argv[0], strerror(errno));
	_exit(errno == ENOENT ? CHILD_EXIT_NOT_FOUND : CHILD_EXIT_CANNOT_EXEC);
}

/* The child, or its whole process group with own_group. */
static void signal_child(const struct child_spec *spec, pid_t pid, int sig)
{
	kill(spec->own_group ? -pid : pid, sig);
}

static int forward_signal(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? sig : SIGTERM;
}

static double grace_s(const struct child_spec *spec)
{
	return spec->stop_grace_s > 0 ? spec->stop_grace_s : CHILD_STOP_GRACE_S;
}

/*
 * Milliseconds poll() may sleep: until the grace ends or on_wake's time,
 * else forever (a tenth of a second when there is no self-pipe to wake it).
 */
static int poll_timeout(const struct child_result *r, double kill_at,
			double wake_at)
{
	double until = INFINITY, left;

	if ((r->stopped || r->ended) && !r->killed)
		until = kill_at;
	until = fmin(until, wake_at);
	if (isinf(until))
		return stop_wake_fd() < 0 ? 100 : -1;
	left = until - monotonic_s();
	return left <= 0 ? 0 : (int)ceil(left * 1000);
}

/*
 * Forwards a stop that came after stops_before, escalates after the grace
 * or at another stop.
 */
static void handle_stop(const struct child_spec *spec, pid_t pid,
			struct child_result *r, unsigned int stops_before,
			unsigned int *stops_at_forward, double *kill_at)
{
	if (stop_count() <= stops_before)
		return;
	if (!r->stopped) {
		signal_child(spec, pid, forward_signal(stop_signal()));
		r->stopped = true;
		*stops_at_forward = stop_count();
		*kill_at = monotonic_s() + grace_s(spec);
		return;
	}
	if (!r->killed && stop_count() > *stops_at_forward) {
		signal_child(spec, pid, SIGKILL);
		r->killed = true;
	}
}

/* SIGKILL for a child asked to end (a stop or on_wake) once the grace is over. */
static void escalate(const struct child_spec *spec, pid_t pid,
		     struct child_result *r, double kill_at)
{
	if ((r->stopped || r->ended) && !r->killed && monotonic_s() >= kill_at) {
		signal_child(spec, pid, SIGKILL);
		r->killed = true;
	}
}

/* on_wake's turn: it may ask for the child's end (SIGTERM, then the grace). */
static void watch_child(const struct child_spec *spec, pid_t pid,
			struct child_result *r, double *wake_at, double *kill_at)
{
	*wake_at = INFINITY;
	if (!spec->on_wake || r->stopped || r->ended)
		return;
	if (spec->on_wake(spec->ctx, wake_at))
		return;
	*wake_at = INFINITY;
	signal_child(spec, pid, SIGTERM);
	r->ended = true;
	*kill_at = monotonic_s() + grace_s(spec);
}

int child_run(const struct child_spec *spec, struct child_result *r)
{
	struct tail tail = { .max = spec->capture_max };
	int pipefd[2] = { -1, -1 }, err = 0;
	unsigned int stops_before = 0, stops_at_forward = 0;
	double start, kill_at = 0, wake_at = INFINITY;
	struct rusage usage;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	stop_signals_install();
	if (spec->despite_stop)
		stops_before = stop_count();
	else if (stop_requested())
		return -EINTR;
	if (tail.max) {
		tail.ring = malloc(tail.max);
		if (!tail.ring)
			return -ENOMEM;
		if (pipe2(pipefd, O_CLOEXEC) < 0) {
			err = -errno;
			free(tail.ring);
			return err;
		}
	}
	fflush(NULL);
	start = monotonic_s();
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	/* in both processes: no signal can come before the group exists */
	if (pid > 0 && spec->own_group)
		setpgid(pid, pid);
	if (pid == 0) {
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		run_in_child(spec, pipefd[1]);
	}
	if (pipefd[1] >= 0) {
		close(pipefd[1]);
		pipefd[1] = -1;
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	}
	for (;;) {
		struct pollfd fds[2] = {
			{ .fd = stop_wake_fd(), .events = POLLIN },
			{ .fd = pipefd[0], .events = POLLIN },
		};
		pid_t done;

		handle_stop(spec, pid, r, stops_before, &stops_at_forward, &kill_at);
		escalate(spec, pid, r, kill_at);
		done = wait4(pid, &r->status, WNOHANG, &usage);
		if (done == pid)
			break;
		if (done < 0 && errno != EINTR) {
			err = -errno;
			goto out;
		}
		watch_child(spec, pid, r, &wake_at, &kill_at);
		if (poll(fds, 2, poll_timeout(r, kill_at, wake_at)) < 0 &&
		    errno != EINTR) {
			err = -errno;
			goto out;
		}
		if (fds[0].revents & POLLIN)
			stop_wake_drain();
		if (pipefd[0] >= 0 && (fds[1].revents & (POLLIN | POLLHUP)) &&
		    !read_available(spec, pipefd[0], &tail)) {
			close(pipefd[0]);
			pipefd[0] = -1;
		}
	}
	r->wall_s = monotonic_s() - start;
	r->user_s = timeval_s(&usage.ru_utime);
	r->sys_s = timeval_s(&usage.ru_stime);
	/* what the child wrote before it ended (a grandchild may hold the pipe) */
	if (pipefd[0] >= 0)
		read_available(spec, pipefd[0], &tail);
	if (tail.max)
		err = tail_finish(&tail, &r->out);
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	free(tail.ring);
	return err;
}

void child_result_free(struct child_result *r)
{
	free(r->out.text);
	r->out.text = NULL;
}

const char *child_status_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFSIGNALED(status))
		snprintf(buf, size, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
	return buf;
}
