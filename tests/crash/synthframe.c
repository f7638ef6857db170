/*
 * A synth that sends a partition whose payload fails its checksum: the
 * gpuworker refuses that partition (and goes on), the supervisor kills
 * the synth that produced it, the partition is synthesized again and the
 * job completes and verifies. No gpuworker restarts.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("synth.0:frame:corrupt");
	sv_start(&sv, "synthframe", "--synth", "1", NULL);
	uint64_t id = sv_submit(&sv, "porep k=12 partitions=4");
	crash_job_ok(&sv, id, 60);
	crash_wait_state(&sv, SHM_T_SYNTH, 0, SHM_SLOT_IDLE, 10000, &s);
	CHECK(s.restarts == 1, "synth.0 restarts %llu", (unsigned long long)s.restarts);
	crash_event_says(&sv, SHM_T_SYNTH, 0, "checksum");
	for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++) {
		CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, i, &s) == 0 && s.restarts == 0,
		      "gpu.%u restarted", i);
	}
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
