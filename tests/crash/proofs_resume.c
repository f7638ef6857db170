/*
 * A proofs job survives its supervisor: the proofs stored before a
 * SIGKILL are kept, not proved again, and each kept one is checked (the
 * pairing, with x_out derived by a synth from the identity) before the
 * commit, since whoever stored it could have written its digest too.
 *
 * Supervisor 1 (porep at k = 12, 8 partitions, params; 1 gpu slot whose
 * fourth partition hangs): three proofs are stored, and once their
 * digests are in the file's table (written after the partition shows
 * done), it is killed.
 * Between the runs the test forges partition 0: its region is replaced by
 * partition 1's proof, with the digest table entry made to match.
 * Supervisor 2 (no faults) resumes the job:
 *   - the log says 3 of 8 partitions were kept;
 *   - the forged one fails its check (it names another partition) and is
 *     proved again; the two sound ones are not: the gpu slots of
 *     supervisor 2 end 6 partitions, not 8;
 *   - every proof of the committed result verifies (provisor verify).
 */
#include "tests/crash/common.h"

#include "format/pfile.h"

#define P 8
#define REGION 376

static struct sv sv, again;
static char dir[256], params[300], conf[300], state[300];

static void cleanup(void)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
}

static int parts_done(uint64_t id)
{
	struct shm_job j;
	int n = 0;

	if (sv_job(&sv, id, &j) < 0)
		return -1;
	for (uint32_t p = 0; p < j.nparts; p++)
		n += j.part[p].state == SHM_PART_DONE;
	return n;
}

/* Region 0 of the kept file becomes region 1's bytes; table entry 0 the
 * digest of them. */
static void forge(const char *path)
{
	uint8_t region[REGION], d[32];
	struct pfile_digest dg;
	int fd = open(path, O_RDWR);

	CHECK(fd >= 0, "open %s", path);
	CHECK(pread(fd, region, REGION, 80 + REGION) == REGION, "read region 1");
	pfile_digest_init(&dg);
	pfile_digest_update(&dg, region, REGION);
	pfile_digest_final(&dg, d);
	CHECK(pwrite(fd, region, REGION, 80) == REGION, "write region 0");
	CHECK(pwrite(fd, d, 32, 80 + P * REGION) == 32, "write table entry 0");
	close(fd);
}

int main(void)
{
	char fault_state[300], path[400], line[512];
	struct shm_job j;
	struct shm_slot sl;
	uint64_t id, made = 0;
	int kept = -1, forged = 0;

	snprintf(dir, sizeof dir, "%s/provisor-test-presume-files-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	atexit(cleanup);
	snprintf(params, sizeof params, "%s/params12", dir);
	snprintf(conf, sizeof conf, "%s/conf", dir);
	CHECK(t_sh("%s/provisor setup --seed 5eed --log-size 12 -o %s >/dev/null", sv_bin(), params) == 0, "setup");
	FILE *f = fopen(conf, "w");
	CHECK(f, "fopen %s", conf);
	fprintf(f, "[kind.porep]\nlog_size = 12\npartitions = %d\nparams = %s\n", P, params);
	fclose(f);

	snprintf(fault_state, sizeof fault_state, "%s/fault", dir);
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu:during:hang:inf@3", 1);
	sv_start(&sv, "presume", "--config", conf, "--gpus", "1", "--synth", "1", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	id = sv_submit(&sv, "porep");
	for (int i = 0; i < 3000 * (int)t_slow() && parts_done(id) < 3; i++)
		usleep(10000);
	CHECK(parts_done(id) == 3, "job %llu: %d partitions done, not 3", (unsigned long long)id, parts_done(id));
	snprintf(path, sizeof path, "%s/jobs/%llu/result.partial", sv.dir, (unsigned long long)id);
	crash_wait_table(path, PFILE_KIND_PROOFS, 12, P, 3);
	kill(sv.pid, SIGKILL);
	sv_reap(&sv, 10);
	shm_close(&sv.seg);
	sv.mapped = 0;

	snprintf(state, sizeof state, "%s", sv.dir);
	snprintf(path, sizeof path, "%s/jobs/%llu/result.partial", state, (unsigned long long)id);
	forge(path);

	sv_start(&again, "presume", "--config", conf, "--gpus", "1", "--synth", "1", "--backend", "cpu", NULL);
	sv_wait(&again, id, 120 * (int)t_slow(), &j);
	if (j.state != SHM_JOB_DONE)
		SV_FAIL("job %llu ended in state %u: %s", (unsigned long long)id, j.state, j.reason);
	for (uint32_t i = 0; i < shm_count(&again.seg, SHM_T_GPU); i++)
		if (shm_read_slot(&again.seg, SHM_T_GPU, i, &sl) == 0)
			made += sl.done;
	CHECK(t_sh("%s/provisor verify --params %s %s/results/job-%llu.result | grep -c ': ok$' | grep -qx %d",
		 sv_bin(), params, state, (unsigned long long)id, P) == 0, "not %d proofs verified", P);
	f = fopen(again.log, "r");
	while (f && fgets(line, sizeof line, f)) {
		unsigned a, b;
		const char *q = strstr(line, "resumed from the journal (");
		if (q && sscanf(q, "resumed from the journal (%u of %u", &a, &b) == 2)
			kept = (int)a;
		forged += strstr(line, "partition 0: a kept proof failed its check") != NULL;
	}
	if (f)
		fclose(f);
	printf("info: %d of %d proofs kept across the kill, %d of them forged; %llu proved after restart\n",
	       kept, P, forged, (unsigned long long)made);
	CHECK(kept == 3, "the resume kept %d partitions, not 3", kept);
	CHECK(forged == 1, "the forged proof of partition 0 was not caught by its check");
	CHECK(made == P - 3 + 1, "supervisor 2 proved %llu partitions, not %d: kept proofs proved again?",
	      (unsigned long long)made, P - 3 + 1);
	crash_stop(&again);
	sv_check_clean(&again);
	return 0;
}
