/*
 * ctl-rtt: control-socket round trips of a running supervisor, as a
 * client feels its responsiveness (a busy or blocked loop answers late).
 *
 *   ctl-rtt --socket PATH [--interval-ms N] [--seconds N] [--timeout-ms N]
 *
 * Over ONE connection kept open (ctl_open/ctl_request), it sends `ping`
 * every --interval-ms (default 10) for --seconds (default 10) and prints
 * one line:
 *
 *   rtt_ms p50 X p99 Y max Z n N
 *
 * (milliseconds, 3 decimals; quantiles exact, nearest rank, over the N
 * pings answered). A ping that gets no "ok pong" within --timeout-ms
 * (default 5000), or a lost connection, is said on stderr; the line is
 * still printed for the answered ones and the exit status is 1. SIGINT or
 * SIGTERM ends the run early, and the line is printed (exit 0): a bench
 * runs it beside a job of unknown length that way. Exit 2:
 * bad usage. A reply later than the interval delays the next ping (no
 * catch-up burst). The peer must be of our uid or root, as for
 * `provisor ... --socket`. The supervisor closes a connection idle for
 * 60 s: keep --interval-ms below that.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "util/util.h"

static volatile sig_atomic_t rtt_stop;

static void rtt_on_signal(int sig)
{
	(void)sig;
	rtt_stop = 1;
}

static uint64_t rtt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int rtt_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the ceil(q n)-th smallest of sorted v[0..n). */
static double rtt_ms(const uint64_t *v, size_t n, double q)
{
	size_t rank = (size_t)(q * (double)n);

	if (!n)
		return 0;
	if ((double)rank < q * (double)n)
		rank++;
	return (double)v[(rank ? rank : 1) - 1] / 1e6;
}

static int rtt_vet(const struct ctl_peer *p, void *arg, char *err, size_t errlen)
{
	(void)arg;
	if (p->uid == getuid() || p->uid == 0)
		return 0;
	return util_fail(err, errlen, -EPERM, "the socket is served by uid %u, neither you nor root",
			 (unsigned)p->uid);
}

static void rtt_usage(void)
{
	fprintf(stderr, "usage: ctl-rtt --socket PATH [--interval-ms N] [--seconds N] [--timeout-ms N]\n");
	exit(2);
}

static uint64_t rtt_num(const char *flag, const char *v, uint64_t lo, uint64_t hi)
{
	uint64_t n;

	if (util_num(v, UTIL_NUM_STRTOL, lo, hi, &n)) {
		fprintf(stderr, "ctl-rtt: %s: '%s' is not a number in %llu..%llu\n", flag, v,
			(unsigned long long)lo, (unsigned long long)hi);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 'n' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *path = NULL;
	uint64_t interval_ms = 10, seconds = 10, timeout_ms = 5000, *rtt, n = 0, cap;
	char reply[CTL_MAX_LINE], err[300];
	struct ctl_conn c;
	int o, failed = 0;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's': path = optarg; break;
		case 'i': interval_ms = rtt_num("--interval-ms", optarg, 1, 59000); break;
		case 'n': seconds = rtt_num("--seconds", optarg, 1, 86400); break;
		case 't': timeout_ms = rtt_num("--timeout-ms", optarg, 1, 600000); break;
		default: rtt_usage();
		}
	}
	if (!path || optind != argc)
		rtt_usage();
	cap = seconds * 1000 / interval_ms + 2;
	rtt = malloc(cap * sizeof *rtt);
	if (!rtt) {
		fprintf(stderr, "ctl-rtt: out of memory for %llu samples\n", (unsigned long long)cap);
		return 1;
	}
	if (ctl_open(&c, path, (int)timeout_ms, rtt_vet, NULL, err, sizeof err) < 0) {
		fprintf(stderr, "ctl-rtt: %s\n", err);
		return 1;
	}
	struct sigaction sa = { .sa_handler = rtt_on_signal };	/* no SA_RESTART */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	uint64_t start = rtt_now_ns(), end = start + seconds * 1000000000u, next = start;
	while (next < end && n < cap && !rtt_stop) {
		uint64_t now = rtt_now_ns(), t0;
		if (next > now) {
			struct timespec d = { .tv_sec = (time_t)((next - now) / 1000000000u),
					      .tv_nsec = (long)((next - now) % 1000000000u) };
			nanosleep(&d, NULL);
		}
		t0 = rtt_now_ns();
		int rc = ctl_request(&c, "ping\n", reply, sizeof reply, (int)timeout_ms, err, sizeof err);
		uint64_t t1 = rtt_now_ns();
		if (rtt_stop)
			break;	/* asked to end: this one may have been cut short */
		if (rc != 0 || strcmp(reply, "ok pong")) {
			fprintf(stderr, "ctl-rtt: ping %llu: %s\n", (unsigned long long)n + 1,
				rc < 0 ? err : reply);
			failed = 1;
			break;
		}
		rtt[n++] = t1 - t0;
		next += interval_ms * 1000000u;
		if (next < t1)
			next = t1;	/* late: the next one now, no burst */
	}
	ctl_close(&c);
	qsort(rtt, n, sizeof *rtt, rtt_cmp);
	printf("rtt_ms p50 %.3f p99 %.3f max %.3f n %llu\n", rtt_ms(rtt, n, 0.5), rtt_ms(rtt, n, 0.99),
	       n ? (double)rtt[n - 1] / 1e6 : 0.0, (unsigned long long)n);
	free(rtt);
	return failed;
}
