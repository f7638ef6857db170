/*
 * Every kind end to end: submit one job of each kind, wait, and verify
 * every result file with `provisor verify`. Meanwhile a sampler reads the
 * GPU slots in a loop: for every job, some gpuworker slot must be seen
 * busy with that job while it proves (no kind bypasses begin/end), and
 * every busy slot must name a job that was submitted.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "format/pfile.h"
#include "tests/pipeline/harness.h"

#define NKINDS 4

static struct sv sv;
static uint64_t ids[NKINDS];
static _Atomic int seen[NKINDS], stray, sampling = 1;

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&sampling)) {
		for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++) {
			struct shm_slot s;
			if (shm_read_slot(&sv.seg, SHM_T_GPU, i, &s) || s.state != SHM_SLOT_BUSY)
				continue;
			int known = 0;
			for (int k = 0; k < NKINDS; k++)
				if (ids[k] == s.job_id) {
					atomic_store(&seen[k], 1);
					known = 1;
				}
			if (!known && s.job_id)
				atomic_store(&stray, 1);
		}
	}
	return NULL;
}

int main(void)
{
	static const char *const kinds[NKINDS] = {
		"winning-post", "window-post partitions=3", "snap-deals", "porep",
	};
	pthread_t t;
	struct shm_job j;

	sv_start(&sv, "kinds", NULL);
	for (int k = 0; k < NKINDS; k++)
		ids[k] = sv_submit(&sv, kinds[k]);
	pthread_create(&t, NULL, sampler, NULL);
	for (int k = 0; k < NKINDS; k++) {
		sv_wait(&sv, ids[k], 120, &j);
		CHECK(j.state == SHM_JOB_DONE, "%s job ended %u: %s", kinds[k], j.state, j.reason);
		CHECK(j.kind == (uint32_t)k + 1, "job kind recorded %u", j.kind);
		for (uint32_t p = 0; p < j.nparts; p++)
			CHECK(j.part[p].state == SHM_PART_DONE && j.part[p].gpu_ns > 0 && j.part[p].synth_ns > 0,
			      "%s partition %u: state %u", kinds[k], p, j.part[p].state);
		CHECK(sv_verify(&sv, ids[k]) == 0, "%s result does not verify", kinds[k]);
		printf("info: %s: %u partitions of 2^%u, %.0f ms, verified\n", vocab_kind_name(j.kind),
		       j.nparts, j.log_size, (double)(j.end_mono_ns - j.submit_mono_ns) / 1e6);
	}
	atomic_store(&sampling, 0);
	pthread_join(t, NULL);
	for (int k = 0; k < NKINDS; k++)
		CHECK(atomic_load(&seen[k]), "no GPU slot was ever seen busy with the %s job", kinds[k]);
	CHECK(!atomic_load(&stray), "a busy slot named a job nobody submitted");
	/* The supervisor's totals count each kind's one job. */
	struct shm_sup sup;
	CHECK(shm_read_sup(&sv.seg, &sup) == 0, "sup record");
	CHECK_EQ_U64(sup.jobs_done, NKINDS);
	for (int k = 0; k < NKINDS; k++)
		CHECK(sup.jobs_done_kind[k] == 1, "%s: %llu jobs done by kind", kinds[k],
		      (unsigned long long)sup.jobs_done_kind[k]);

	char reply[256];
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	int status = sv_reap(&sv, 15);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "supervisor exit status %d", status);
	sv_check_clean(&sv);
	return 0;
}
