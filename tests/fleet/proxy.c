/*
 * fleet_proxy LISTEN TARGET: a unix-socket relay between a node and the
 * test's PostgreSQL (the tests in tests/fleet), so that a test can cut one node
 * off from the database without touching the others: SIGSTOP freezes it
 * (the database is "slow": nothing is answered, connections hang), and
 * SIGCONT lets it go on. It takes any number of connections, each relayed
 * byte for byte both ways with poll(2), and ends on SIGTERM, removing
 * LISTEN.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAXC 64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int unix_socket(const char *path, int listen_it)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof sa.sun_path)
		return -1;
	strcpy(sa.sun_path, path);
	if (listen_it) {
		unlink(path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 64) < 0) {
			close(fd);
			return -1;
		}
	} else if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* pairs[i][0] is the client, pairs[i][1] the server; -1 = free. */
static int pairs[MAXC][2];

static void drop(int i)
{
	close(pairs[i][0]);
	close(pairs[i][1]);
	pairs[i][0] = pairs[i][1] = -1;
}

/* Move what is there from one side to the other (blocking write: the
 * other side is a local socket). 0, or -1 when either side ended. */
static int pump(int from, int to)
{
	char buf[65536];
	ssize_t n = read(from, buf, sizeof buf);

	if (n <= 0)
		return -1;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pollfd p[1 + 2 * MAXC];
	int lfd, idx[1 + 2 * MAXC];

	if (argc != 3) {
		fprintf(stderr, "usage: fleet_proxy LISTEN TARGET\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if ((lfd = unix_socket(argv[1], 1)) < 0) {
		fprintf(stderr, "fleet_proxy: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (int i = 0; i < MAXC; i++)
		pairs[i][0] = pairs[i][1] = -1;
	while (!stop) {
		int n = 0;
		p[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < MAXC; i++)
			for (int side = 0; side < 2 && pairs[i][0] >= 0; side++) {
				idx[n] = i * 2 + side;
				p[n++] = (struct pollfd){ .fd = pairs[i][side], .events = POLLIN };
			}
		if (poll(p, (nfds_t)n, -1) < 0)
			continue;	/* EINTR: a signal, maybe SIGTERM */
		for (int k = 1; k < n; k++) {
			int i = idx[k] / 2, side = idx[k] % 2;
			if (pairs[i][0] < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pump(pairs[i][side], pairs[i][!side]) < 0)
				drop(i);
		}
		if (p[0].revents & POLLIN) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), s = c >= 0 ? unix_socket(argv[2], 0) : -1, i;
			for (i = 0; i < MAXC && pairs[i][0] >= 0; i++)
				;
			if (c < 0 || s < 0 || i == MAXC) {	/* the server is gone: so is this client */
				if (c >= 0)
					close(c);
				if (s >= 0)
					close(s);
				continue;
			}
			pairs[i][0] = c;
			pairs[i][1] = s;
		}
	}
	for (int i = 0; i < MAXC; i++)
		if (pairs[i][0] >= 0)
			drop(i);
	close(lfd);
	unlink(argv[1]);
	return 0;
}
