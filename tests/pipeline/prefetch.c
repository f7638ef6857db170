/*
 * The prefetch race, with real processes. Partitions far shorter than a
 * millisecond of work (k = 5) stream through gpuworkers that hold two at
 * a time, so a worker often begins one partition before the end of the
 * previous one is published. A sampler reads the GPU slots in a tight
 * loop. Afterwards each worker's own trace (PROVISOR_TRACE_DIR: when it
 * published each begin and end) is the ground truth:
 *   - no sample shows a slot idle while its worker was proving for the
 *     whole time the read took;
 *   - no sample shows a slot busy after its worker's last end.
 * The trace also counts how often the race happened (begin before the
 * previous end), so the test fails if it never did.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "tests/pipeline/harness.h"

#define JOBS 80
#define MAX_SAMPLES (4u << 20)
#define MAX_GEN (1u << 16)

struct sample {
	uint64_t t0, t1, gen;
	uint32_t slot, state;
};

static struct sv sv;
static struct sample *samples;
static _Atomic uint32_t nsamples;
static _Atomic int sampling = 1;

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&sampling)) {
		for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++) {
			struct shm_slot s;
			uint64_t t0 = shm_now_mono();
			if (shm_read_slot(&sv.seg, SHM_T_GPU, i, &s))
				continue;
			uint32_t n = atomic_load(&nsamples);
			if (n >= MAX_SAMPLES)
				return NULL;
			samples[n] = (struct sample){ t0, shm_now_mono(), s.gen, i, s.state };
			atomic_store(&nsamples, n + 1);
		}
	}
	return NULL;
}

/* Per slot: begin and end times by generation (generations are global,
 * so they index one array for all slots). */
static uint64_t b_at[MAX_GEN], e_at[MAX_GEN];
static uint32_t slot_of[MAX_GEN];
static uint64_t last_end[16];

struct trace_ctx {
	unsigned *overlaps;
	unsigned file;		/* the file prev_gen is of */
	uint64_t prev_gen;	/* the last begin in it */
};

static void trace_line(void *ctx, unsigned slot, unsigned file, const char *line)
{
	struct trace_ctx *t = ctx;
	unsigned long long g, a, b, c;

	if (file != t->file)
		t->file = file, t->prev_gen = 0;
	if (sscanf(line, "B %llu %llu %llu %llu", &g, &a, &b, &c) == 4 && g < MAX_GEN) {
		b_at[g] = c;
		slot_of[g] = slot;
		if (t->prev_gen && !e_at[t->prev_gen])
			(*t->overlaps)++;	/* began before the previous end */
		t->prev_gen = g;
	} else if (sscanf(line, "E %llu %llu %llu", &g, &a, &b) == 3 && g < MAX_GEN) {
		e_at[g] = a;
		if (b > last_end[slot])
			last_end[slot] = b;
	}
}

static unsigned read_traces(const char *dir, unsigned *overlaps)
{
	struct trace_ctx t = { .overlaps = overlaps };

	return sv_trace_lines(dir, trace_line, &t);
}

int main(void)
{
	char dir[200], cmd[300], reply[256];
	uint64_t ids[JOBS];
	struct shm_job j;
	pthread_t t;
	unsigned overlaps = 0, idle_bad = 0, busy_bad = 0, busy = 0, idle = 0;

	snprintf(dir, sizeof dir, "%s/provisor-trace-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	setenv("PROVISOR_TRACE_DIR", dir, 1);
	samples = calloc(MAX_SAMPLES, sizeof *samples);
	CHECK(samples, "calloc");
	sv_start(&sv, "prefetch", NULL);
	pthread_create(&t, NULL, sampler, NULL);
	for (int i = 0; i < JOBS; i++)
		ids[i] = sv_submit(&sv, "snap-deals k=5");
	for (int i = 0; i < JOBS; i++) {
		sv_wait(&sv, ids[i], 60, &j);
		CHECK(j.state == SHM_JOB_DONE, "job %d ended %u: %s", i, j.state, j.reason);
	}
	usleep(20000);	/* let the last ends land, sampled too */
	atomic_store(&sampling, 0);
	pthread_join(t, NULL);
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop");
	sv_reap(&sv, 15);

	CHECK(read_traces(dir, &overlaps) >= 2, "no traces from the gpuworkers");
	uint32_t n = atomic_load(&nsamples);
	for (uint32_t i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		if (s->state == SHM_SLOT_BUSY) {
			busy++;
			if (s->t0 > last_end[s->slot])
				busy_bad++;
		} else if (s->state == SHM_SLOT_IDLE) {
			idle++;
			/* Was some partition on this slot proving during the
			 * whole read? Its generation is the sampled one or
			 * the next few (a read sees the state as of some
			 * instant inside [t0, t1]). */
			for (uint64_t g = s->gen; g < s->gen + 64 && g < MAX_GEN; g++)
				if (b_at[g] && slot_of[g] == s->slot && b_at[g] <= s->t0 &&
				    e_at[g] >= s->t1) {
					if (idle_bad < 5)
						fprintf(stderr, "slot %u idle gen %llu read [%llu,%llu]; gen %llu began %llu ended %llu\n",
							s->slot, (unsigned long long)s->gen, (unsigned long long)s->t0,
							(unsigned long long)s->t1, (unsigned long long)g,
							(unsigned long long)b_at[g], (unsigned long long)e_at[g]);
					idle_bad++;
					break;
				}
		}
	}
	printf("info: %u samples (%u busy, %u idle), %u begins before the previous end\n",
	       n, busy, idle, overlaps);
	CHECK(idle_bad == 0, "%u samples showed a slot idle while its worker was proving", idle_bad);
	CHECK(busy_bad == 0, "%u samples showed a slot busy after its worker's last end", busy_bad);
	CHECK(busy > 100 && idle > 100, "the sampler saw too little to judge");
	CHECK(overlaps > 0, "no partition began before the previous one ended: no race exercised");
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0, "cleanup");
	free(samples);
	return 0;
}
