/*
 * Priorities: a winning-post submitted behind a full queue of snap-deals
 * completes before the queue drains: when it is done, at least half of
 * the snap-deals partitions are still not done. Then `provisor stop`
 * with work still queued leaves no child, socket or segment behind.
 */
#include "tests/pipeline/harness.h"

#define NSNAP 6

static struct sv sv;

static uint32_t snap_done(const uint64_t *ids, uint32_t *total)
{
	struct shm_job j;
	uint32_t done = 0;

	*total = 0;
	for (int i = 0; i < NSNAP; i++) {
		if (sv_job(&sv, ids[i], &j) < 0)
			continue;
		*total += j.nparts;
		for (uint32_t p = 0; p < j.nparts; p++)
			done += j.part[p].state == SHM_PART_DONE;
	}
	return done;
}

int main(void)
{
	uint64_t snap[NSNAP], wp;
	struct shm_job j;
	uint32_t total, done;
	char reply[256];

	sv_start(&sv, "prio", NULL);
	for (int i = 0; i < NSNAP; i++)
		snap[i] = sv_submit(&sv, "snap-deals k=14");
	wp = sv_submit(&sv, "winning-post k=14");
	sv_wait(&sv, wp, 60, &j);
	done = snap_done(snap, &total);
	CHECK(j.state == SHM_JOB_DONE, "winning-post ended %u: %s", j.state, j.reason);
	printf("info: winning-post done in %.0f ms with %u of %u queued-before snap-deals partitions done\n",
	       (double)(j.end_mono_ns - j.submit_mono_ns) / 1e6, done, total);
	CHECK(total == NSNAP * 16, "snap-deals jobs in the table: %u partitions", total);
	CHECK(done * 2 < total, "the winning-post waited for %u of %u snap-deals partitions", done, total);
	CHECK(sv_verify(&sv, wp) == 0, "winning-post result does not verify");

	/* Stop with work queued: everything goes, nothing is left. */
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	int status = sv_reap(&sv, 15);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exit status %d", status);
	sv_check_clean(&sv);
	return 0;
}
