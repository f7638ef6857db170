/*
 * A poison partition: its gpuworker dies every time it proves it. After
 * poison_attempts (3) deaths its job fails with the reason; the other
 * jobs go on and complete.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu:during:kill:3");
	sv_start(&sv, "poison", NULL);
	uint64_t bad = sv_submit(&sv, "winning-post k=12");
	struct shm_job j;
	sv_wait(&sv, bad, 60, &j);
	CHECK(j.state == SHM_JOB_FAILED && strstr(j.reason, "3 times"), "poison job: state %u '%s'",
	      j.state, j.reason);
	printf("info: poison job failed: %s\n", j.reason);
	uint64_t good = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, good, 60);
	(void)s;
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
