/*
 * systemd: with NOTIFY_SOCKET and WATCHDOG_USEC set (as systemd sets them
 * for Type=notify and WatchdogSec), the supervisor says READY=1 once up,
 * pings WATCHDOG=1 at least every half interval, and says STOPPING=1 when
 * stopped.
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
	setenv("WATCHDOG_USEC", "400000", 1);	/* 0.4 s: pings every 0.2 s */
	sv_start(&sv, "notify", NULL);
	uint64_t t0 = t_now_ns();
	struct timeval tv = { .tv_usec = 100000 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	while (t_now_ns() - t0 < 1500000000ull) {
		ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		ready += strstr(buf, "READY=1") != NULL;
		pings += strstr(buf, "WATCHDOG=1") != NULL;
	}
	CHECK(ready == 1, "READY=1 seen %d times", ready);
	CHECK(pings >= 5, "only %d watchdog pings in 1.5 s at a 0.4 s interval", pings);
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
	printf("info: READY=1, %d watchdog pings in 1.5 s (interval 0.4 s), STOPPING=1\n", pings);
	close(fd);
	unlink(path);
	sv_check_clean(&sv);
	return 0;
}
