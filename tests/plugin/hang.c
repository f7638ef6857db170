/*
 * A plugin whose prove never returns (on gpu.0; it ignores abandon, and
 * the worker's heartbeat thread goes on beating) is caught by the
 * partition's deadline (4 s times t_slow(); a healthy k = 12 proof takes
 * well under one): the watchdog kills gpu.0, its crash event says
 * "deadline", the partition is proved elsewhere, and the job ends done
 * with every proof verified.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	char extra[80];

	snprintf(extra, sizeof extra, "deadline = %us\n[supervisor]\npoison_attempts = 50", 4 * t_slow());
	plug_start(&sv, "plughang", "misbehave", "hang@0", extra);
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 180);
	crash_event_says(&sv, SHM_T_GPU, 0, "deadline");
	struct shm_slot s = plug_slot(&sv, 0);
	CHECK(s.restarts >= 1 && s.last_exit_kind == SHM_EXIT_SIGNAL && s.last_exit_code == SIGKILL,
	      "gpu.0 was not killed and restarted");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
