/*
 * A plugin that crashes (SIGSEGV in prove, on gpu.0 only) takes only its
 * own worker down: gpu.0 is restarted (its restarts grow) until its crash
 * loop disables it, gpu.1 and the synths keep their processes throughout,
 * and the job loses nothing: it ends done, every proof verified.
 */
#include "tests/plugin/plugin.h"

static struct sv sv;

int main(void)
{
	/* a sanitizer's SIGSEGV handler would turn the signal into exit 1 */
	setenv("ASAN_OPTIONS", "handle_segv=0:handle_abort=0", 0);
	setenv("TSAN_OPTIONS", "handle_segv=0:handle_abort=0", 0);
	plug_start(&sv, "plugcrash", "misbehave", "crash@0", "[supervisor]\npoison_attempts = 50");
	struct shm_slot g1 = plug_slot(&sv, 1), y0, y1;
	CHECK(shm_read_slot(&sv.seg, SHM_T_SYNTH, 0, &y0) == 0, "synth.0");
	uint64_t id = sv_submit(&sv, "porep");
	plug_proofs_ok(&sv, id, 120);
	struct shm_slot g0 = plug_slot(&sv, 0), g1b = plug_slot(&sv, 1);
	CHECK(g0.restarts >= 1, "gpu.0 was not restarted");
	crash_event_says(&sv, SHM_T_GPU, 0, "signal 11");
	CHECK(g1b.pid == g1.pid && g1b.restarts == 0, "gpu.1 was restarted too");
	CHECK(shm_read_slot(&sv.seg, SHM_T_SYNTH, 0, &y1) == 0 && y1.pid == y0.pid, "synth.0 was restarted");
	printf("info: gpu.0 restarted %llu time(s), state %s; gpu.1 untouched\n", (unsigned long long)g0.restarts,
	       shm_slot_state_name(g0.state));
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
