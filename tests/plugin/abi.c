/*
 * A plugin of another ABI version is refused, in one line, and its slots
 * are disabled as "bad backend" at once instead of crash-looping: no
 * restart, the supervisor degraded, and it still stops cleanly.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	plug_start(&sv, "plugabi", "misbehave", "abi", NULL);
	for (uint32_t i = 0; i < 2; i++) {
		crash_wait_state(&sv, SHM_T_GPU, i, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
		CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_BAD_BACKEND);
		CHECK_EQ_U64(s.restarts, 0);
	}
	CHECK(plug_sh("grep -q 'misbehave.so: backend ABI version 999, but this gpuworker speaks 1' %s",
		      sv.log) == 0, "no clear line about the ABI version");
	plug_status_says(&sv, "", "(disabled: bad backend)");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
