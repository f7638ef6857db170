/*
 * Control connections stay open (supervisor/ctlsrv.c): several requests
 * on one connection are answered in order, pipelined or one by one, an
 * error reply does not end it, and ctl_open/ctl_request use it. Its
 * limits hold: an open connection idle past the idle timeout
 * (PROVISOR_CTL_IDLE_MS = 1500 here) is closed; the first request still
 * has 5 s from accept (not the idle timeout) and a later one 5 s from its
 * first byte, so a drip that takes longer is cut even on an open
 * connection; an oversized request ends it. A uid at its 8 connections
 * gets the slot of its longest-idle one, but not of one in the middle of
 * a request. And bench/ctl_rtt.c, on one connection: every ping answered.
 */
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tests/pipeline/harness.h"

#define IDLE_MS 1500

static struct sv sv;

static int conn(void)
{
	return sv_connect(&sv);
}

static void put(int fd, const char *s)
{
	CHECK(send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s), "send '%s': %s", s,
	      strerror(errno));
}

/* One line (without '\n') within timeout_ms, a byte at a time so that
 * nothing of the next one is consumed: 0, or -1 at EOF, -2 at timeout. */
static int line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t n = 0;

	while (n < len - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, timeout_ms) != 1)
			return -2;
		if (recv(fd, buf + n, 1, 0) != 1)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 0;
}

/* ms until the server closes fd (EOF or reset), at most limit_ms; reads
 * and drops any reply on the way. */
static uint64_t until_closed(int fd, int limit_ms)
{
	uint64_t t0 = t_now_ns();
	char b[256];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = limit_ms - (int)((t_now_ns() - t0) / 1000000);
		if (left <= 0 || poll(&p, 1, left) != 1)
			return UINT64_MAX;
		if (recv(fd, b, sizeof b, 0) <= 0)
			return (t_now_ns() - t0) / 1000000;
	}
}

static void in_order(void)
{
	char want[96], got[256], err[256];
	struct ctl_conn c;
	int fd = conn();

	put(fd, "ping\nhello\nbogus\nping\n");	/* pipelined in one write */
	snprintf(want, sizeof want, "ok %s %d", sv.name, (int)sv.pid);
	CHECK(line(fd, got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "1st: '%s'", got);
	CHECK(line(fd, got, sizeof got, 2000) == 0 && !strcmp(got, want), "2nd: '%s'", got);
	CHECK(line(fd, got, sizeof got, 2000) == 0 && !strncmp(got, "err unknown request", 19),
	      "3rd: '%s'", got);
	CHECK(line(fd, got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "4th: '%s'", got);
	for (int i = 0; i < 20; i++) {	/* one by one */
		put(fd, i % 2 ? "hello\n" : "ping\n");
		CHECK(line(fd, got, sizeof got, 2000) == 0 && !strcmp(got, i % 2 ? want : "ok pong"),
		      "request %d: '%s'", i + 5, got);
	}
	/* and now idle: closed after IDLE_MS, not before */
	uint64_t ms = until_closed(fd, 10000);
	CHECK(ms >= IDLE_MS - 100 && ms < IDLE_MS + 1500, "idle connection closed after %llu ms",
	      (unsigned long long)ms);
	printf("info: 24 requests on one connection in order; idle, it was closed after %llu ms "
	       "(timeout %d)\n", (unsigned long long)ms, IDLE_MS);
	close(fd);

	CHECK(ctl_open(&c, sv.sock, 2000, NULL, NULL, err, sizeof err) == 0, "ctl_open: %s", err);
	for (int i = 0; i < 50; i++)
		CHECK(ctl_request(&c, "ping", got, sizeof got, 2000, err, sizeof err) == 0 &&
		      !strcmp(got, "ok pong"), "ctl_request %d: '%s' %s", i, got, err);
	CHECK(ctl_request(&c, "cancel 999999", got, sizeof got, 2000, err, sizeof err) == 1,
	      "cancel of no job: '%s'", got);
	CHECK(ctl_request(&c, "ping", got, sizeof got, 2000, err, sizeof err) == 0, "after an err: %s", err);
	ctl_close(&c);
}

/* The first request from accept, a later one from its first byte: 5 s
 * each, whatever the idle timeout; and an oversized one ends it. */
static void deadlines(void)
{
	int fresh = conn(), drip = conn(), big = conn();
	char got[256], buf[600];
	uint64_t t_fresh = t_now_ns(), t_drip, fresh_ms = 0, drip_ms = 0;

	put(drip, "ping\n");
	CHECK(line(drip, got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "drip's ping: '%s'", got);
	put(big, "ping\n");
	CHECK(line(big, got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "big's ping: '%s'", got);
	memset(buf, 'a', sizeof buf);
	buf[sizeof buf - 1] = '\0';
	put(big, buf);
	CHECK(line(big, got, sizeof got, 2000) == 0 && strstr(got, "err request longer than 512 bytes"),
	      "oversized: '%s'", got);
	CHECK(until_closed(big, 2000) != UINT64_MAX, "an oversized request did not end the connection");
	close(big);

	usleep(300000);
	t_drip = t_now_ns();
	for (int i = 0; i < 60 && !(fresh_ms && drip_ms); i++) {	/* 12 s at most */
		struct pollfd p[2] = { { .fd = fresh_ms ? -1 : fresh, .events = POLLIN },
				       { .fd = drip_ms ? -1 : drip, .events = POLLIN } };
		if (!drip_ms && send(drip, "p", 1, MSG_NOSIGNAL) != 1)	/* a byte per 200 ms */
			drip_ms = (t_now_ns() - t_drip) / 1000000;
		usleep(200000);
		poll(p, 2, 0);
		if (p[0].revents && recv(fresh, got, sizeof got, MSG_DONTWAIT) <= 0)
			fresh_ms = (t_now_ns() - t_fresh) / 1000000;
		if (p[1].revents && recv(drip, got, sizeof got, MSG_DONTWAIT) <= 0)
			drip_ms = (t_now_ns() - t_drip) / 1000000;
	}
	CHECK(fresh_ms >= 4800 && fresh_ms < 6500, "a silent new connection closed after %llu ms, not 5 s",
	      (unsigned long long)fresh_ms);
	CHECK(drip_ms >= 4800 && drip_ms < 6500, "a dripped second request cut after %llu ms, not 5 s",
	      (unsigned long long)drip_ms);
	printf("info: silent first request cut at %llu ms; a second request dripped a byte per 200 ms "
	       "cut at %llu ms (idle timeout %d ms)\n", (unsigned long long)fresh_ms,
	       (unsigned long long)drip_ms, IDLE_MS);
	close(fresh);
	close(drip);
}

/* Eight open connections of this uid (its limit): a ninth takes the slot
 * of the one idle longest; eight in the middle of a request refuse it. */
static void at_the_limit(void)
{
	int fd[8], extra;
	char got[256];

	for (int i = 0; i < 8; i++) {
		fd[i] = conn();
		put(fd[i], "ping\n");
		CHECK(line(fd[i], got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "conn %d: '%s'", i, got);
		usleep(20000);
	}
	extra = conn();
	put(extra, "ping\n");
	CHECK(line(extra, got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"),
	      "a ninth connection beside 8 idle ones: '%s'", got);
	CHECK(until_closed(fd[0], 1000) != UINT64_MAX, "the longest idle connection is still open");
	for (int i = 1; i < 8; i++) {
		put(fd[i], "ping\n");
		CHECK(line(fd[i], got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"),
		      "conn %d after the eviction: '%s'", i, got);
	}
	for (int i = 0; i < 8; i++)
		close(fd[i]);
	close(extra);
	usleep(100000);

	for (int i = 0; i < 8; i++) {	/* in the middle of their first request */
		fd[i] = conn();
		put(fd[i], "pi");
	}
	usleep(100000);
	extra = conn();
	put(extra, "ping\n");
	CHECK(line(extra, got, sizeof got, 2000) == 0 &&
	      !strcmp(got, "err busy: too many connections from this uid"), "a ninth beside 8 busy: '%s'", got);
	close(extra);
	for (int i = 0; i < 8; i++) {
		put(fd[i], "ng\n");
		CHECK(line(fd[i], got, sizeof got, 2000) == 0 && !strcmp(got, "ok pong"), "busy %d: '%s'", i, got);
		close(fd[i]);
	}
	printf("info: at 8 connections: a ninth took the longest idle one's slot; beside 8 busy "
	       "ones it was refused\n");
}

/* ctl-rtt for 1 s at 10 ms: 100 pings on one connection, all answered. */
static void rtt_tool(void)
{
	char cmd[512];
	unsigned long long n = 0;
	double p50, p99, max;
	int rc;

	snprintf(cmd, sizeof cmd, "%s/bench/ctl-rtt --socket '%s' --interval-ms 10 --seconds 1", sv_bin(),
		 sv.sock);
	char *out = t_capture(cmd, &rc);
	CHECK(rc == 0 && sscanf(out, "rtt_ms p50 %lf p99 %lf max %lf n %llu", &p50, &p99, &max, &n) == 4,
	      "ctl-rtt exit %d: %s", rc, out);
	CHECK(n == 100 && p50 <= p99 && p99 <= max && max < 1000, "ctl-rtt: %s", out);
	printf("info: ctl-rtt, 1 s at 10 ms: %s", out);
	free(out);
}

int main(void)
{
	char reply[64];

	setenv("PROVISOR_CTL_IDLE_MS", VOCAB_STR(IDLE_MS), 1);
	sv_start(&sv, "keep", "--synth", "1", NULL);
	in_order();
	deadlines();
	at_the_limit();
	rtt_tool();
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	int st = sv_reap(&sv, 20);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "supervisor exit status %d", st);
	sv_check_clean(&sv);
	return 0;
}
