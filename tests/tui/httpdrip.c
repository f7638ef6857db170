/*
 * httpdrip PORT N ADDRS SECONDS: slow HTTP clients against an exporter on
 * 127.0.0.1:PORT, for tests/tui/exporter_abuse.sh. Opens N connections,
 * the i-th from source address 127.0.0.(2 + i % ADDRS), each sending a
 * request line and then, every 200 ms for SECONDS, one more byte of a
 * header that never ends. Every 500 ms meanwhile it scrapes /metrics on a
 * fresh connection from 127.0.0.1 (a whole request at once, up to 5 s for
 * the whole answer). Then it reports:
 *   connected N
 *   scrapes S ok K
 *   drippers N closed C open O
 *   failure: TEXT              (the first failed scrape, if any)
 * C counts the drippers the server ended while they were still sending.
 * Exit 0 when it ran (the caller judges the figures), 77 when the file
 * descriptor limit is too low for N, 1 when it could not connect.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/helpers.h"

#define HTTPDRIP_MAX 4000

static int port;

/* A TCP connection from 127.0.0.(last) to 127.0.0.1:port; -1 on failure. */
static int httpdrip_connect(int last)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	src.sin_addr.s_addr = htonl(0x7f000000u | (unsigned)last);
	dst.sin_addr.s_addr = htonl(0x7f000001u);
	dst.sin_port = htons((uint16_t)port);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&src, sizeof src) < 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof dst) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One scrape: 0 when the answer is a 200 with provisor_supervisor_up,
 * else -1 with why. */
static int httpdrip_scrape(char *why, size_t whylen)
{
	static const char req[] = "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n";
	char buf[65536];
	size_t have = 0;
	uint64_t end = t_now_ns() + 5000000000u;
	int fd = httpdrip_connect(1);

	if (fd < 0)
		return snprintf(why, whylen, "connect: %s", strerror(errno)), -1;
	if (send(fd, req, sizeof req - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof req - 1)) {
		snprintf(why, whylen, "send: %s", strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = t_now_ns();
		ssize_t got;

		if (now >= end || poll(&p, 1, (int)((end - now) / 1000000u) + 1) != 1) {
			snprintf(why, whylen, "no whole answer within 5 s (%zu bytes)", have);
			close(fd);
			return -1;
		}
		got = recv(fd, buf + have, sizeof buf - 1 - have, 0);
		if (got < 0) {
			snprintf(why, whylen, "recv after %zu bytes: %s", have, strerror(errno));
			close(fd);
			return -1;
		}
		if (got == 0 || (have += (size_t)got) == sizeof buf - 1)
			break;
	}
	close(fd);
	buf[have] = '\0';
	if (strncmp(buf, "HTTP/1.0 200", 12) && strncmp(buf, "HTTP/1.1 200", 12)) {
		snprintf(why, whylen, "answer %.40s", have ? buf : "(empty: closed)");
		for (char *c = why; *c; c++)
			if (*c == '\r' || *c == '\n')
				*c = ' ';
		return -1;
	}
	if (!strstr(buf, "\nprovisor_supervisor_up 1\n"))
		return snprintf(why, whylen, "a 200 without provisor_supervisor_up 1"), -1;
	return 0;
}

int main(int argc, char **argv)
{
	static int fd[HTTPDRIP_MAX];
	struct rlimit rl;
	int n, addrs, secs, closed = 0, open_ = 0, scrapes = 0, ok = 0;
	char failure[160] = "", why[160];
	uint64_t end, next_drip, next_scrape;

	if (argc != 5 || (port = atoi(argv[1])) < 1 || port > 65535 || (n = atoi(argv[2])) < 1 ||
	    n > HTTPDRIP_MAX || (addrs = atoi(argv[3])) < 1 || addrs > 250 || (secs = atoi(argv[4])) < 1) {
		fprintf(stderr, "usage: httpdrip PORT N(1..%d) ADDRS(1..250) SECONDS\n", HTTPDRIP_MAX);
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 32) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 32 ? rl.rlim_max : (rlim_t)n + 32;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)n + 32) {
			printf("skip: the file descriptor limit (%llu) is too low for %d clients\n",
			       (unsigned long long)rl.rlim_cur, n);
			return 77;
		}
	}
	for (int i = 0; i < n; i++) {
		static const char line[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Drip: ";
		if ((fd[i] = httpdrip_connect(2 + i % addrs)) < 0) {
			fprintf(stderr, "httpdrip: connect %d: %s\n", i, strerror(errno));
			return 1;
		}
		send(fd[i], line, sizeof line - 1, MSG_NOSIGNAL);	/* its end seen below */
	}
	printf("connected %d\n", n);
	fflush(stdout);
	next_drip = next_scrape = t_now_ns();
	end = next_drip + (uint64_t)secs * 1000000000u;
	while (t_now_ns() < end) {
		uint64_t now = t_now_ns();

		if (now >= next_drip) {
			for (int i = 0; i < n; i++) {
				struct pollfd p = { .fd = fd[i], .events = POLLIN };
				if (fd[i] < 0)
					continue;
				/* anything to read (an answer, end of file) or a
				 * failed send: the server is done with it */
				if (poll(&p, 1, 0) == 1 || send(fd[i], "a", 1, MSG_NOSIGNAL) < 0) {
					close(fd[i]);
					fd[i] = -1;
					closed++;
				}
			}
			next_drip += 200000000u;
		}
		if (now >= next_scrape) {
			scrapes++;
			if (httpdrip_scrape(why, sizeof why) == 0)
				ok++;
			else if (!failure[0])
				snprintf(failure, sizeof failure, "%s", why);
			next_scrape += 500000000u;
		}
		usleep(10000);
	}
	for (int i = 0; i < n; i++)
		if (fd[i] >= 0) {
			open_++;
			close(fd[i]);
		}
	printf("scrapes %d ok %d\ndrippers %d closed %d open %d\n", scrapes, ok, n, closed, open_);
	if (failure[0])
		printf("failure: %s\n", failure);
	return 0;
}
