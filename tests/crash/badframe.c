/*
 * A gpuworker that sends a result whose payload fails its checksum is
 * faulty: the supervisor kills it, restarts it and requeues the
 * partition; the job completes and verifies.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.0:frame:corrupt");
	sv_start(&sv, "badframe", NULL);
	uint64_t id = sv_submit(&sv, "snap-deals k=12");
	crash_job_ok(&sv, id, 60);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &s);
	CHECK(s.restarts == 1, "gpu.0 restarts %llu", (unsigned long long)s.restarts);
	crash_event_says(&sv, SHM_T_GPU, 0, "checksum");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
