/*
 * fakesup: a fake supervisor for testing and benchmarking provisor top,
 * status and exporter without the real pipeline (see fake.h).
 *
 *   fakesup --name NAME [--gpus N] [--synth N] [--tick-ms MS] [--fail PERMILLE]
 *           [--crash-every SEC] [--min-ms MS] [--max-ms MS] [--ready FILE]
 *
 * SIGUSR1 freezes the animation (the heartbeat goes on), SIGUSR2 resumes
 * it; SIGTERM/SIGINT remove the segment and exit 0; SIGKILL leaves it
 * behind like a crashed supervisor. --ready FILE is created once the
 * segment is up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/tui/fake.h"

static volatile sig_atomic_t stop, frozen;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		frozen = 1;
	else if (sig == SIGUSR2)
		frozen = 0;
	else
		stop = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: fakesup --name NAME [--gpus N] [--synth N] [--tick-ms MS] "
		"[--fail PERMILLE] [--crash-every SEC] [--min-ms MS] [--max-ms MS] [--ready FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *ready = NULL;
	unsigned gpus = 4, synth = 2, tick_ms = 20, fail = 0, crash = 0, min_ms = 0, max_ms = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct fake f;
	char err[256];

	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage();
		if (!strcmp(a, "--name")) name = v;
		else if (!strcmp(a, "--ready")) ready = v;
		else if (!strcmp(a, "--gpus")) gpus = (unsigned)atoi(v);
		else if (!strcmp(a, "--synth")) synth = (unsigned)atoi(v);
		else if (!strcmp(a, "--tick-ms")) tick_ms = (unsigned)atoi(v);
		else if (!strcmp(a, "--fail")) fail = (unsigned)atoi(v);
		else if (!strcmp(a, "--crash-every")) crash = (unsigned)atoi(v);
		else if (!strcmp(a, "--min-ms")) min_ms = (unsigned)atoi(v);
		else if (!strcmp(a, "--max-ms")) max_ms = (unsigned)atoi(v);
		else return usage();
	}
	if (!name || !gpus || !synth || !tick_ms)
		return usage();
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	if (fake_create(&f, name, gpus, synth, err, sizeof err) < 0) {
		fprintf(stderr, "fakesup: %s\n", err);
		return 1;
	}
	f.fail_permille = fail;
	f.crash_every_ns = crash * 1000000000ull;
	if (min_ms)
		f.min_ms = min_ms;
	if (max_ms)
		f.max_ms = max_ms;
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
	}
	while (!stop) {
		struct timespec ts = { 0, (long)tick_ms * 1000000 };
		if (frozen)
			shm_heartbeat(&f.seg);
		else
			fake_tick(&f);
		nanosleep(&ts, NULL);
	}
	fake_destroy(&f);
	return 0;
}
