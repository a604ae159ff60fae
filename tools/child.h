/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way vmpctl runs a child process: the reclaim child of measure
 * and check, pft's workload, and ab's command and --switch all go through
 * child_run().
 *
 * The child gets /dev/null as stdin (so no run eats input meant for a
 * later one) and the signal dispositions vmpctl inherited. Its stdout is
 * either vmpctl's own or captured into a buffer that keeps the last
 * capture_max bytes. The parent waits in poll() on the capture pipe and
 * the stop self-pipe (signals.h): a stop signal is forwarded to the child
 * at once (SIGINT, SIGTERM and SIGHUP as they are, any other stop as
 * SIGTERM), and a child still alive CHILD_STOP_GRACE_S later, or at a
 * second stop signal, is killed with SIGKILL. The child is always reaped.
 *
 * With own_group the child leads a process group of its own and every
 * signal above goes to that group: a shell's or a workload's own
 * children end with it instead of outliving it (ab's commands).
 *
 * A caller that must act while the child runs (ab --interleave flips a
 * knob and reads the child's progress lines) gives on_output, which sees
 * each chunk of captured stdout as it arrives, and on_wake, which runs
 * after every wake-up of the wait loop, says when it wants to run next,
 * and may ask for the child's end: SIGTERM at once, SIGKILL after the
 * grace, as for a stop.
 */
#ifndef VMPCTL_CHILD_H
#define VMPCTL_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHILD_STOP_GRACE_S 5.0
/* exit status of an exec child whose command could not be run */
#define CHILD_EXIT_NOT_FOUND 127
#define CHILD_EXIT_CANNOT_EXEC 126

struct child_spec {
	char *const *argv;		/* exec argv[0] through PATH, or */
	int (*body)(void *arg);		/* run body(arg) and exit with its value */
	void *arg;
	size_t capture_max;		/* > 0: capture stdout, keep its tail */
	/*
	 * Run even though a stop was asked for, and forward only stops that
	 * come later: for the way back to a known state (ab --switch A).
	 */
	bool despite_stop;
	double stop_grace_s;		/* 0: CHILD_STOP_GRACE_S */
	bool own_group;			/* its own process group, signalled whole */
	bool stderr_too;		/* with capture_max: stderr into the same pipe */
	/* with capture_max > 0: every chunk of stdout, as read */
	void (*on_output)(void *ctx, const char *data, size_t n);
	/*
	 * While the child runs: sets *wake_at (monotonic_s()) to be called
	 * again by then at the latest; false asks for the child's end.
	 */
	bool (*on_wake)(void *ctx, double *wake_at);
	void *ctx;			/* for on_output and on_wake */
};

struct child_output {
	char *text;		/* the kept bytes, as written, plus a NUL */
	size_t len;
	uint64_t total;		/* bytes the child wrote */
	bool cut;		/* total > len: the head was dropped */
};

struct child_result {
	int status;		/* wait status */
	double wall_s;		/* fork to reap */
	double user_s;		/* rusage of the child and its reaped children */
	double sys_s;
	bool stopped;		/* a stop signal was forwarded to it */
	bool ended;		/* on_wake asked for its end: SIGTERM was sent */
	bool killed;		/* ... and it took SIGKILL to end it */
	struct child_output out;	/* with capture_max; free with child_result_free() */
};

/*
 * 0 when the child ran and was reaped (see result), -EINTR when a stop
 * was asked for before it started (unless despite_stop), else -errno.
 */
int child_run(const struct child_spec *spec, struct child_result *result);

void child_result_free(struct child_result *result);

/*
 * One line about a status that is not exit 0: "exited with status 3",
 * "was killed by signal 9 (Killed)". NULL for exit 0.
 */
const char *child_status_text(int status, char *buf, size_t size);

#endif
