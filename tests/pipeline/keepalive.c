/*
 * Control connections stay open (supervisor/ctlsrv.c): several requests
 * on one connection are answered in order, pipelined or one by one, an
 * error reply does not end it, and ctl_open/ctl_request use it. Its
 * limits hold: an open connection idle past the idle timeout
 * (PROVISOR_CTL_IDLE_MS = 1500 here, 1500 times t_slow() at most 4000
 * under a sanitizer: still below the 5 s request deadline) is closed, not
 * before it; the first request still has 5 s from accept (not the idle
 * timeout) and a later one 5 s from its first byte, so a drip that takes
 * longer is cut even on an open connection; an oversized request ends
 * it. A uid at its 8 connections gets the slot of its longest-idle one,
 * but not of one in the middle of a request. And bench/ctl_rtt.c, on one
 * connection: every ping answered.
 *
 * Each cut is timed from a moment before the server's clock for it
 * starts, so it is never early; the margin above each deadline only has
 * to cover a slow or loaded machine, and grows with t_slow(). The reply
 * deadlines only bound a hang.
 */
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tests/pipeline/harness.h"

#define DEADLINE_MS 5000	/* CONN_DEADLINE_NS in supervisor/ctlsrv.c */

static struct sv sv;
static int IDLE_MS;		/* PROVISOR_CTL_IDLE_MS, set in main */
static int REPLY_MS;		/* a reply's deadline: a hang bound */

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

/* ms from t0 (t_now_ns()) until the server closes fd (EOF or reset),
 * waiting at most limit_ms from now: UINT64_MAX if it stays open. Reads
 * and drops any reply on the way. */
static uint64_t until_closed_since(int fd, uint64_t t0, int limit_ms)
{
	uint64_t t1 = t_now_ns();
	char b[256];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = limit_ms - (int)((t_now_ns() - t1) / 1000000);
		if (left <= 0 || poll(&p, 1, left) != 1)
			return UINT64_MAX;
		if (recv(fd, b, sizeof b, 0) <= 0)
			return (t_now_ns() - t0) / 1000000;
	}
}

static uint64_t until_closed(int fd, int limit_ms)
{
	return until_closed_since(fd, t_now_ns(), limit_ms);
}

static void in_order(void)
{
	char want[96], got[256], err[256];
	struct ctl_conn c;
	int fd = conn();

	put(fd, "ping\nhello\nbogus\nping\n");	/* pipelined in one write */
	snprintf(want, sizeof want, "ok %s %d", sv.name, (int)sv.pid);
	CHECK(line(fd, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "1st: '%s'", got);
	CHECK(line(fd, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, want), "2nd: '%s'", got);
	CHECK(line(fd, got, sizeof got, REPLY_MS) == 0 && !strncmp(got, "err unknown request", 19),
	      "3rd: '%s'", got);
	CHECK(line(fd, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "4th: '%s'", got);
	uint64_t t_last = 0;
	for (int i = 0; i < 20; i++) {	/* one by one */
		t_last = t_now_ns();	/* before the server's idle clock starts (its reply) */
		put(fd, i % 2 ? "hello\n" : "ping\n");
		CHECK(line(fd, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, i % 2 ? want : "ok pong"),
		      "request %d: '%s'", i + 5, got);
	}
	/* and now idle: closed after IDLE_MS (timed from before the last
	 * request, so never early), not before; and closed, not left open */
	int slack = 1500 * (int)t_slow();
	uint64_t ms = until_closed_since(fd, t_last, IDLE_MS + 2 * slack);
	CHECK(ms != UINT64_MAX, "an idle connection was not closed in %d ms (idle timeout %d)",
	      IDLE_MS + 2 * slack, IDLE_MS);
	CHECK(ms >= (uint64_t)IDLE_MS && ms < (uint64_t)(IDLE_MS + slack),
	      "idle connection closed after %llu ms (idle timeout %d)", (unsigned long long)ms, IDLE_MS);
	printf("info: 24 requests on one connection in order; idle, it was closed after %llu ms "
	       "(timeout %d)\n", (unsigned long long)ms, IDLE_MS);
	close(fd);

	CHECK(ctl_open(&c, sv.sock, REPLY_MS, NULL, NULL, err, sizeof err) == 0, "ctl_open: %s", err);
	for (int i = 0; i < 50; i++)
		CHECK(ctl_request(&c, "ping", got, sizeof got, REPLY_MS, err, sizeof err) == 0 &&
		      !strcmp(got, "ok pong"), "ctl_request %d: '%s' %s", i, got, err);
	CHECK(ctl_request(&c, "cancel 999999", got, sizeof got, REPLY_MS, err, sizeof err) == 1,
	      "cancel of no job: '%s'", got);
	CHECK(ctl_request(&c, "ping", got, sizeof got, REPLY_MS, err, sizeof err) == 0, "after an err: %s", err);
	ctl_close(&c);
}

/* The first request from accept, a later one from its first byte: 5 s
 * each, whatever the idle timeout; and an oversized one ends it. */
static void deadlines(void)
{
	/* t_fresh before the connect: the server's clock starts at accept */
	uint64_t t_fresh = t_now_ns(), t_drip, fresh_ms = 0, drip_ms = 0;
	int fresh = conn(), drip = conn(), big = conn();
	char got[256], buf[600];
	/* the margin over the deadline: the 200 ms sampling step, a late
	 * accept by a busy loop, usleep's overrun; more when slower */
	uint64_t slack = 1500ull * t_slow(), limit_ms = DEADLINE_MS + 2 * slack;

	put(drip, "ping\n");
	CHECK(line(drip, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "drip's ping: '%s'", got);
	put(big, "ping\n");
	CHECK(line(big, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "big's ping: '%s'", got);
	memset(buf, 'a', sizeof buf);
	buf[sizeof buf - 1] = '\0';
	put(big, buf);
	CHECK(line(big, got, sizeof got, REPLY_MS) == 0 && strstr(got, "err request longer than 512 bytes"),
	      "oversized: '%s'", got);
	CHECK(until_closed(big, REPLY_MS) != UINT64_MAX, "an oversized request did not end the connection");
	close(big);

	usleep(300000);
	t_drip = t_now_ns();	/* before its first byte: the server's clock starts there */
	while (!(fresh_ms && drip_ms) && (t_now_ns() - t_drip) / 1000000 < limit_ms) {
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
	CHECK(fresh_ms && drip_ms, "not cut within %llu ms: a silent new connection %s, a dripped "
	      "second request %s", (unsigned long long)limit_ms, fresh_ms ? "cut" : "open",
	      drip_ms ? "cut" : "open");
	/* at the 5 s deadline: not at the idle timeout (below 4800), and
	 * not much later */
	CHECK(fresh_ms >= 4800 && fresh_ms < DEADLINE_MS + slack,
	      "a silent new connection closed after %llu ms, not 5 s", (unsigned long long)fresh_ms);
	CHECK(drip_ms >= 4800 && drip_ms < DEADLINE_MS + slack,
	      "a dripped second request cut after %llu ms, not 5 s", (unsigned long long)drip_ms);
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
		CHECK(line(fd[i], got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "conn %d: '%s'", i, got);
		usleep(20000);
	}
	extra = conn();
	put(extra, "ping\n");
	CHECK(line(extra, got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"),
	      "a ninth connection beside 8 idle ones: '%s'", got);
	/* closed at the ninth's accept, long before the idle timeout */
	CHECK(until_closed(fd[0], REPLY_MS) != UINT64_MAX, "the longest idle connection is still open");
	for (int i = 1; i < 8; i++) {
		put(fd[i], "ping\n");
		CHECK(line(fd[i], got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"),
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
	/* refused at its accept, before any read: the close may come before
	 * this send (EPIPE), the reply is there to read either way */
	(void)!send(extra, "ping\n", 5, MSG_NOSIGNAL);
	CHECK(line(extra, got, sizeof got, REPLY_MS) == 0 &&
	      !strcmp(got, "err busy: too many connections from this uid"), "a ninth beside 8 busy: '%s'", got);
	close(extra);
	for (int i = 0; i < 8; i++) {
		put(fd[i], "ng\n");
		CHECK(line(fd[i], got, sizeof got, REPLY_MS) == 0 && !strcmp(got, "ok pong"), "busy %d: '%s'", i, got);
		close(fd[i]);
	}
	printf("info: at 8 connections: a ninth took the longest idle one's slot; beside 8 busy "
	       "ones it was refused\n");
}

/* ctl-rtt for 1 s at 10 ms: up to 100 pings on one connection (a late
 * reply delays the next ping, no catch-up: a slow machine sends fewer),
 * every one answered (ctl-rtt exits 1 on a ping without "ok pong"). */
static void rtt_tool(void)
{
	char cmd[512];
	unsigned long long n = 0;
	double p50, p99, max;
	int rc;

	snprintf(cmd, sizeof cmd, "%s/bench/ctl-rtt --socket '%s' --interval-ms 10 --seconds 1 "
		 "--timeout-ms %d", sv_bin(), sv.sock, REPLY_MS);
	char *out = t_capture(cmd, &rc);
	CHECK(rc == 0 && sscanf(out, "rtt_ms p50 %lf p99 %lf max %lf n %llu", &p50, &p99, &max, &n) == 4,
	      "ctl-rtt exit %d: %s", rc, out);
	CHECK(n >= 2 && n <= 100 && p50 <= p99 && p99 <= max, "ctl-rtt: %s", out);
	printf("info: ctl-rtt, 1 s at 10 ms: %s", out);
	free(out);
}

int main(void)
{
	char reply[64], idle[16];

	IDLE_MS = 1500 * (int)t_slow();
	if (IDLE_MS > 4000)
		IDLE_MS = 4000;	/* below the 4800 that tells the 5 s deadline from it */
	REPLY_MS = 2000 * (int)t_slow();
	snprintf(idle, sizeof idle, "%d", IDLE_MS);
	setenv("PROVISOR_CTL_IDLE_MS", idle, 1);
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
