/*
 * A plugin that returns garbage (77, no status, on gpu.0) is taken as an
 * internal error: the partition's FAIL says so, an attempt is counted
 * (sup.backend_errors grows), and the partition is proved again, so the
 * job ends done with every proof verified.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	struct shm_sup sup;

	plug_start(&sv, "pluggarbage", "misbehave", "garbage@0", "[supervisor]\npoison_attempts = 50");
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	CHECK(plug_sh("grep -q 'backend misbehave returned 77, not a status (internal)' %s", sv.log) == 0,
	      "the worker did not name the garbage");
	PLUG_SUP_WHEN(&sv, sup, sup.backend_errors >= 1);
	CHECK(sup.backend_errors >= 1 && sup.parts_failed >= 1, "backend errors %llu, failed %llu",
	      (unsigned long long)sup.backend_errors, (unsigned long long)sup.parts_failed);
	plug_status_says(&sv, "--prometheus", "provisor_backend_errors_total");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
