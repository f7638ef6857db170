/*
 * Benchmark: crash recovery, through a real supervisor (CPU backend here).
 *   - restart latency: SIGKILL of an idle worker -> its replacement idle
 *     in the status segment (p50, p99 over 40 kills, gpu and synth slots);
 *   - throughput of a batch under chaos (a random worker SIGKILLed every
 *     200 ms) as a ratio of the same batch without it, in the same run.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "tests/crash/common.h"

#define KILLS 40
#define BATCH 16

static struct sv sv;
static _Atomic int killing;
static _Atomic unsigned chaos_kills;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void *killer(void *arg)
{
	uint64_t seed = 12345;

	(void)arg;
	while (atomic_load(&killing)) {
		usleep(200000);
		int table = t_rand(&seed) % 2 ? SHM_T_GPU : SHM_T_SYNTH;
		struct shm_slot s;
		uint32_t slot = (uint32_t)(t_rand(&seed) % shm_count(&sv.seg, table));
		if (shm_read_slot(&sv.seg, table, slot, &s) == 0 &&
		    (s.state == SHM_SLOT_IDLE || s.state == SHM_SLOT_BUSY) && s.pid &&
		    kill((pid_t)s.pid, SIGKILL) == 0)
			atomic_fetch_add(&chaos_kills, 1);
	}
	return NULL;
}

static double batch(int chaos)
{
	static const char *const kinds[] = { "porep k=14", "snap-deals k=14" };
	uint64_t ids[BATCH], t0 = t_now_ns();
	pthread_t t;
	struct shm_job j;

	atomic_store(&killing, chaos);
	if (chaos)
		pthread_create(&t, NULL, killer, NULL);
	for (int i = 0; i < BATCH; i++)
		ids[i] = sv_submit(&sv, kinds[i % 2]);
	for (int i = 0; i < BATCH; i++) {
		sv_wait(&sv, ids[i], 300, &j);
		if (j.state != SHM_JOB_DONE)
			SV_FAIL("job %llu failed: %s", (unsigned long long)ids[i], j.reason);
	}
	double secs = (double)(t_now_ns() - t0) / 1e9;
	if (chaos) {
		atomic_store(&killing, 0);
		pthread_join(t, NULL);
	}
	return secs;
}

int main(void)
{
	uint64_t lat[KILLS];
	struct shm_slot s;

	sv_start(&sv, "rbench", "--config", crash_config(
		"[supervisor]\nrestart_intensity = 1000000\nstable_run = 1ms\n"
		"poison_attempts = 255\nbackoff_max = 100ms\n"), NULL);
	for (int i = 0; i < KILLS; i++) {
		int table = i % 2 ? SHM_T_SYNTH : SHM_T_GPU;
		pid_t old = crash_wait_state(&sv, table, 0, SHM_SLOT_IDLE, 10000, &s);
		uint64_t t0 = t_now_ns();
		kill(old, SIGKILL);
		for (;;) {
			if (shm_read_slot(&sv.seg, table, 0, &s) == 0 && s.state == SHM_SLOT_IDLE &&
			    (pid_t)s.pid != old)
				break;
			if (t_now_ns() - t0 > 10000000000ull)
				SV_FAIL("no replacement within 10 s");
			usleep(100);
		}
		lat[i] = t_now_ns() - t0;
		usleep(20000);
	}
	qsort(lat, KILLS, sizeof lat[0], cmp_u64);
	printf("restart latency, SIGKILL -> replacement idle in the segment (%d kills, gpu and synth):\n"
	       "  p50 %.1f ms, p99 %.1f ms\n", KILLS, (double)lat[KILLS / 2] / 1e6,
	       (double)lat[KILLS * 99 / 100] / 1e6);
	double plain = batch(0), chaos = batch(1);
	printf("batch of %d jobs (porep and snap-deals at 2^14): %.2f s plain, %.2f s with a SIGKILL every "
	       "200 ms (%u kills): throughput under chaos %.2fx\n", BATCH, plain, chaos,
	       atomic_load(&chaos_kills), plain / chaos);
	crash_stop(&sv);
	return 0;
}
