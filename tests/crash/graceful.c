/*
 * Graceful stop. SIGTERM while partitions are being proved: the
 * supervisor takes no new work, lets the partitions in flight finish
 * (they are counted done in the slots and kept on disk), then stops its
 * workers and exits 0; the unfinished job stays in the journal and a new
 * start resumes it, reusing what was proved. A second SIGTERM does not
 * wait: the workers are killed and the supervisor exits at once.
 */
#include "tests/crash/common.h"

static struct sv sv;

static uint64_t gpu_done(struct sv *v)
{
	uint64_t sum = 0;
	struct shm_slot s;

	for (uint32_t i = 0; i < shm_count(&v->seg, SHM_T_GPU); i++)
		if (shm_read_slot(&v->seg, SHM_T_GPU, i, &s) == 0)
			sum += s.done;
	return sum;
}

int main(void)
{
	struct shm_slot s;
	struct shm_job j;
	const char *conf = crash_config("[supervisor]\nstop_timeout = 30s\n");

	sv_start(&sv, "graceful", "--config", conf, NULL);
	uint64_t id = sv_submit(&sv, "porep k=17 partitions=8");
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_BUSY, 30000, &s);
	uint64_t before = gpu_done(&sv);
	kill(sv.pid, SIGTERM);
	int status = sv_reap(&sv, 60);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0x%x", status);
	/* our mapping outlives the unlinked segment: its last state */
	uint64_t after = gpu_done(&sv);
	CHECK(sv_job(&sv, id, &j) >= 0 && j.state != SHM_JOB_DONE, "the job finished before the stop");
	CHECK(after > before, "no partition in flight finished after SIGTERM (done %llu -> %llu)",
	      (unsigned long long)before, (unsigned long long)after);
	printf("info: SIGTERM with partitions in flight: %llu more finished before the exit\n",
	       (unsigned long long)(after - before));
	shm_close(&sv.seg);
	sv.mapped = 0;
	sv_check_clean(&sv);

	/* The next start resumes the job, reusing what was proved. */
	static struct sv again;	/* static: the atexit cleanup points at it */
	sv_start(&again, "graceful", "--config", conf, NULL);
	crash_job_ok(&again, id, 120);
	char line[512];
	unsigned reused = 0, n = 0;
	FILE *f = fopen(again.log, "r");
	while (f && fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "resumed from the journal (");
		if (p)
			sscanf(p, "resumed from the journal (%u of %u", &reused, &n);
	}
	if (f)
		fclose(f);
	CHECK(reused >= after - before, "resumed with %u of %u partitions reused", reused, n);
	printf("info: resumed with %u of %u partitions already proved\n", reused, n);

	/* A second SIGTERM: no waiting. */
	uint64_t id2 = sv_submit(&again, "porep k=17 partitions=8");
	(void)id2;
	crash_wait_state(&again, SHM_T_GPU, 0, SHM_SLOT_BUSY, 30000, &s);
	uint64_t t0 = t_now_ns();
	kill(again.pid, SIGTERM);
	usleep(50000);
	kill(again.pid, SIGTERM);
	status = sv_reap(&again, 30);
	double secs = (double)(t_now_ns() - t0) / 1e9;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0x%x", status);
	CHECK(secs < 3.0, "second SIGTERM: the stop took %.2f s", secs);
	printf("info: second SIGTERM: stopped in %.2f s\n", secs);
	sv_check_clean(&again);
	return 0;
}
