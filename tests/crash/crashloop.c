/*
 * A crash loop: a gpuworker that dies at start is disabled after the
 * intensity limit (3 crashes within the period), shown as disabled; the
 * other slots keep working; `worker enable` brings it back.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.1:start:exit=9:3");
	sv_start(&sv, "crashloop", "--config",
		 crash_config("[supervisor]\nrestart_intensity = 3\nrestart_period = 60s\n"), NULL);
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_DISABLED, 20000, &s);
	crash_event_says(&sv, SHM_T_GPU, 1, "exited with 9");
	uint64_t id = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, id, 60);
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 1, &s) == 0 && s.state == SHM_SLOT_DISABLED,
	      "gpu.1 not disabled while the others work");
	char reply[128];
	CHECK(sv_req(&sv, "worker enable gpu.1\n", reply, sizeof reply) == 0, "enable: %s", reply);
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_IDLE, 10000, &s);
	printf("info: gpu.1 disabled after 3 crashes, enabled again: pid %u idle\n", s.pid);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
