/*
 * Out of memory is not the partition's fault: a plugin that answers
 * PROVISOR_BE_NOMEM on gpu.0 has each partition it is given requeued
 * with no attempt counted, so with poison_attempts = 1 (one counted
 * failure fails the job) the job still ends done, every proof verified,
 * every partition at 0 attempts; gpu.0 is neither restarted nor
 * disabled, and status shows the class counted.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_sup sup;
	struct shm_job j;

	plug_start(&sv, "plugnomem", "misbehave", "nomem@0", "[supervisor]\npoison_attempts = 1");
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	CHECK(sv_job(&sv, id, &j) >= 0, "job");
	for (uint32_t p = 0; p < j.nparts; p++)
		CHECK(j.part[p].attempts == 0, "partition %u: %u attempts", p, j.part[p].attempts);
	PLUG_SUP_WHEN(&sv, sup, sup.parts_nomem >= 1);
	CHECK(sup.parts_nomem >= 1, "no out-of-memory counted");
	CHECK_EQ_U64(sup.parts_failed, 0);
	struct shm_slot s = plug_slot(&sv, 0);
	CHECK(s.restarts == 0 && s.state != SHM_SLOT_DISABLED, "gpu.0 restarted or disabled");
	plug_status_says(&sv, "", "out of memory");
	plug_status_says(&sv, "--prometheus", "provisor_backend_out_of_memory_total");
	printf("info: %llu partition(s) requeued for out of memory\n", (unsigned long long)sup.parts_nomem);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
