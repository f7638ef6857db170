/*
 * A plugin runs confined: misbehave.so in snoop mode reads its own
 * library file (outside the directories Landlock allows) from its entry
 * point, which the gpuworker calls between the user switch and Landlock,
 * and again in init, after Landlock: the first read works, the second is
 * refused (Permission denied), and the plugin then proves a job whose
 * proofs all verify. Skipped where the kernel has no Landlock.
 */
#include <linux/landlock.h>
#include <sys/syscall.h>

#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	if ((int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 1) {
		printf("skip: this kernel has no Landlock\n");
		return 77;
	}
	plug_start(&sv, "plugsandbox", "misbehave", "snoop", NULL);
	for (uint32_t i = 0; i < 2; i++)
		crash_wait_state(&sv, SHM_T_GPU, i, SHM_SLOT_IDLE, 20000 * (int)t_slow(), &s);
	CHECK(plug_sh("grep -c 'snoop: own file read before Landlock: ok; in init: Permission denied' %s | grep -qx 2",
		      sv.log) == 0, "the plugin was not confined at init as it should be (see the log)");
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
