/*
 * systemd: with NOTIFY_SOCKET and WATCHDOG_USEC set (as systemd sets them
 * for Type=notify and WatchdogSec), the supervisor says READY=1 once up,
 * pings WATCHDOG=1 (at every half interval), and says STOPPING=1 when
 * stopped. The claim is the one systemd enforces: after READY=1, no two
 * pings further apart than the interval (1 s; times t_slow() under a
 * sanitizer), over the first 6 pings.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[100], buf[256];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ready = 0, pings = 0, stopping = 0;

	snprintf(path, sizeof path, "%s/provisor-notify-%d", t_tmpdir(), (int)getpid());
	memcpy(sa.sun_path, path, strlen(path) + 1);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind %s", path);
	setenv("NOTIFY_SOCKET", path, 1);
	uint64_t interval = 1000000000ull * t_slow();
	char usec[32];
	snprintf(usec, sizeof usec, "%llu", (unsigned long long)(interval / 1000));
	setenv("WATCHDOG_USEC", usec, 1);	/* pings every half interval */
	sv_start(&sv, "notify", NULL);
	uint64_t t0 = t_now_ns(), last = 0, gap = 0;
	struct timeval tv = { .tv_usec = 100000 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	while (pings < 6 && t_now_ns() - t0 < 20 * interval) {	/* a hang's bound */
		ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		ready += strstr(buf, "READY=1") != NULL;
		if (strstr(buf, "WATCHDOG=1") && ready) {
			uint64_t now = t_now_ns();
			if (last && now - last > gap)
				gap = now - last;
			last = now;
			pings++;
		}
	}
	CHECK(ready == 1, "READY=1 seen %d times", ready);
	CHECK(pings == 6, "only %d watchdog pings in %llu s", pings,
	      (unsigned long long)(20 * interval / 1000000000u));
	CHECK(gap <= interval, "pings %.0f ms apart at a %.0f ms watchdog interval", gap / 1e6,
	      interval / 1e6);
	kill(sv.pid, SIGTERM);
	for (int i = 0; i < 50 && !stopping; i++) {
		ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
		if (n > 0) {
			buf[n] = '\0';
			stopping = strstr(buf, "STOPPING=1") != NULL;
		}
	}
	CHECK(stopping, "no STOPPING=1 after SIGTERM");
	int status = sv_reap(&sv, 30);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	printf("info: READY=1, %d watchdog pings at most %.0f ms apart (interval %.0f ms), STOPPING=1\n",
	       pings, gap / 1e6, interval / 1e6);
	close(fd);
	unlink(path);
	sv_check_clean(&sv);
	return 0;
}
