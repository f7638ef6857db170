/*
 * Helpers for the worker tests, which play the supervisor's part: spawn a
 * worker program with three pipes (fork and exec, no shell), exchange
 * frames with it, and collect its exit status and log lines.
 */
#ifndef TESTS_WORKERS_COMMON_H
#define TESTS_WORKERS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/frame.h"
#include "tests/shm/common.h"

struct t_child {
	pid_t pid;
	int in;		/* its stdin: we write frames */
	int out;	/* its stdout: we read frames */
	int err;	/* its stderr: log lines */
};

/* A bound that only stops a hang: ms in the plain build, t_slow() times
 * that in a slower one (a sanitizer, or PROVISOR_TEST_SLOW). */
static inline int t_hang_ms(int ms)
{
	return ms * (int)t_slow();
}

static inline uint64_t t_hang_ns(uint64_t ms)
{
	return ms * 1000000ull * t_slow();
}

/* $BIN/name (BIN as tests/run.sh sets it, default "bin"). */
static inline void t_prog(char *buf, size_t len, const char *name)
{
	const char *bin = getenv("BIN");

	snprintf(buf, len, "%s/%s", bin && *bin ? bin : "bin", name);
}

/* Start argv[0] with pipes on fds 0, 1, 2, at niceness nice_inc above
 * ours (so that a sampler in this process keeps up with it on a loaded
 * machine); it dies with us. */
static inline void t_spawn(struct t_child *c, char *const argv[], int nice_inc)
{
	int in[2], out[2], err[2];

	CHECK(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0 &&
	      pipe2(err, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	c->pid = fork();
	CHECK(c->pid >= 0, "fork: %s", strerror(errno));
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nice_inc && nice(nice_inc) == -1 && errno)
			_exit(125);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->in = in[1];
	c->out = out[0];
	c->err = err[0];
}

/* Wait up to ms for the child; its wait status, or -1 after killing it
 * because it did not exit in time. */
static inline int t_wait(struct t_child *c, int ms)
{
	int st;

	for (int waited = 0;; waited += 5) {
		pid_t r = waitpid(c->pid, &st, WNOHANG);

		if (r == c->pid)
			return st;
		CHECK(r == 0, "waitpid: %s", strerror(errno));
		if (waited >= ms) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			return -1;
		}
		usleep(5000);
	}
}

/* Everything the child wrote to stderr (after it exited) into buf. */
static inline void t_read_log(struct t_child *c, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got + 1 < len && (r = read(c->err, buf + got, len - 1 - got)) > 0)
		got += (size_t)r;
	buf[got] = '\0';
}

/* Lines of log that contain what. */
static inline int t_count_lines(const char *log, const char *what)
{
	int n = 0;

	for (const char *p = log; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (memmem(p, l, what, strlen(what)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Close our ends (those not already closed and set to -1). */
static inline void t_close_fds(struct t_child *c)
{
	int *fds[] = { &c->in, &c->out, &c->err };

	for (int i = 0; i < 3; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* Read one frame from fd, check its header and checksum (PART_DATA's in
 * its trailer); the payload is malloc'd into *payload (the caller frees). */
static inline void t_recv(int fd, struct frame_hdr *h, uint8_t **payload)
{
	char err[256];
	int rc = frame_read_full(fd, h, sizeof *h);

	CHECK(rc == 0, "reading a frame header: %d", rc);
	CHECK(frame_check_hdr(h, VOCAB_LOG_MAX, err, sizeof err) == 0, "bad frame: %s", err);
	*payload = malloc(h->payload_len + 1);
	CHECK(*payload, "malloc");
	CHECK(frame_read_full(fd, *payload, h->payload_len) == 0, "reading a payload");
	(*payload)[h->payload_len] = 0;
	CHECK(frame_payload_ok(h, *payload), "%s payload fails its checksum",
	      frame_type_name(h->type));
}

/* Wait until fd has data or ms pass: 1 readable, 0 not. */
static inline int t_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

#endif
