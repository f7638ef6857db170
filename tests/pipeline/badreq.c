/*
 * Bad requests on the control socket: garbage, binary bytes, an oversized
 * line, unknown operations, bad arguments, a connection that sends half a
 * line and closes, one that sends nothing, and a burst of connections.
 * Each gets an error reply (or is dropped) and the supervisor keeps
 * serving: afterwards a ping answers and a job completes and verifies.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "tests/pipeline/harness.h"

static struct sv sv;

static int conn(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	CHECK(strlen(sv.sock) < sizeof sa.sun_path, "socket path too long");
	memcpy(sa.sun_path, sv.sock, strlen(sv.sock) + 1);
	CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect");
	return fd;
}

/* Send raw bytes, return the reply (may be empty when dropped). */
static void raw(const void *buf, size_t len, char *reply, size_t rlen)
{
	int fd = conn();
	struct timeval tv = { .tv_sec = 10 };
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (len)
		(void)!send(fd, buf, len, MSG_NOSIGNAL);
	n = recv(fd, reply, rlen - 1, 0);
	reply[n > 0 ? n : 0] = '\0';
	close(fd);
}

int main(void)
{
	char reply[600], big[8192];
	static const char *const bad[] = {
		"garbage\n", "submit\n", "submit nonsense\n", "submit porep k=99\n",
		"submit porep seed=zz\n", "cancel\n", "cancel abc\n", "cancel 999999\n",
		"worker enable gpu.99\n", "worker explode gpu.0\n", "ping extra\n", "\n",
		"submit porep partitions=0\n", "submit porep k=12 k=13\n",
	};
	uint8_t junk[300];

	sv_start(&sv, "badreq", NULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		raw(bad[i], strlen(bad[i]), reply, sizeof reply);
		CHECK(!strncmp(reply, "err ", 4), "'%.*s' got '%s'", (int)strlen(bad[i]) - 1, bad[i], reply);
	}
	uint64_t seed = 7;
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)t_rand(&seed);
	junk[sizeof junk - 1] = '\n';
	raw(junk, sizeof junk, reply, sizeof reply);
	CHECK(!strncmp(reply, "err ", 4), "binary junk got '%s'", reply);
	memset(big, 'a', sizeof big);
	raw(big, sizeof big, reply, sizeof reply);
	CHECK(!strncmp(reply, "err ", 4) && strstr(reply, "long"), "oversized got '%s'", reply);

	/* Half a line, then close; and connections left idle. */
	for (int i = 0; i < 5; i++) {
		int fd = conn();
		(void)!send(fd, "submit por", 10, MSG_NOSIGNAL);
		close(fd);
	}
	int idle[40];
	for (int i = 0; i < 40; i++)
		idle[i] = conn();	/* more than the supervisor's connection slots */
	raw("ping\n", 5, reply, sizeof reply);
	for (int i = 0; i < 40; i++)
		close(idle[i]);
	printf("info: with 40 idle connections open, a ping got '%s'\n", reply);

	CHECK(sv_req(&sv, "ping\n", reply, sizeof reply) == 0 && !strcmp(reply, "ok pong"),
	      "ping after the abuse: '%s'", reply);
	uint64_t id = sv_submit(&sv, "porep k=10 partitions=3");
	struct shm_job j;
	sv_wait(&sv, id, 60, &j);
	CHECK(j.state == SHM_JOB_DONE && sv_verify(&sv, id) == 0, "job after the abuse");
	CHECK(waitpid(sv.pid, NULL, WNOHANG) == 0, "supervisor died");
	kill(sv.pid, SIGTERM);
	int status = sv_reap(&sv, 15);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	sv_check_clean(&sv);
	return 0;
}
