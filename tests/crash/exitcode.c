/*
 * A gpuworker that exits with a code of no special meaning (4: what a
 * CUDA error ended it with before the backend ABI, which now exits 5 for
 * a lost device, tests/plugin/lost.c), nothing retried inside it: the partition is
 * retried elsewhere, the job completes and verifies, and the slot shows
 * the exit code and one restart.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.0:during:exit=4");
	sv_start(&sv, "exitcode", NULL);
	uint64_t id = sv_submit(&sv, "snap-deals k=12");
	crash_job_ok(&sv, id, 60);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &s);
	CHECK(s.last_exit_kind == SHM_EXIT_CODE && s.last_exit_code == 4 && s.restarts == 1,
	      "gpu.0 last exit %u/%d, restarts %llu", s.last_exit_kind, s.last_exit_code,
	      (unsigned long long)s.restarts);
	crash_event_says(&sv, SHM_T_GPU, 0, "exited with 4");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
