/*
 * Cancel stops the work: a porep job whose first partition on gpu.0 is
 * held there (fault injection gpu.0:during:hold: it ends only when the
 * worker is asked to give it up) is cancelled. Then, in this order:
 *   - the reply, and the job record: cancelled, every partition not done
 *     shows cancelled (none left queued, at a synth or proving);
 *   - gpu.0 gives the held partition up on request: its slot goes idle
 *     with its preempted counter moved and its done counter not, and the
 *     same process still serves (no kill: preempt_grace is one no loaded
 *     run can miss);
 *   - nothing counted failed or crashed, a JOB_CANCELLED event, and a
 *     job submitted afterwards runs on the same workers and verifies.
 */
#include "tests/pipeline/harness.h"

static struct sv sv;
static char conf_path[256], fault_state[256];

static void cleanup(void)
{
	unlink(conf_path);
	unlink(fault_state);
}

static int slot(uint32_t table, uint32_t i, struct shm_slot *sl)
{
	return shm_read_slot(&sv.seg, table, i, sl);
}

int main(void)
{
	struct shm_job j;
	struct shm_slot g0, after;
	struct shm_sup st;
	struct shm_event ev;
	char reply[256], line[64];
	FILE *f;

	atexit(cleanup);
	snprintf(conf_path, sizeof conf_path, "%s/provisor-test-cancel-%d.conf", t_tmpdir(), (int)getpid());
	f = fopen(conf_path, "w");
	CHECK(f, "fopen %s", conf_path);
	fprintf(f, "[supervisor]\npreempt_grace = %us\n", 10 * t_slow());
	fclose(f);
	snprintf(fault_state, sizeof fault_state, "%s/provisor-test-cancel-fault-%d", t_tmpdir(),
		 (int)getpid());
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu.0:during:hold:1", 1);
	sv_start(&sv, "cancel", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");

	uint64_t id = sv_submit(&sv, "porep k=15 partitions=8");
	for (int i = 0; i < 2000 * (int)t_slow(); i++) {
		if (slot(SHM_T_GPU, 0, &g0) == 0 && g0.state == SHM_SLOT_BUSY && g0.job_id == id)
			break;
		usleep(5000);
	}
	CHECK(g0.state == SHM_SLOT_BUSY && g0.job_id == id, "gpu.0 never busy with job %llu",
	      (unsigned long long)id);
	usleep(50000);	/* the others under way too */
	CHECK(slot(SHM_T_GPU, 0, &g0) == 0 && g0.state == SHM_SLOT_BUSY && g0.job_id == id,
	      "gpu.0's held partition ended by itself");

	snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)id);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "cancel: %s", reply);
	CHECK(sv_job(&sv, id, &j) >= 0 && j.state == SHM_JOB_CANCELLED, "job state %u after cancel",
	      j.state);
	uint32_t cancelled = 0, done = 0;
	for (uint32_t p = 0; p < j.nparts; p++) {
		CHECK(j.part[p].state == SHM_PART_DONE || j.part[p].state == SHM_PART_CANCELLED,
		      "partition %u of the cancelled job is in state %u", p, j.part[p].state);
		cancelled += j.part[p].state == SHM_PART_CANCELLED;
		done += j.part[p].state == SHM_PART_DONE;
	}
	CHECK(j.part[g0.partition].state == SHM_PART_CANCELLED, "gpu.0's held partition %u shows %u",
	      g0.partition, j.part[g0.partition].state);

	/* gpu.0 gives it up on request: idle, counted pre-empted, not done */
	for (int i = 0; i < 2000 * (int)t_slow(); i++) {
		if (slot(SHM_T_GPU, 0, &after) == 0 && after.state == SHM_SLOT_IDLE)
			break;
		usleep(5000);
	}
	CHECK(after.state == SHM_SLOT_IDLE, "gpu.0 still %u after the cancel", after.state);
	CHECK(after.pid == g0.pid, "gpu.0 was replaced (pid %u, was %u): it was killed", after.pid, g0.pid);
	/* the held one, and the one received behind it if any */
	CHECK(after.preempted >= g0.preempted + 1 && after.preempted <= g0.preempted + 2 &&
	      after.done == g0.done,
	      "gpu.0: preempted %llu (was %llu), done %llu (was %llu)",
	      (unsigned long long)after.preempted, (unsigned long long)g0.preempted,
	      (unsigned long long)after.done, (unsigned long long)g0.done);

	CHECK(shm_read_sup(&sv.seg, &st) == 0, "read sup");
	CHECK(st.parts_failed == 0 && st.jobs_cancelled == 1, "parts_failed %llu, jobs_cancelled %llu",
	      (unsigned long long)st.parts_failed, (unsigned long long)st.jobs_cancelled);
	int saw_cancel = 0;
	for (uint64_t q = 1, head = shm_event_head(&sv.seg); q <= head; q++) {
		if (shm_read_event(&sv.seg, q, &ev) != 0)
			continue;
		CHECK(ev.type != SHM_EV_CRASH, "a crash event: %s", ev.msg);
		saw_cancel |= ev.type == SHM_EV_JOB_CANCELLED && ev.job_id == id;
	}
	CHECK(saw_cancel, "no JOB_CANCELLED event for job %llu", (unsigned long long)id);
	for (uint32_t s = 0; s < shm_count(&sv.seg, SHM_T_GPU); s++)
		CHECK(slot(SHM_T_GPU, s, &after) == 0 && after.failed == 0 && after.restarts == 0,
		      "gpu.%u: failed %llu, restarts %llu", s, (unsigned long long)after.failed,
		      (unsigned long long)after.restarts);

	/* The rig goes on. */
	uint64_t next = sv_submit(&sv, "porep k=14 partitions=4");
	sv_wait(&sv, next, 60 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_DONE, "the next job ended %u: %s", j.state, j.reason);
	CHECK(sv_verify(&sv, next) == 0, "the next job's result does not verify");
	printf("info: cancelled with %u partitions done, %u cancelled; gpu.0 gave its held one up, "
	       "not killed; the next job done and verified\n", done, cancelled);
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv, 15);
	sv_check_clean(&sv);
	return 0;
}
