/*
 * Sampled verification (verify_sample = 2: results 0, 2, 4, ... of each
 * gpu slot are verified) and a slot that goes bad: gpu.0 stores its
 * first H right, then a wrong one every time (gpu.0:store:flip:inf@1).
 * Its second result is not in the sample; its third is, fails, and gpu.0
 * is quarantined. Its unverified results of jobs not yet committed are
 * then verified too: the second is found wrong and computed again, so
 * the job still completes with a result that verifies.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;
	struct shm_sup sup;

	crash_fault("gpu.0:store:flip:inf@1");
	sv_start(&sv, "sample", "--config",
		 crash_config("[supervisor]\ngpus = 2\nworkers_per_gpu = 1\nverify_sample = 2\n"), NULL);
	uint64_t id = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, id, 60 * (int)t_slow());
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
	CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_WRONG_RESULT);
	CHECK(s.done >= 3, "gpu.0 stored %llu results; the third is the first sampled wrong one",
	      (unsigned long long)s.done);
	/* published at a tick: a few whole ticks, however long they take */
	for (int i = 0; i < 5 && (shm_read_sup(&sv.seg, &sup) || !sup.quarantines); i++)
		sv_wait_tick(&sv);
	CHECK_EQ_U64(sup.quarantines, 1);
	printf("info: gpu.0 quarantined after %llu results; the job verifies\n",
	       (unsigned long long)s.done);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
