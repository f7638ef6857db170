/*
 * A gpuworker killed inside its status write (halfway through the latch
 * copy of a begin): readers never see a torn record, the supervisor
 * repairs the slot after reaping it, the partition is requeued, and the
 * job completes and verifies.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.0:shm:kill");
	sv_start(&sv, "shmwrite", NULL);
	uint64_t id = sv_submit(&sv, "snap-deals k=12");
	crash_job_ok(&sv, id, 60);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &s);
	CHECK(s.last_exit_kind == SHM_EXIT_SIGNAL && s.last_exit_code == SIGKILL && s.restarts == 1,
	      "gpu.0 last exit %u/%d restarts %llu", s.last_exit_kind, s.last_exit_code,
	      (unsigned long long)s.restarts);
	/* both copies of the record agree again */
	const struct shm_table *tb = &sv.seg.tab[SHM_T_GPU];
	const uint64_t *w = (const uint64_t *)(sv.seg.base + tb->offset) + 1;
	CHECK(!memcmp(w, w + tb->payload_size / 8, tb->payload_size), "slot copies differ");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
