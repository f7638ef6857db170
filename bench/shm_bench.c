/*
 * Benchmark: the cost of publishing and reading one worker slot (160-byte
 * record) through the latch, beside a PTHREAD_PROCESS_SHARED mutex guarding
 * the same record in shared memory. Measured in one run, side by side:
 * uncontended, then with a second process reading the same record in a
 * loop. Prints ns per operation (median of 5) and the ratio.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm/shm.h"
#include "tests/helpers.h"

#define OPS 2000000
#define WORDS (sizeof(struct shm_slot) / 8)

struct locked {
	pthread_mutex_t mu;
	struct shm_slot rec;
};

static struct shm_latch *latch;
static struct locked *locked;
static volatile uint64_t sink;

static double run(int which, int write)
{
	struct shm_slot v = { .state = SHM_SLOT_BUSY };
	uint64_t t0 = t_now_ns();

	for (int i = 0; i < OPS; i++) {
		if (write) {
			v.gen = (uint64_t)i;
			if (which == 0) {
				shm_latch_write(latch, &v, WORDS);
			} else {
				pthread_mutex_lock(&locked->mu);
				memcpy(&locked->rec, &v, sizeof v);
				pthread_mutex_unlock(&locked->mu);
			}
		} else {
			if (which == 0) {
				if (shm_latch_read(latch, &v, WORDS, SHM_READ_TRIES))
					abort();
			} else {
				pthread_mutex_lock(&locked->mu);
				memcpy(&v, &locked->rec, sizeof v);
				pthread_mutex_unlock(&locked->mu);
			}
			sink += v.gen;
		}
	}
	return (double)(t_now_ns() - t0) / OPS;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(int which, int write)
{
	double r[5];
	for (int i = 0; i < 5; i++)
		r[i] = run(which, write);
	qsort(r, 5, sizeof r[0], cmp);
	return r[2];
}

static pid_t spawn_reader(int which)
{
	pid_t p = fork();
	if (p == 0) {
		for (;;)
			run(which, 0);
	}
	usleep(10000);
	return p;
}

int main(void)
{
	pthread_mutexattr_t ma;
	uint8_t *mem = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return 1;
	latch = (struct shm_latch *)mem;
	locked = (struct locked *)(mem + 4096);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&locked->mu, &ma);

	double lw = median(0, 1), mw = median(1, 1), lr = median(0, 0), mr = median(1, 0);
	printf("shm slot (160 B), uncontended      latch      mutex   latch/mutex\n");
	printf("  update                       %7.1f ns %7.1f ns   %5.2f\n", lw, mw, lw / mw);
	printf("  read                         %7.1f ns %7.1f ns   %5.2f\n", lr, mr, lr / mr);

	pid_t p = spawn_reader(0);
	double lwc = median(0, 1);
	kill(p, SIGKILL); waitpid(p, NULL, 0);
	p = spawn_reader(1);
	double mwc = median(1, 1);
	kill(p, SIGKILL); waitpid(p, NULL, 0);
	printf("  update, another process reading %4.1f ns %7.1f ns   %5.2f\n", lwc, mwc, lwc / mwc);
	printf("  (a reader stopped while holding the mutex blocks its writer forever;\n"
	       "   the latch's writer never waits: see tests/shm/stopped_reader.c)\n");
	return 0;
}
