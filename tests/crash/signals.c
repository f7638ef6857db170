/*
 * A worker that dies mid-partition, by SIGKILL, SIGSEGV or SIGABRT (the
 * OOM killer and a crashing CUDA library look the same from outside), on
 * a GPU slot and on a synth slot: its partition is requeued and the job
 * completes and verifies; the slot shows the crash (signal, time) and one
 * more restart, and the supervisor's partitions_failed counts the lost
 * attempt exactly as the slot's failed counter does; a crash event is in
 * the ring; the slot's worker is back, idle, with a new pid.
 */
#include "tests/crash/common.h"

static struct sv sv;

static void one(int table, int sig)
{
	struct shm_slot before, after;
	struct shm_sup sup_before, sup_after;
	struct shm_event ev;
	const char *what = table == SHM_T_GPU ? "gpu" : "synth";
	/* big enough that the slot is seen busy for a while (a sanitizer's
	 * slower work needs less of it) */
	char req[64];
	snprintf(req, sizeof req, "porep k=%d partitions=%d", table == SHM_T_GPU ? T_SIZE(16, 14) : T_SIZE(18, 16),
		 table == SHM_T_GPU ? 4 : 2);
	uint64_t id = sv_submit(&sv, req);
	pid_t pid = crash_wait_state(&sv, table, 0, SHM_SLOT_BUSY, 20000, &before);

	CHECK(shm_read_sup(&sv.seg, &sup_before) == 0, "read the supervisor record");
	CHECK(kill(pid, sig) == 0, "kill");
	crash_job_ok(&sv, id, 120);
	crash_wait_state(&sv, table, 0, SHM_SLOT_IDLE, 10000, &after);
	CHECK(shm_read_sup(&sv.seg, &sup_after) == 0, "read the supervisor record");
	CHECK(after.pid != (uint32_t)pid, "%s.0 still has the dead pid", what);
	CHECK(after.restarts == before.restarts + 1, "%s.0 restarts %llu -> %llu", what,
	      (unsigned long long)before.restarts, (unsigned long long)after.restarts);
	CHECK(after.last_exit_kind == SHM_EXIT_SIGNAL && after.last_exit_code == sig,
	      "%s.0 last exit %u/%d, expected signal %d", what, after.last_exit_kind, after.last_exit_code, sig);
	CHECK(after.failed >= before.failed + 1, "the lost partition is not counted as failed");
	/* The supervisor's total counts the same lost attempt, once. */
	CHECK(sup_after.parts_failed - sup_before.parts_failed == after.failed - before.failed,
	      "parts_failed %llu -> %llu while %s.0's failed went %llu -> %llu",
	      (unsigned long long)sup_before.parts_failed, (unsigned long long)sup_after.parts_failed,
	      what, (unsigned long long)before.failed, (unsigned long long)after.failed);
	CHECK(crash_event(&sv, SHM_EV_CRASH, table, 0, &ev) && ev.code == sig, "no crash event for %s.0", what);
	printf("info: %s.0 %s mid-partition: job %llu done and verified, restarts %llu\n", what,
	       strsignal(sig), (unsigned long long)id, (unsigned long long)after.restarts);
}

int main(void)
{
	/* In sanitizer builds, let SIGSEGV and SIGABRT kill the workers as
	 * they would without one (the sanitizer would catch them and exit 1). */
	setenv("ASAN_OPTIONS", "handle_segv=0:handle_abort=0", 0);
	setenv("TSAN_OPTIONS", "handle_segv=0:handle_abort=0", 0);
	sv_start(&sv, "signals", NULL);
	one(SHM_T_GPU, SIGKILL);
	one(SHM_T_GPU, SIGSEGV);
	one(SHM_T_GPU, SIGABRT);
	one(SHM_T_SYNTH, SIGKILL);
	one(SHM_T_SYNTH, SIGSEGV);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
