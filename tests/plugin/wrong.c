/*
 * A plugin that returns a wrong proof (on gpu.1: valid points that fail
 * the pairing) is caught before the commit: gpu.1 is quarantined
 * (disabled, wrong result, sup.quarantines 1), the partition is proved
 * again on gpu.0, and the job ends done with every proof verified.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_sup sup;

	plug_start(&sv, "plugwrong", "misbehave", "wrong@1", NULL);
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	struct shm_slot s;
	crash_wait_state(&sv, SHM_T_GPU, 1, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
	CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_WRONG_RESULT);
	CHECK(plug_sh("grep -q 'fails the pairing check' %s", sv.log) == 0, "the wrong proof was not named");
	PLUG_SUP_WHEN(&sv, sup, sup.quarantines == 1);
	CHECK_EQ_U64(sup.quarantines, 1);
	plug_status_says(&sv, "", "(disabled: wrong result)");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
