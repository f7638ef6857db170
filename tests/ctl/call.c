/*
 * ctl_call against a tiny server in a thread of this test, on a Unix
 * socket in a private temporary directory: an ok reply, an err reply, a
 * server that never answers (the timeout holds: never early, and late
 * by no more than 1.6 s times t_slow() of scheduling), one that
 * closes without a reply, an over-long reply, a malformed reply, a socket
 * nobody listens on, and a missing socket. And ctl_open/ctl_request: three
 * requests on one connection, answered in order, and a reply followed by
 * bytes nobody asked for (refused).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "tests/helpers.h"

/* The timeout of a call that is answered: it only bounds a hang. */
#define HANG_MS (2000 * (int)t_slow())

enum mode { M_OK, M_ERR, M_SILENT, M_CLOSE, M_LONG, M_GARBAGE, M_SPLIT, M_KEEP };

static char dir[64];
static char sock_path[sizeof dir + 16], dead_path[sizeof dir + 16];
static int lfd = -1;
static char got[CTL_MAX_LINE + 1];	/* what the server read */

static void cleanup(void)
{
	unlink(sock_path);
	unlink(dead_path);
	rmdir(dir);
}

static int bind_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK(fd >= 0, "socket");
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	CHECK(!bind(fd, (struct sockaddr *)&sa, sizeof sa), "bind %s", path);
	return fd;
}

/* Read the request line (up to '\n' or EOF) into got. */
static void read_line(int fd)
{
	size_t n = 0;
	ssize_t r;

	while (n < sizeof got - 1 && (r = read(fd, got + n, 1)) == 1)
		if (got[n++] == '\n')
			break;
	got[n] = '\0';
}

static void *serve(void *arg)
{
	enum mode m = (enum mode)(intptr_t)arg;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	char big[3000], c;

	if (fd < 0)
		return NULL;
	read_line(fd);
	switch (m) {
	case M_OK: dprintf(fd, "ok 17 /state/results/17.result\n"); break;
	case M_ERR: dprintf(fd, "err unknown kind 'stark'\n"); break;
	case M_SILENT: while (read(fd, &c, 1) > 0) {} break;	/* until the client gives up */
	case M_CLOSE: break;
	case M_LONG:
		memset(big, 'o', sizeof big);
		big[0] = 'o', big[1] = 'k', big[2] = ' ', big[sizeof big - 1] = '\n';
		(void)!write(fd, big, sizeof big);
		break;
	case M_GARBAGE: dprintf(fd, "okay then\n"); break;
	case M_SPLIT:	/* a reply in pieces, with a pause between */
		dprintf(fd, "ok 1");
		usleep(50000);
		dprintf(fd, "23\nignored\n");
		break;
	case M_KEEP:	/* "ok N LINE" for the Nth request, until EOF */
		for (int n = 1; got[0]; n++) {
			got[strcspn(got, "\n")] = '\0';
			dprintf(fd, "ok %d %s\n", n, got);
			read_line(fd);
		}
		break;
	}
	close(fd);
	return NULL;
}

/* One call against a server in mode m; returns ctl_call's result. */
static int call(enum mode m, const char *line, int timeout_ms, char *reply, size_t rlen,
		char *err, size_t errlen, uint64_t *ms)
{
	pthread_t t;
	uint64_t t0;
	int rc;

	got[0] = '\0';
	CHECK(!pthread_create(&t, NULL, serve, (void *)(intptr_t)m), "pthread_create");
	t0 = t_now_ns();
	rc = ctl_call(sock_path, line, reply, rlen, timeout_ms, err, errlen);
	*ms = (t_now_ns() - t0) / 1000000;
	pthread_join(t, NULL);
	return rc;
}

int main(void)
{
	char reply[CTL_MAX_LINE], err[256];
	uint64_t ms;
	int rc;

	signal(SIGPIPE, SIG_IGN);	/* the server may write to a client that gave up */
	snprintf(dir, sizeof dir, "%s/provisor-ctl.XXXXXX", t_tmpdir());
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(sock_path, sizeof sock_path, "%s/ctl.sock", dir);
	snprintf(dead_path, sizeof dead_path, "%s/dead.sock", dir);
	atexit(cleanup);
	lfd = bind_at(sock_path);
	CHECK(!listen(lfd, 8), "listen");

	rc = call(M_OK, "submit porep\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == 0 && !strcmp(reply, "ok 17 /state/results/17.result"), "ok: rc %d reply '%s' %s", rc, reply, err);
	CHECK(!strcmp(got, "submit porep\n"), "server read '%s'", got);

	rc = call(M_OK, "ping", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == 0 && !strcmp(got, "ping\n"), "the newline is added: '%s'", got);

	rc = call(M_ERR, "submit stark\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == 1 && !strcmp(reply, "err unknown kind 'stark'"), "err: rc %d reply '%s'", rc, reply);

	rc = call(M_SPLIT, "ping\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == 0 && !strcmp(reply, "ok 123"), "split reply: rc %d '%s' %s", rc, reply, err);

	rc = call(M_SILENT, "stop\n", 400, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == -ETIMEDOUT && strstr(err, "no reply") && strstr(err, "400 ms"), "silent: rc %d %s", rc, err);
	CHECK(ms >= 400 && ms < 400 + 1600 * (uint64_t)t_slow(), "timeout of 400 ms took %llu ms",
	      (unsigned long long)ms);
	printf("info: a silent server: timed out after %llu ms of 400 (%s)\n", (unsigned long long)ms, err);

	rc = call(M_CLOSE, "drain\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == -ECONNRESET && strstr(err, "without a reply") && !reply[0], "close: rc %d %s", rc, err);

	rc = call(M_LONG, "drain\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == -EMSGSIZE && strstr(err, "reply longer than") && !reply[0], "long: rc %d %s", rc, err);

	rc = call(M_GARBAGE, "drain\n", HANG_MS, reply, sizeof reply, err, sizeof err, &ms);
	CHECK(rc == -EPROTO && strstr(err, "malformed reply"), "garbage: rc %d %s", rc, err);

	/* one connection, three requests */
	struct ctl_conn cn;
	pthread_t t;
	CHECK(!pthread_create(&t, NULL, serve, (void *)(intptr_t)M_KEEP), "pthread_create");
	CHECK(ctl_open(&cn, sock_path, HANG_MS, NULL, NULL, err, sizeof err) == 0, "ctl_open: %s", err);
	CHECK(ctl_request(&cn, "ping", reply, sizeof reply, HANG_MS, err, sizeof err) == 0 &&
	      !strcmp(reply, "ok 1 ping"), "first: '%s' %s", reply, err);
	CHECK(ctl_request(&cn, "hello\n", reply, sizeof reply, HANG_MS, err, sizeof err) == 0 &&
	      !strcmp(reply, "ok 2 hello"), "second: '%s' %s", reply, err);
	CHECK(ctl_request(&cn, "drain\n", reply, sizeof reply, HANG_MS, err, sizeof err) == 0 &&
	      !strcmp(reply, "ok 3 drain"), "third: '%s' %s", reply, err);
	ctl_close(&cn);
	pthread_join(t, NULL);	/* it saw EOF */
	CHECK(ctl_request(&cn, "ping", reply, sizeof reply, HANG_MS, err, sizeof err) == -EBADF, "closed");
	/* a reply with more after it cannot be told from the next one's */
	CHECK(!pthread_create(&t, NULL, serve, (void *)(intptr_t)M_SPLIT), "pthread_create");
	CHECK(ctl_open(&cn, sock_path, HANG_MS, NULL, NULL, err, sizeof err) == 0, "ctl_open: %s", err);
	rc = ctl_request(&cn, "ping", reply, sizeof reply, HANG_MS, err, sizeof err);
	CHECK(rc == -EPROTO && strstr(err, "unexpected bytes after the reply"), "extra: rc %d %s", rc, err);
	ctl_close(&cn);
	pthread_join(t, NULL);

	/* a socket file that nobody listens on any more */
	close(bind_at(dead_path));
	rc = ctl_call(dead_path, "ping\n", reply, sizeof reply, 1000, err, sizeof err);
	CHECK(rc == -ECONNREFUSED && strstr(err, "nothing listens"), "dead: rc %d %s", rc, err);

	snprintf(reply, sizeof reply, "%s/missing.sock", dir);
	rc = ctl_call(reply, "ping\n", reply + 256, 256, 1000, err, sizeof err);
	CHECK(rc == -ENOENT && strstr(err, "no control socket at") && strstr(err, "missing.sock"),
	      "missing: rc %d %s", rc, err);
	printf("info: a missing socket: %s\n", err);

	memset(reply, 'x', 200);
	reply[200] = '\0';
	rc = ctl_call(reply, "ping\n", reply + 256, 256, 1000, err, sizeof err);
	CHECK(rc == -ENAMETOOLONG, "long path: rc %d %s", rc, err);

	close(lfd);
	return 0;
}
