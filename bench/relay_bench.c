/*
 * Benchmark: relay throughput. A producer process writes partition-sized
 * buffers into a pipe; a consumer process reads them. Three ways, run
 * interleaved in one run, each 3 times, medians reported:
 *   direct  producer -> pipe -> consumer (the baseline)
 *   user    producer -> pipe -> read()/write() relay -> pipe -> consumer
 *   splice  producer -> pipe -> io_uring SPLICE relay -> pipe -> consumer,
 *           exactly as the supervisor relays PART_DATA (1 MiB pipes,
 *           SUP_RELAY_CHUNK per splice, SPLICE_F_MOVE)
 * The bar: splice relay >= 0.9x direct.
 */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/sup.h"
#include "tests/helpers.h"

#define TOTAL (1ull << 30)	/* bytes per run */
#define BLOCK (1u << 20)

static void pipe_big(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(1);
	fcntl(p[0], F_SETPIPE_SZ, SUP_PIPE_SIZE);
}

/* In a child: keep only stdio and fd, so every pipe sees its EOF. */
static void only_fd(int fd)
{
	for (int i = 3; i < 64; i++)
		if (i != fd)
			close(i);
}

static pid_t producer(int fd)
{
	pid_t p = fork();
	if (p == 0) {
		only_fd(fd);
		char *buf = malloc(BLOCK);
		memset(buf, 0x5a, BLOCK);
		for (uint64_t done = 0; done < TOTAL; done += BLOCK)
			if (write(fd, buf, BLOCK) != BLOCK)
				_exit(1);
		_exit(0);
	}
	return p;
}

static pid_t consumer(int fd)
{
	pid_t p = fork();
	if (p == 0) {
		only_fd(fd);
		char *buf = malloc(BLOCK);
		uint64_t got = 0;
		ssize_t n;
		while ((n = read(fd, buf, BLOCK)) > 0)
			got += (uint64_t)n;
		_exit(got == TOTAL ? 0 : 1);
	}
	return p;
}

static void relay_user(int in, int out)
{
	char *buf = malloc(BLOCK);
	ssize_t n;

	while ((n = read(in, buf, BLOCK)) > 0)
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w <= 0)
				exit(1);
			off += w;
		}
	free(buf);
}

static void relay_splice(int in, int out)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	uint64_t left = TOTAL;

	io_uring_queue_init(8, &ring, 0);
	while (left) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		unsigned len = left > SUP_RELAY_CHUNK ? SUP_RELAY_CHUNK : (unsigned)left;
		io_uring_prep_splice(sqe, in, -1, out, -1, len, SPLICE_F_MOVE);
		io_uring_submit_and_wait(&ring, 1);
		io_uring_peek_cqe(&ring, &cqe);
		if (cqe->res <= 0)
			exit(1);
		left -= (uint64_t)cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

/* One run; returns GB/s. way: 0 direct, 1 user relay, 2 splice relay. */
static double run(int way)
{
	int a[2], b[2];
	pid_t pp, cp;
	uint64_t t0 = t_now_ns();
	int st1, st2;

	pipe_big(a);
	if (way == 0) {
		pp = producer(a[1]);
		cp = consumer(a[0]);
		close(a[0]);
		close(a[1]);
	} else {
		pipe_big(b);
		fcntl(b[0], F_SETPIPE_SZ, SUP_PIPE_SIZE);
		pp = producer(a[1]);
		cp = consumer(b[0]);
		close(a[1]);
		close(b[0]);
		if (way == 1)
			relay_user(a[0], b[1]);
		else
			relay_splice(a[0], b[1]);
		close(a[0]);
		close(b[1]);
	}
	waitpid(pp, &st1, 0);
	waitpid(cp, &st2, 0);
	if (st1 || st2) {
		fprintf(stderr, "relay bench: a transfer failed\n");
		exit(1);
	}
	return (double)TOTAL / (double)(t_now_ns() - t0);
}

static int cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

int main(void)
{
	double r[3][3];

	for (int i = 0; i < 3; i++)
		for (int w = 0; w < 3; w++)
			r[w][i] = run(w);
	for (int w = 0; w < 3; w++)
		qsort(r[w], 3, sizeof r[w][0], cmp);
	printf("relay of 1 GiB through pipes (median of 3, interleaved):\n");
	printf("  direct pipe          %6.2f GB/s   1.00x\n", r[0][1]);
	printf("  read/write relay     %6.2f GB/s   %.2fx\n", r[1][1], r[1][1] / r[0][1]);
	printf("  io_uring splice relay%6.2f GB/s   %.2fx   (the supervisor's relay; bar: 0.90x)\n",
	       r[2][1], r[2][1] / r[0][1]);
	return 0;
}
