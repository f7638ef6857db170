/*
 * Graceful stop. SIGTERM while partitions are being proved: the
 * supervisor takes no new work, lets the partitions in flight finish
 * (they are counted done in the slots and kept on disk), then stops its
 * workers and exits 0; the unfinished job stays in the journal and a new
 * start resumes it, reusing what was proved. A second SIGTERM does not
 * wait: the workers are killed and the supervisor exits at once. That is
 * shown with partitions that cannot finish by themselves (fault
 * gpu:during:hold: every gpuworker holds its partition until asked to
 * give it up), so a stop that waited for them would last its whole
 * stop_timeout: after the first SIGTERM has been taken (the record says
 * stopping), a second one makes the supervisor log that it kills the
 * workers and exit 0 in well under half the stop_timeout, with no
 * partition counted done meanwhile and no worker left.
 */
#include "tests/crash/common.h"

/* Partitions long enough to be in flight at the stop (a sanitizer's slower
 * work needs smaller ones). */
#define POREP_REQ (T_SANITIZER ? "porep k=15 partitions=8" : "porep k=17 partitions=8")

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
	uint64_t id = sv_submit(&sv, POREP_REQ);
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

	crash_stop(&again);
	sv_check_clean(&again);

	/* A second SIGTERM: no waiting, even for partitions that would never
	 * finish (held). stop_timeout is long, so a wait shows. */
	static struct sv third;
	unsigned stop_s = 30 * t_slow();
	char text[128];
	snprintf(text, sizeof text, "[supervisor]\nstop_timeout = %us\n", stop_s);
	crash_fault("gpu:during:hold:inf");
	sv_start(&third, "graceful", "--config", crash_config(text), NULL);
	uint64_t id2 = sv_submit(&third, POREP_REQ);
	crash_wait_state(&third, SHM_T_GPU, 0, SHM_SLOT_BUSY, 30000, &s);
	uint64_t t0 = t_now_ns(), done0 = gpu_done(&third);
	kill(third.pid, SIGTERM);
	/* The first one taken (signals of a kind do not queue: sent before
	 * it was read, the second would merge into it). */
	struct shm_sup sup;
	for (unsigned i = 0; i < 30000 * t_slow(); i++) {
		if (shm_read_sup(&third.seg, &sup) == 0 && sup.state == SHM_SUP_STOPPING)
			break;
		CHECK(i + 1 < 30000 * t_slow(), "the first SIGTERM was not taken: state %u", sup.state);
		usleep(1000);
	}
	kill(third.pid, SIGTERM);
	status = sv_reap(&third, (int)stop_s * 2);
	double secs = (double)(t_now_ns() - t0) / 1e9;
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status 0x%x", status);
	CHECK(secs < stop_s / 2.0, "second SIGTERM: the stop took %.2f s (stop_timeout %u s): it waited "
	      "for the partitions in flight", secs, stop_s);
	uint64_t done1 = gpu_done(&third);
	CHECK(done1 == done0, "%llu partitions counted done during the stop",
	      (unsigned long long)(done1 - done0));
	CHECK(sv_job(&third, id2, &j) >= 0 && j.state != SHM_JOB_DONE, "the held job finished");
	snprintf(line, sizeof line, "grep -q 'second .*: killing the workers now' '%s'", third.log);
	CHECK(system(line) == 0, "the log does not say the second SIGTERM killed the workers");
	printf("info: second SIGTERM with held partitions in flight: stopped in %.2f s (stop_timeout "
	       "%u s)\n", secs, stop_s);
	shm_close(&third.seg);
	third.mapped = 0;
	sv_check_clean(&third);
	return 0;
}
