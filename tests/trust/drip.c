/*
 * drip SOCKET N SECONDS: a slow-drip client for tests/trust/group.sh.
 * Opens N connections to a control socket, says so ("connected N", flushed
 * at once, so that the caller knows they are dripping), and, every 200 ms
 * for up to SECONDS, sends each one more byte of a request that never
 * ends (no '\n'); it stops early once the server has refused or closed
 * every one. Then it says how many the server refused at once (and with
 * what), how many it closed while they were still dripping, and the
 * longest time one lived (from just before its connect):
 *   connected N
 *   opened N refused R closed C open O longest_ms L
 *   refusal: TEXT
 * A whole-request deadline shows as C = N - R and L near that deadline;
 * a per-read timeout would leave them all open.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/helpers.h"

#define DRIP_MAX 256

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd[DRIP_MAX], refused = 0, closed = 0, n;
	uint64_t born[DRIP_MAX], longest = 0, end;
	char refusal[256] = "", buf[256];

	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > DRIP_MAX || strlen(argv[1]) >= sizeof sa.sun_path) {
		fprintf(stderr, "usage: drip SOCKET N SECONDS\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	for (int i = 0; i < n; i++) {
		born[i] = t_now_ns();	/* before the server can have seen it */
		fd[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd[i] < 0 || connect(fd[i], (struct sockaddr *)&sa, sizeof sa) < 0) {
			fprintf(stderr, "drip: connect %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	printf("connected %d\n", n);
	fflush(stdout);
	end = t_now_ns() + (uint64_t)atoi(argv[3]) * 1000000000u;
	for (int live = n; live > 0 && t_now_ns() < end;) {
		live = 0;
		for (int i = 0; i < n; i++) {
			struct pollfd p = { .fd = fd[i], .events = POLLIN };
			if (fd[i] < 0)
				continue;
			/* A reply or EOF: the server is done with it. A send that
			 * fails says so too: the server wrote its refusal and
			 * closed between the poll and the send, and what it wrote
			 * is still there to read. */
			int over = poll(&p, 1, 0) == 1 || send(fd[i], "a", 1, MSG_NOSIGNAL) < 0;
			if (over) {
				ssize_t got = recv(fd[i], buf, sizeof buf - 1, MSG_DONTWAIT);
				uint64_t life = t_now_ns() - born[i];
				if (got > 0) {
					buf[got] = '\0';
					buf[strcspn(buf, "\n")] = '\0';
					if (!refusal[0])
						snprintf(refusal, sizeof refusal, "%s", buf);
					refused++;
				} else {
					closed++;
					if (life > longest)
						longest = life;
				}
				close(fd[i]);
				fd[i] = -1;
				continue;
			}
			live++;
		}
		if (live)
			usleep(200000);
	}
	int open_ = 0;
	for (int i = 0; i < n; i++)
		if (fd[i] >= 0) {
			open_++;
			uint64_t life = t_now_ns() - born[i];
			if (life > longest)
				longest = life;
			close(fd[i]);
		}
	printf("opened %d refused %d closed %d open %d longest_ms %llu\n", n, refused, closed, open_,
	       (unsigned long long)(longest / 1000000));
	printf("refusal: %s\n", refusal[0] ? refusal : "-");
	return 0;
}
