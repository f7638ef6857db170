/*
 * Torture: writers hammer their own slots through begin/end while readers
 * read every slot as fast as they can. Each record carries an invariant
 * that ties several words together (assignment, counters, generations),
 * so a torn read breaks it. Readers count torn reads, which must be 0.
 *
 * Default: 2 writer processes and 2 reader processes, 10^7 updates in all
 * (10^6 under AddressSanitizer). Under ThreadSanitizer the same code runs
 * as threads of one process (TSan sees one address space), 10^6 updates
 * in the plain build's shm_torture_tsan (built from this file; $BIN names
 * no sanitizer), 10^5 in a TSan build's shm_torture, which repeats it.
 * Every check is the same at every size.
 *   torture [-w WRITERS] [-r READERS] [-n UPDATES] [--threads]
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "tests/shm/common.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define JOB_MUL 0x9e3779b97f4a7c15ULL

struct shared {
	_Atomic int writers_left;
	_Atomic uint64_t reads, torn, unreadable, busy_seen, idle_seen;
	char first_torn[256];
};

static struct shm_seg *seg;
static struct shared *sh;
static uint64_t per_writer;
static unsigned nwriters;

static int ok_of(uint64_t g) { return g % 5 != 0; }

/* 0 when v is a record some writer could have published; a reason if not. */
static const char *check(const struct shm_slot *v, uint64_t *last_gen, uint64_t *last_busy)
{
	uint64_t g = v->gen;

	if (v->gen < *last_gen)
		return "generation went backwards";
	if (v->busy_ns < *last_busy)
		return "busy time went backwards";
	*last_gen = v->gen;
	*last_busy = v->busy_ns;
	if (g == 0)
		return v->done || v->failed || v->state == SHM_SLOT_BUSY ? "counts before any begin" : NULL;
	if (v->job_id != g * JOB_MUL || v->partition != g % 64 || v->kind != g % 4)
		return "assignment does not match its generation";
	if (v->busy_since_ns > v->part_since_ns)
		return "busy spell starts after its partition";
	if (v->state == SHM_SLOT_BUSY) {
		if (v->done + v->failed != g - 1 || v->failed != (g - 1) / 5 || v->end_gen != g - 1)
			return "busy record: counters do not match the generation";
	} else if (v->state == SHM_SLOT_IDLE) {
		if (v->done + v->failed != g || v->failed != g / 5 || v->end_gen != g)
			return "idle record: counters do not match the generation";
	} else {
		return "unexpected state";
	}
	return NULL;
}

static void *writer(void *arg)
{
	uint32_t slot = (uint32_t)(uintptr_t)arg;
	struct shm_slot_writer w;

	if (shm_slot_attach(&w, seg, SHM_T_GPU, slot) < 0) {
		fprintf(stderr, "attach failed\n");
		exit(1);
	}
	shm_slot_ready(&w, 1);
	for (uint64_t g = 1; g <= per_writer / 2; g++) {
		struct shm_assign a = { .job_id = g * JOB_MUL, .partition = (uint32_t)(g % 64),
					.kind = (uint32_t)(g % 4) };
		if (shm_slot_begin(&w, g, &a) < 0 || shm_slot_end(&w, g, ok_of(g)) != 1) {
			fprintf(stderr, "begin/end refused at gen %llu\n", (unsigned long long)g);
			exit(1);
		}
	}
	atomic_fetch_sub(&sh->writers_left, 1);
	return NULL;
}

static void *reader(void *arg)
{
	uint64_t last_gen[16] = { 0 }, last_busy[16] = { 0 };
	uint64_t reads = 0, torn = 0, unreadable = 0, busy = 0, idle = 0;
	int final = 0;

	(void)arg;
	while (!final) {
		final = atomic_load(&sh->writers_left) == 0;
		for (uint32_t i = 0; i < nwriters; i++) {
			struct shm_slot v;
			const char *why;

			if (shm_read_slot(seg, SHM_T_GPU, i, &v) < 0) {
				unreadable++;
				continue;
			}
			reads++;
			busy += v.state == SHM_SLOT_BUSY;
			idle += v.state == SHM_SLOT_IDLE;
			if ((why = check(&v, &last_gen[i], &last_busy[i]))) {
				if (torn++ == 0)
					snprintf(sh->first_torn, sizeof sh->first_torn,
						 "slot %u gen %llu state %u: %s", i,
						 (unsigned long long)v.gen, v.state, why);
			}
		}
	}
	atomic_fetch_add(&sh->reads, reads);
	atomic_fetch_add(&sh->torn, torn);
	atomic_fetch_add(&sh->unreadable, unreadable);
	atomic_fetch_add(&sh->busy_seen, busy);
	atomic_fetch_add(&sh->idle_seen, idle);
	return NULL;
}

static void run_threads(unsigned nreaders)
{
	pthread_t t[32];
	unsigned n = 0;

	for (unsigned i = 0; i < nreaders; i++)
		pthread_create(&t[n++], NULL, reader, NULL);
	for (unsigned i = 0; i < nwriters; i++)
		pthread_create(&t[n++], NULL, writer, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void run_processes(unsigned nreaders)
{
	pid_t pids[32];
	unsigned n = 0;
	int status, bad = 0;

	for (unsigned i = 0; i < nreaders + nwriters; i++) {
		pid_t p = fork();
		if (p < 0)
			T_FAIL("fork failed");
		if (p == 0) {
			if (i < nreaders)
				reader(NULL);
			else
				writer((void *)(uintptr_t)(i - nreaders));
			_exit(0);
		}
		pids[n++] = p;
	}
	for (unsigned i = 0; i < n; i++) {
		waitpid(pids[i], &status, 0);
		bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	CHECK(!bad, "a writer or reader process failed");
}

int main(int argc, char **argv)
{
	unsigned nreaders = 2;
	const char *bin = getenv("BIN");
	uint64_t updates = !UNDER_TSAN ? T_SIZE(10000000, 1000000) :
			   bin && strstr(bin, "san") ? 100000 : 1000000;
	int threads = UNDER_TSAN, c;
	static const struct option opts[] = {
		{ "threads", no_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
	};

	nwriters = 2;
	while ((c = getopt_long(argc, argv, "w:r:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'w': nwriters = (unsigned)atoi(optarg); break;
		case 'r': nreaders = (unsigned)atoi(optarg); break;
		case 'n': updates = strtoull(optarg, NULL, 10); break;
		case 't': threads = 1; break;
		default: T_FAIL("usage: torture [-w N] [-r N] [-n UPDATES] [--threads]");
		}
	}
	CHECK(nwriters >= 1 && nwriters <= 16 && nreaders >= 1 && nreaders <= 16, "bad counts");
	per_writer = updates / nwriters;
	seg = t_seg_create("torture", nwriters, 1);
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "mmap");
	atomic_store(&sh->writers_left, (int)nwriters);

	uint64_t t0 = t_now_ns();
	if (threads)
		run_threads(nreaders);
	else
		run_processes(nreaders);
	double secs = (double)(t_now_ns() - t0) / 1e9;

	for (uint32_t i = 0; i < nwriters; i++) {
		struct shm_slot v;
		CHECK(shm_read_slot(seg, SHM_T_GPU, i, &v) == 0, "final read");
		CHECK_EQ_U64(v.gen, per_writer / 2);
		CHECK_EQ_U64(v.done + v.failed, per_writer / 2);
		CHECK(v.state == SHM_SLOT_IDLE, "slot %u ends %s", i, shm_slot_state_name(v.state));
	}
	printf("info: %s, %u writers, %u readers: %llu updates in %.2fs (%.0f ns/update), "
	       "%llu reads (%llu busy, %llu idle), %llu torn, %llu unreadable\n",
	       threads ? "threads" : "processes", nwriters, nreaders,
	       (unsigned long long)(per_writer / 2 * 2 * nwriters), secs,
	       secs * 1e9 / (double)(per_writer * nwriters),
	       (unsigned long long)sh->reads, (unsigned long long)sh->busy_seen,
	       (unsigned long long)sh->idle_seen, (unsigned long long)sh->torn,
	       (unsigned long long)sh->unreadable);
	CHECK(sh->torn == 0, "%llu torn reads; first: %s", (unsigned long long)sh->torn, sh->first_torn);
	CHECK(sh->reads > 1000, "readers barely read (%llu): the test proves nothing",
	      (unsigned long long)sh->reads);
	CHECK(sh->busy_seen > 0 && sh->idle_seen > 0, "readers never saw both states");
	return 0;
}
