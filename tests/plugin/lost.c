/*
 * A lost device: a plugin that answers PROVISOR_BE_DEVICE_LOST on gpu.0
 * ends its worker (exit 5) and is restarted, until the third loss
 * disables gpu.0 as "device lost" (gpu.1 is disabled meanwhile, so the
 * partitions go to gpu.0 however the two would have raced; enabled
 * again, it proves them); no partition is charged (with
 * poison_attempts = 1 the job still ends done, every proof verified),
 * sup.device_lost is 3, and status names the reason.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_sup sup;
	struct shm_slot s;
	struct shm_event ev;

	char reply[256];

	plug_start(&sv, "pluglost", "misbehave", "lost@0", "[supervisor]\npoison_attempts = 1");
	/* gpu.1 (which proves) is put aside until gpu.0 is disabled, so that
	 * every partition goes to gpu.0 and it loses its device 3 times
	 * however fast gpu.1 would have been */
	CHECK(sv_req(&sv, "worker disable gpu.1\n", reply, sizeof reply) == 0, "disable gpu.1: %s", reply);
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_DISABLED, 10000 * (int)t_slow(), &s);
	uint64_t a = sv_submit(&sv, "porep partitions=8"), b = sv_submit(&sv, "porep");
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_DISABLED, 60000 * (int)t_slow(), &s);
	CHECK(sv_req(&sv, "worker enable gpu.1\n", reply, sizeof reply) == 0, "enable gpu.1: %s", reply);
	CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_DEVICE_LOST);
	CHECK(s.last_exit_kind == SHM_EXIT_CODE && s.last_exit_code == 5, "gpu.0's last exit is not 5");
	CHECK(crash_event(&sv, SHM_EV_DISABLE, SHM_T_GPU, 0, &ev) && strstr(ev.msg, "device lost 3 times"),
	      "disable event: '%s'", ev.msg);
	struct shm_job j;
	sv_wait(&sv, a, 120 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_DONE, "job a: state %u (%s)", j.state, j.reason);
	plug_proofs_ok(&sv, b, 120);
	PLUG_SUP_WHEN(&sv, sup, sup.device_lost == 3);
	CHECK_EQ_U64(sup.device_lost, 3);
	CHECK_EQ_U64(sup.parts_failed, 0);
	plug_status_says(&sv, "", "(disabled: device lost)");
	plug_status_says(&sv, "--json", "\"disable_reason\":\"device-lost\"");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
