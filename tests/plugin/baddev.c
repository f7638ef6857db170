/*
 * A device the backend refuses at start (init answers DEVICE_LOST on
 * gpu.0) disables gpu.0 as "bad device" at once: no restart, nothing
 * charged; gpu.1 proves the job, which ends done with every proof
 * verified.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	plug_start(&sv, "plugbaddev", "misbehave", "baddev@0", "[supervisor]\npoison_attempts = 1");
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
	CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_BAD_DEVICE);
	CHECK_EQ_U64(s.restarts, 0);
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	CHECK(plug_sh("grep -q 'init failed (device lost): misbehave: device 0 refused' %s", sv.log) == 0,
	      "the worker did not say why");
	plug_status_says(&sv, "", "(disabled: bad device)");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
