/*
 * provisor retry: a job failed by a poison partition is queued again and
 * keeps the partitions that were done. One gpu slot; its worker proves
 * four partitions (one synth: they come in order), then is killed at the
 * fifth (fault rule gpu:during:kill:1@4), and with poison_attempts = 1
 * that one death fails the job, with 4 of 10 partitions done (or,
 * depending on timing, 3). (Three kills at poison_attempts 3 failed it
 * only when all three met one partition: after a restart the next
 * partition may come first, so on a loaded machine the job was sometimes
 * done instead; poisoning itself is crash_poison's.) Its
 * fault spent, `retry` queues it again; it completes, its result
 * verifies, and the supervisor took exactly the partitions that were
 * not done (those kept were not computed again). Bad retries are refused.
 */
#include "tests/crash/common.h"

static struct sv sv;

static uint32_t parts_in(const struct shm_job *j, uint32_t state)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < j->nparts; p++)
		n += j->part[p].state == state;
	return n;
}

int main(void)
{
	struct shm_job j;
	char line[64], reply[256];

	crash_fault("gpu:during:kill:1@4");
	sv_start(&sv, "retry", "--config",
		 crash_config("[supervisor]\ngpus = 1\nworkers_per_gpu = 1\nsynth = 1\n"
			      "restart_intensity = 100\npoison_attempts = 1\n"),
		 NULL);
	uint64_t id = sv_submit(&sv, "porep k=12");
	sv_wait(&sv, id, 60 * (int)t_slow(), &j);
	if (j.state != SHM_JOB_FAILED || !strstr(j.reason, "1 times"))
		SV_FAIL("job: state %u '%s'", j.state, j.reason);
	uint32_t kept = parts_in(&j, SHM_PART_DONE);
	printf("info: job %llu failed (%s) with %u of %u partitions done\n", (unsigned long long)id,
	       j.reason, kept, j.nparts);
	/* Usually 4; 3 was seen once in a clean-clone CI run (the job failed
	 * at partition 3: a partition is done only once a synth has verified
	 * it, and the fault counts the gpuworker's passes, so timing can move
	 * the poison one partition earlier). Either way the retry must prove
	 * exactly the partitions not done: checked below. */
	CHECK(kept == 4 || kept == 3, "4 (or 3) partitions done before the poison, not %u", kept);
	/* The supervisor's count of partitions it took (published at its
	 * tick: a whole tick after the failure was seen): a worker's late
	 * result for the failed job is not. */
	struct shm_sup sup;
	sv_wait_tick(&sv);
	CHECK(shm_read_sup(&sv.seg, &sup) == 0, "read the supervisor record");
	uint64_t done0 = sup.parts_done;

	CHECK(sv_req(&sv, "retry 999\n", reply, sizeof reply) == 1 && strstr(reply, "no job 999"),
	      "retry of an unknown job: %s", reply);
	snprintf(line, sizeof line, "retry %llu\n", (unsigned long long)id);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "retry: %s", reply);
	sv_wait(&sv, id, 60 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_DONE, "retried job ended in state %u: %s", j.state, j.reason);
	CHECK(sv_verify(&sv, id) == 0, "retried job's result does not verify");
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 1 && strstr(reply, "is done"),
	      "retry of a done job: %s", reply);
	sv_wait_tick(&sv);	/* the count as of the job's end, published */
	CHECK(shm_read_sup(&sv.seg, &sup) == 0, "read the supervisor record");
	CHECK_EQ_U64(sup.parts_done - done0, 10 - kept);
	printf("info: retried: %u partitions kept, %llu proved again\n", kept,
	       (unsigned long long)(sup.parts_done - done0));

	/* Across a restart: job B, cancelled with partitions done, is
	 * retried and the supervisor stopped at once; the RETRY record
	 * brings it back at the next start, which completes it. Job C,
	 * cancelled and not retried, has its kept files removed then. */
	uint64_t b = sv_submit(&sv, "porep k=14"), c;
	for (unsigned i = 0; i < 2000 * t_slow() && !(sv_job(&sv, b, &j) >= 0 && parts_in(&j, SHM_PART_DONE) >= 2); i++)
		usleep(5000);
	snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)b);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "cancel: %s", reply);
	sv_wait(&sv, b, 30 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_CANCELLED, "job B state %u", j.state);
	printf("info: job %llu cancelled with %u partitions done\n", (unsigned long long)b,
	       parts_in(&j, SHM_PART_DONE));
	c = sv_submit(&sv, "porep k=14");
	for (unsigned i = 0; i < 2000 * t_slow() && !(sv_job(&sv, c, &j) >= 0 && j.state == SHM_JOB_RUNNING); i++)
		usleep(5000);
	snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)c);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "cancel C: %s", reply);
	snprintf(line, sizeof line, "retry %llu\n", (unsigned long long)b);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "retry B: %s", reply);
	crash_stop(&sv);
	sv_start(&sv, "retry", "--config", crash_conf, NULL);
	sv_wait(&sv, b, 60 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_DONE, "job B after the restart: state %u %s", j.state, j.reason);
	CHECK(sv_verify(&sv, b) == 0, "job B's result does not verify");
	char cdir[512];
	snprintf(cdir, sizeof cdir, "%s/jobs/%llu", sv.dir, (unsigned long long)c);
	CHECK(access(cdir, F_OK) != 0, "%s (a cancelled job's kept files) is still there", cdir);
	printf("info: job %llu retried, resumed after a restart, verifies\n", (unsigned long long)b);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
