/*
 * A crash loop: a gpuworker that dies at start is disabled after the
 * intensity limit (3 crashes within the period), shown as disabled; the
 * other slots keep working, and the supervisor reads degraded with the
 * reason (its own disable, not an operator's); `worker enable` brings it
 * back, and the state to running. An operator's disable does not degrade.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.1:start:exit=9:3");
	sv_start(&sv, "crashloop", "--config",
		 crash_config("[supervisor]\nrestart_intensity = 3\nrestart_period = 60s\n"), NULL);
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
	crash_event_says(&sv, SHM_T_GPU, 1, "exited with 9");
	uint64_t id = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, id, 60 * (int)t_slow());
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 1, &s) == 0 && s.state == SHM_SLOT_DISABLED,
	      "gpu.1 not disabled while the others work");
	CHECK(s.disable_reason == SHM_DISABLE_CRASHLOOP, "gpu.1 disable reason %u", s.disable_reason);
	struct shm_sup sup;
	sv_wait_tick(&sv);	/* the record published since the disable */
	CHECK(shm_read_sup(&sv.seg, &sup) == 0 && sup.state == SHM_SUP_DEGRADED &&
	      strstr(sup.degraded_reason, "1 of 2 GPU and 0 of ") &&
	      strstr(sup.degraded_reason, "(gpu.1: crash loop)"),
	      "supervisor state %u, reason '%.128s'", sup.state, sup.degraded_reason);
	printf("info: degraded: %.128s\n", sup.degraded_reason);
	char reply[128];
	CHECK(sv_req(&sv, "worker enable gpu.1\n", reply, sizeof reply) == 0, "enable: %s", reply);
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_IDLE, 10000 * (int)t_slow(), &s);
	/* published at a tick: a few whole ticks, however long they take */
	for (int i = 0; i < 5 && (shm_read_sup(&sv.seg, &sup) || sup.state != SHM_SUP_RUNNING); i++)
		sv_wait_tick(&sv);
	CHECK(sup.state == SHM_SUP_RUNNING && !sup.degraded_reason[0], "after enable: state %u", sup.state);
	/* an operator's disable: the slot is disabled, the supervisor is not degraded */
	CHECK(sv_req(&sv, "worker disable gpu.0\n", reply, sizeof reply) == 0, "disable: %s", reply);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_DISABLED, 10000 * (int)t_slow(), &s);
	CHECK(s.disable_reason == SHM_DISABLE_OPERATOR, "gpu.0 disable reason %u", s.disable_reason);
	sv_wait_tick(&sv);	/* the record published since the disable */
	sv_wait_tick(&sv);
	CHECK(shm_read_sup(&sv.seg, &sup) == 0 && sup.state == SHM_SUP_RUNNING,
	      "an operator's disable made the state %u", sup.state);
	printf("info: gpu.1 disabled after 3 crashes, enabled again: pid %u idle\n", s.pid);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
