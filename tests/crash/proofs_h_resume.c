/*
 * A proofs+H job (keep_h) survives its supervisor: the regions stored
 * before a SIGKILL, each a proof and its H, are kept, not proved again,
 * and each kept one is checked whole by a synth (its digest, the H
 * against the partition, the proof by the pairing with x_out derived from
 * the identity) before the commit.
 *
 * Supervisor 1 (porep at k = 12, 4 partitions, params, keep_h; 1 gpu slot
 * whose third partition hangs): two regions are stored, and once their
 * digests are in the file's table, it is killed. Between the runs the test forges partition 0's H: one bit of
 * H[5] changed, its table entry made to match, so that only the H's
 * check can tell. Supervisor 2 (no faults) resumes the job:
 *   - the log says 2 of 4 partitions were kept;
 *   - the forged one fails its check (its H) and is proved again; the
 *     sound one is not: supervisor 2's gpu slot ends 3 partitions;
 *   - every proof and every H of the committed result verifies.
 */
#include "tests/crash/common.h"

#include "format/pfile.h"

#define K 12
#define P 4

static struct sv sv, again;
static char dir[256], params[300], conf[300];

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

/* Partition 0's H[5] gets its lowest bit flipped (still canonical, still
 * the same proof); table entry 0 becomes the digest of the region so
 * changed. */
static void forge(const char *path)
{
	uint64_t region = pfile_res_region(PFILE_KIND_PROOFS_H, K), off = pfile_res_part_off(PFILE_KIND_PROOFS_H, K, 0);
	uint8_t *r = malloc(region), d[32];
	struct pfile_digest dg;
	int fd = open(path, O_RDWR);

	CHECK(fd >= 0 && r, "open %s", path);
	CHECK(pread(fd, r, region, (off_t)off) == (ssize_t)region, "read region 0");
	r[PFILE_PROOF_REGION + 5 * 32] ^= 1;
	pfile_digest_init(&dg);
	pfile_digest_update(&dg, r, region);
	pfile_digest_final(&dg, d);
	CHECK(pwrite(fd, r, region, (off_t)off) == (ssize_t)region, "write region 0");
	CHECK(pwrite(fd, d, 32, (off_t)pfile_res_table_off(PFILE_KIND_PROOFS_H, K, P)) == 32, "write table entry 0");
	close(fd);
	free(r);
}

int main(void)
{
	char fault_state[300], path[400], line[512];
	struct shm_job j;
	struct shm_slot sl;
	uint64_t id, made = 0;
	int kept = -1, forged = 0;

	snprintf(dir, sizeof dir, "%s/provisor-test-phresume-files-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	atexit(cleanup);
	snprintf(params, sizeof params, "%s/params%d", dir, K);
	snprintf(conf, sizeof conf, "%s/conf", dir);
	CHECK(t_sh("%s/provisor setup --seed 5eed --log-size %d -o %s >/dev/null", sv_bin(), K, params) == 0, "setup");
	FILE *f = fopen(conf, "w");
	CHECK(f, "fopen %s", conf);
	fprintf(f, "[kind.porep]\nlog_size = %d\npartitions = %d\nparams = %s\nkeep_h = yes\n", K, P, params);
	fclose(f);

	snprintf(fault_state, sizeof fault_state, "%s/fault", dir);
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu:during:hang:inf@2", 1);
	sv_start(&sv, "phresume", "--config", conf, "--gpus", "1", "--synth", "1", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	id = sv_submit(&sv, "porep");
	for (int i = 0; i < 3000 * (int)t_slow() && parts_done(id) < 2; i++)
		usleep(10000);
	CHECK(parts_done(id) == 2, "job %llu: %d partitions done, not 2", (unsigned long long)id, parts_done(id));
	snprintf(path, sizeof path, "%s/jobs/%llu/result.partial", sv.dir, (unsigned long long)id);
	crash_wait_table(path, PFILE_KIND_PROOFS_H, K, P, 2);
	kill(sv.pid, SIGKILL);
	sv_reap(&sv, 10);
	shm_close(&sv.seg);
	sv.mapped = 0;

	snprintf(path, sizeof path, "%s/jobs/%llu/result.partial", sv.dir, (unsigned long long)id);
	forge(path);

	sv_start(&again, "phresume", "--config", conf, "--gpus", "1", "--synth", "1", "--backend", "cpu", NULL);
	sv_wait(&again, id, 120 * (int)t_slow(), &j);
	if (j.state != SHM_JOB_DONE)
		SV_FAIL("job %llu ended in state %u: %s", (unsigned long long)id, j.state, j.reason);
	for (uint32_t i = 0; i < shm_count(&again.seg, SHM_T_GPU); i++)
		if (shm_read_slot(&again.seg, SHM_T_GPU, i, &sl) == 0)
			made += sl.done;
	CHECK(t_sh("%s/provisor verify --params %s %s/results/job-%llu.result | grep -c ': ok$' | grep -qx %d",
		 sv_bin(), params, again.dir, (unsigned long long)id, 2 * P) == 0, "not %d proofs and %d H verified",
	      P, P);
	f = fopen(again.log, "r");
	while (f && fgets(line, sizeof line, f)) {
		unsigned a, b;
		const char *q = strstr(line, "resumed from the journal (");
		if (q && sscanf(q, "resumed from the journal (%u of %u", &a, &b) == 2)
			kept = (int)a;
		forged += strstr(line, "partition 0: a kept proof failed its check (its H: ") != NULL;
	}
	if (f)
		fclose(f);
	printf("info: %d of %d regions kept across the kill, %d of them forged; %llu proved after restart\n", kept,
	       P, forged, (unsigned long long)made);
	CHECK(kept == 2, "the resume kept %d partitions, not 2", kept);
	CHECK(forged == 1, "the forged H of partition 0 was not caught by its check");
	CHECK(made == P - 2 + 1, "supervisor 2 proved %llu partitions, not %d: kept regions proved again?",
	      (unsigned long long)made, P - 2 + 1);
	crash_stop(&again);
	sv_check_clean(&again);
	return 0;
}
