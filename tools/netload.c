// SPDX-License-Identifier: GPL-2.0
#include "netload.h"
#include "clock.h"
#include "fileio.h"
#include "json.h"
#include "output.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The receiver's rcv_ssthresh counts once slow start is over. */
#define NETLOAD_SSTHRESH_AFTER_S 1.0

double net_throughput(const struct net_figures *f)
{
	return f->seconds > 0 ? (double)f->bytes / f->seconds : 0;
}

json_t *net_figures_json(const struct net_figures *f)
{
	json_t *o = json_object();

	json_put(o, "private_netns", json_boolean(f->private_netns));
	json_put(o, "bytes", json_count(f->bytes));
	json_put(o, "seconds", json_real_or_null(f->seconds));
	json_put(o, "bytes_per_s", json_real_or_null(net_throughput(f)));
	json_put(o, "retrans", json_count(f->retrans));
	json_put(o, "sndbuf_max", json_count(f->sndbuf_max));
	json_put(o, "sndbuf_last", json_count(f->sndbuf_last));
	json_put(o, "rcvbuf_max", json_count(f->rcvbuf_max));
	json_put(o, "rcv_ssthresh_min", f->rcv_ssthresh_min ?
		 json_count(f->rcv_ssthresh_min) : json_null());
	json_put(o, "rcv_ssthresh_drops", json_count(f->rcv_ssthresh_drops));
	json_put(o, "advmss", json_count(f->advmss));
	return o;
}

int memcg_read_sock_throttled(const struct memcg *cg, uint64_t *count)
{
	char path[PATH_MAX];
	int err = memcg_file(cg, "memory.events", path, sizeof(path));

	return err ? err : read_keyed_u64(path, "sock_throttled", count);
}

static int loopback_up(void)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		err = -errno;
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			err = -errno;
	}
	close(fd);
	return err;
}

static int sock_int(int fd, int level, int name, uint64_t *value)
{
	int v;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, level, name, &v, &len) < 0)
		return -errno;
	*value = v < 0 ? 0 : (uint64_t)v;
	return 0;
}

static void pause_reader(void)
{
	const struct timespec pause = { 0, NETLOAD_READ_PAUSE_US * 1000L };

	nanosleep(&pause, NULL);
}

/* The receiver: reads slowly until the sender shuts down. Exit code. */
static int receive(int listener, struct net_figures *fig)
{
	char *buf = malloc(NETLOAD_READ_BYTES);
	double start, now;
	uint64_t rcvbuf = 0, ssthresh_before = 0;
	int fd;

	fd = accept(listener, NULL, NULL);
	if (fd < 0 || !buf) {
		vmpctl_error("net: receiver: %s", strerror(buf ? errno : ENOMEM));
		return NETLOAD_EXIT_SETUP;
	}
	start = monotonic_s();
	for (;;) {
		ssize_t n = read(fd, buf, NETLOAD_READ_BYTES);
		struct tcp_info info;
		socklen_t len = sizeof(info);

		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vmpctl_error("net: receiver: reading: %s", strerror(errno));
			return NETLOAD_EXIT_SETUP;
		}
		fig->bytes += (uint64_t)n;
		now = monotonic_s();
		if (sock_int(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf) == 0 &&
		    rcvbuf > fig->rcvbuf_max)
			fig->rcvbuf_max = rcvbuf;
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0) {
			if (info.tcpi_rcv_ssthresh < ssthresh_before)
				fig->rcv_ssthresh_drops++;
			ssthresh_before = info.tcpi_rcv_ssthresh;
			fig->advmss = info.tcpi_advmss;
			if (now - start >= NETLOAD_SSTHRESH_AFTER_S &&
			    (!fig->rcv_ssthresh_min ||
			     info.tcpi_rcv_ssthresh < fig->rcv_ssthresh_min))
				fig->rcv_ssthresh_min = info.tcpi_rcv_ssthresh;
		}
		pause_reader();
	}
	fig->seconds = monotonic_s() - start;
	return 0;
}

/* Sends until the hog has ended; its wait status in *hog_status. */
static int send_until(int fd, pid_t hog, int *hog_status,
		      struct net_figures *fig)
{
	char *buf = calloc(1, NETLOAD_WRITE_BYTES);
	const struct timeval timeout = { 0, 100 * 1000 };
	struct tcp_info info;
	socklen_t len = sizeof(info);
	uint64_t sndbuf = 0;

	if (!buf)
		return -ENOMEM;
	/* Look at the hog at least every 100 ms, even with a full queue. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
	while (waitpid(hog, hog_status, WNOHANG) != hog) {
		ssize_t n = send(fd, buf, NETLOAD_WRITE_BYTES, MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			free(buf);
			return -errno;
		}
		if (sock_int(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf) == 0) {
			if (sndbuf > fig->sndbuf_max)
				fig->sndbuf_max = sndbuf;
			fig->sndbuf_last = sndbuf;
			fig->samples++;
		}
	}
	free(buf);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0)
		fig->retrans = info.tcpi_total_retrans;
	return 0;
}

/* A process of the load that dies with the child. */
static pid_t fork_worker(void)
{
	pid_t pid = fork();

	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

struct netload_child {
	const struct memcg *cg;
	const struct reclaim_job *job;
	struct net_figures *fig;	/* shared with the parent */
};

static int listen_loopback(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 ||
	    listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)addr, &len) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Ends as the hog ended: its exit code, or killed by its signal. */
static int end_like(int hog_status)
{
	if (WIFSIGNALED(hog_status)) {
		signal(WTERMSIG(hog_status), SIG_DFL);
		raise(WTERMSIG(hog_status));
		return 128 + WTERMSIG(hog_status);
	}
	return WEXITSTATUS(hog_status);
}

static int netload_child_body(void *arg)
{
	const struct netload_child *c = arg;
	struct sockaddr_in addr;
	pid_t receiver, hog;
	int listener, fd, err, hog_status = 0, receiver_status = 0;

	err = memcg_enter_child(c->cg);
	if (err) {
		vmpctl_error("moving the network load into %s: %s", c->cg->path,
			     strerror(-err));
		return RECLAIM_EXIT_ATTACH;
	}
	/* Loopback of our own where the kernel lets us; else the host's. */
	if (unshare(CLONE_NEWNET) == 0) {
		err = loopback_up();
		if (err) {
			vmpctl_error("net: bringing up lo in a new network namespace: %s",
				     strerror(-err));
			return NETLOAD_EXIT_SETUP;
		}
		c->fig->private_netns = true;
	}
	listener = listen_loopback(&addr);
	if (listener < 0) {
		vmpctl_error("net: listening on 127.0.0.1: %s", strerror(-listener));
		return NETLOAD_EXIT_SETUP;
	}
	receiver = fork_worker();
	if (receiver == 0)
		_exit(receive(listener, c->fig));
	close(listener);
	fd = receiver < 0 ? -1 : socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		vmpctl_error("net: connecting to 127.0.0.1:%u: %s",
			     ntohs(addr.sin_port), strerror(errno));
		return NETLOAD_EXIT_SETUP;
	}
	hog = fork_worker();
	if (hog == 0) {
		err = reclaim_touch(c->job);
		if (err)
			vmpctl_error("mapping %llu bytes for the reclaim hog: %s",
				     (unsigned long long)c->job->bytes,
				     strerror(-err));
		_exit(err ? RECLAIM_EXIT_NOMEM : 0);
	}
	if (hog < 0) {
		vmpctl_error("net: starting the reclaim hog: %s", strerror(errno));
		return NETLOAD_EXIT_SETUP;
	}
	err = send_until(fd, hog, &hog_status, c->fig);
	if (err) {
		vmpctl_error("net: sending: %s", strerror(-err));
		return NETLOAD_EXIT_SETUP;
	}
	shutdown(fd, SHUT_WR);
	if (waitpid(receiver, &receiver_status, 0) != receiver ||
	    !WIFEXITED(receiver_status) || WEXITSTATUS(receiver_status))
		return WIFSIGNALED(receiver_status) ? end_like(receiver_status) :
		       NETLOAD_EXIT_SETUP;
	close(fd);
	return end_like(hog_status);
}

int netload_run(const struct memcg *cg, const struct reclaim_job *job,
		struct net_figures *fig, struct reclaim_result *result)
{
	struct net_figures *shared;
	struct netload_child child;
	int err;

	/* Written by the child's processes; touched here, so charged here. */
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared));
	child.cg = cg;
	child.job = job;
	child.fig = shared;
	err = reclaim_run_body(cg, netload_child_body, &child, result);
	*fig = *shared;
	munmap(shared, sizeof(*shared));
	return err;
}
