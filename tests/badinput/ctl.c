/*
 * Bad input on a live supervisor's control socket, and its limits.
 *
 * Jobs are accepted first, with every GPU worker disabled so they are
 * still queued while the socket is abused: garbage, NUL bytes, non-UTF-8,
 * oversized lines, huge and negative numbers, thousands of connections
 * (short, garbage-sending, and held open past the connection slots). Then
 * each limit is hit and must name itself: request size (CTL_MAX_LINE),
 * max_jobs, partitions per job (64), constraint size (max_log_size); a
 * partition larger than mem_budget is accepted and must run alone rather
 * than wait forever. Finally the workers come back and every job accepted
 * before the abuse completes, unchanged, and verifies; a ping answers.
 * A second supervisor fills the job table: max_jobs at its most, the
 * table's 256 entries, is reachable (a larger max_jobs is refused at load,
 * tests/badinput/cli.sh).
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tests/crash/common.h"

static struct sv sv;

static int conn(void)
{
	return sv_connect(&sv);
}

/* Raw bytes in, the first reply line out ("" when the connection was
 * dropped). The connection stays open after a reply, so this reads up to
 * the first '\n' (or EOF), not to EOF. */
static void raw(const void *buf, size_t len, char *reply, size_t rlen)
{
	struct timeval tv = { .tv_sec = 10 };
	int fd = conn();
	size_t got = 0;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (len)
		(void)!send(fd, buf, len, MSG_NOSIGNAL);
	while (got < rlen - 1 && !memchr(reply, '\n', got) &&
	       (n = recv(fd, reply + got, rlen - 1 - got, 0)) > 0)
		got += (size_t)n;
	reply[got] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	close(fd);
}

/* The request (len bytes) must get "err ..." containing want. */
static void expect_err(const char *what, const void *buf, size_t len, const char *want)
{
	char reply[600];

	raw(buf, len, reply, sizeof reply);
	CHECK(!strncmp(reply, "err ", 4) && strstr(reply, want), "%s: got '%s', wanted 'err ...%s...'",
	      what, reply, want);
}

#define EXPECT_ERR(lit, want) expect_err(#lit, lit, sizeof lit - 1, want)

struct accepted {
	uint64_t id;
	uint32_t kind, k, parts;
	uint8_t seed;
};

static void submit(struct accepted *a, const char *kind, uint32_t kcode, uint32_t k, uint32_t parts,
		   uint8_t seed)
{
	char args[128];

	snprintf(args, sizeof args, "%s seed=%02x k=%u partitions=%u", kind, seed, k, parts);
	*a = (struct accepted){ .id = sv_submit(&sv, args), .kind = kcode, .k = k, .parts = parts,
				.seed = seed };
}

static void garbage(void)
{
	char big[8192], reply[600];
	uint8_t junk[CTL_MAX_LINE];
	uint64_t rs = 42;

	EXPECT_ERR("pi\0ng\n", "NUL byte at offset 2");
	EXPECT_ERR("\0\n", "NUL byte at offset 0");
	EXPECT_ERR("submit p\xc3\x28rep\n", "non-printable byte 0xc3 at offset 8");
	EXPECT_ERR("submit porep seed=\xff\xfe\n", "non-printable byte 0xff");
	EXPECT_ERR("ping\r\n", "non-printable byte 0x0d");
	EXPECT_ERR("\x1b[2J\n", "non-printable byte 0x1b");
	EXPECT_ERR("submit porep k=99999999999999999999999999\n", "k must be 3..27");
	EXPECT_ERR("submit porep k=-1\n", "k must be 3..27");
	EXPECT_ERR("submit porep k=010\n", "k must be 3..27");
	EXPECT_ERR("submit porep partitions=18446744073709551617\n", "partitions must be 1..64");
	EXPECT_ERR("submit porep partitions=-1\n", "partitions must be 1..64");
	EXPECT_ERR("submit porep seed=-1\n", "seed is not hex");
	EXPECT_ERR("cancel -1\n", "is not a job id");
	EXPECT_ERR("cancel 99999999999999999999999\n", "is not a job id");
	EXPECT_ERR("cancel 18446744073709551615\n", "no job 18446744073709551615");
	EXPECT_ERR("worker enable gpu.-1\n", "not gpu.N or synth.N");
	EXPECT_ERR("worker enable gpu.4294967296\n", "not gpu.N or synth.N");
	EXPECT_ERR("worker enable synth.65535\n", "no synth slot 65535");
	EXPECT_ERR("submit porep submit porep submit porep submit porep submit\n", "too many words");
	EXPECT_ERR("submit  porep\n", "stray space");
	EXPECT_ERR("\n", "empty request");
	for (int i = 0; i < 200; i++) {	/* random lines, each refused */
		size_t n = 1 + t_rand(&rs) % (sizeof junk - 1);
		for (size_t b = 0; b < n; b++)
			junk[b] = (uint8_t)t_rand(&rs);
		junk[n - 1] = '\n';
		raw(junk, n, reply, sizeof reply);
		CHECK(!strncmp(reply, "err ", 4), "random line got '%s'", reply);
	}
	/* The request size limit, on a line and on a stream with no '\n'. */
	memset(big, 'a', sizeof big);
	expect_err("8 KiB without a newline", big, sizeof big, "request longer than 512 bytes");
	memcpy(big, "submit porep seed=", 18);
	big[CTL_MAX_LINE] = '\n';
	expect_err("513-byte line", big, CTL_MAX_LINE + 1, "request longer than 512 bytes");
}

/* Thousands of connections: short ones, garbage-and-go ones, and more
 * held open at once than the supervisor has connection slots. */
static void flood(void)
{
	char reply[600];
	int held[300], busy = 0;

	for (int i = 0; i < 1500; i++)
		close(conn());
	for (int i = 0; i < 1000; i++) {
		int fd = conn();
		(void)!send(fd, "\xff\x00garbage", 9, MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
	}
	for (int i = 0; i < 300; i++)
		held[i] = conn();
	raw("ping\n", 5, reply, sizeof reply);
	busy = !strncmp(reply, "err busy", 8) || !reply[0];
	CHECK(!strcmp(reply, "ok pong") || busy, "ping with 300 held connections: '%s'", reply);
	printf("info: with 300 connections held open a ping got '%s'\n", reply);
	for (int i = 0; i < 300; i++)
		close(held[i]);
	for (int i = 0; i < 100 && sv_req(&sv, "ping\n", reply, sizeof reply) != 0; i++)
		usleep(50000);
	CHECK(!strcmp(reply, "ok pong"), "ping after the flood: '%s'", reply);
}

static void limits(struct accepted *big)
{
	char reply[600];

	EXPECT_ERR("submit porep k=13\n", "log size 13 is not a number in 3..12 (max_log_size)");
	EXPECT_ERR("submit porep partitions=65\n", "partitions must be 1..64");
	/* max_jobs = 4: three accepted so far, one more fits. A partition of
	 * k=12 holds 384 KiB, four times mem_budget: accepted, runs alone. */
	submit(big, "porep", 4, 12, 2, 0xcc);
	EXPECT_ERR("submit winning-post\n", "job limit reached: max_jobs (4) jobs queued or running");
	raw("submit winning-post\n", 20, reply, sizeof reply);
	printf("info: limit: %s\n", reply);
}

static void check_done(const struct accepted *a)
{
	struct shm_job j;

	crash_job_ok(&sv, a->id, 90);
	CHECK(sv_job(&sv, a->id, &j) >= 0, "job %llu vanished", (unsigned long long)a->id);
	CHECK(j.kind == a->kind && j.log_size == a->k && j.nparts == a->parts && j.seed[0] == a->seed,
	      "job %llu changed: kind %u k %u parts %u seed %02x", (unsigned long long)a->id, j.kind,
	      j.log_size, j.nparts, j.seed[0]);
}

static void workers(const char *op)
{
	char line[64], reply[256];

	for (uint32_t g = 0; g < shm_count(&sv.seg, SHM_T_GPU); g++) {
		snprintf(line, sizeof line, "worker %s gpu.%u\n", op, g);
		CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "%s: %s", line, reply);
	}
}

/* max_jobs = 256, the job table's size, is reached, not a smaller one. */
static void table_full(void)
{
	char reply[600], line[64];
	uint64_t first = 0, last = 0;
	int n = 0;

	sv_start(&sv, "badtbl", "--config", crash_config("[supervisor]\nmax_jobs = 256\n"
							  "[kind.winning-post]\nlog_size = 8\n"), NULL);
	workers("disable");
	for (; n < 300; n++) {
		if (sv_req(&sv, "submit winning-post\n", reply, sizeof reply) != 0)
			break;
		last = strtoull(reply + 3, NULL, 10);
		first = first ? first : last;
	}
	printf("info: limit: %s\n", reply);
	CHECK(n == 256 && strstr(reply, "job limit reached: max_jobs (256) jobs queued or running"),
	      "after %d jobs: '%s'", n, reply);
	for (uint64_t id = first; id <= last; id++) {
		snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)id);
		CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "%s: %s", line, reply);
	}
	CHECK(sv_req(&sv, "submit winning-post\n", reply, sizeof reply) == 0,
	      "submit after cancelling: '%s'", reply);
	crash_stop(&sv);
	sv_check_clean(&sv);
	if (!getenv("KEEP_LOG"))
		unlink(sv.log);	/* passed: the harness keeps only the dir's removal */
}

int main(void)
{
	struct accepted acc[4];
	char reply[256];
	const char *cfg = crash_config("[supervisor]\nmax_jobs = 4\nmem_budget = 96KiB\nmax_log_size = 12\n"
				       "[kind.winning-post]\nlog_size = 8\n[kind.window-post]\nlog_size = 8\n"
				       "[kind.snap-deals]\nlog_size = 8\n[kind.porep]\nlog_size = 8\n");
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 400)
		T_SKIP("needs 400 file descriptors, RLIMIT_NOFILE is %llu", (unsigned long long)rl.rlim_cur);
	sv_start(&sv, "badctl", "--config", cfg, NULL);
	workers("disable");
	submit(&acc[0], "porep", 4, 8, 3, 0xaa);
	submit(&acc[1], "winning-post", 1, 8, 1, 0xbb);
	submit(&acc[2], "snap-deals", 3, 9, 2, 0xdd);

	garbage();
	flood();
	limits(&acc[3]);
	CHECK(waitpid(sv.pid, NULL, WNOHANG) == 0, "the supervisor died");

	workers("enable");
	for (int i = 0; i < 4; i++)
		check_done(&acc[i]);
	CHECK(sv_req(&sv, "ping\n", reply, sizeof reply) == 0 && !strcmp(reply, "ok pong"),
	      "final ping: '%s'", reply);
	crash_stop(&sv);
	sv_check_clean(&sv);
	/* The harness cleans up after the last supervisor only. */
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", sv.dir, sv.log);
	CHECK(system(cmd) == 0, "%s", cmd);
	table_full();
	return 0;
}
