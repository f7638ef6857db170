/*
 * Proofs are the product: a kind with params ends in proofs, all of them
 * checked before the commit, by anyone after it.
 *
 * Supervisor 1 (porep at k = 12 with params from `provisor setup`; 2 GPU
 * slots, gpu.0 killed once right after a begin, gpu.1 storing one wrong
 * proof):
 *   - at start the params are validated once (the log says so) and kept in
 *     STATE/params; every gpu slot publishes a load time; a second start
 *     reuses the resident form without validating again;
 *   - three porep jobs (two under a sanitizer) end done, each result a
 *     proofs file of exactly 80 + P * (376 + 32) + 32 bytes, every proof
 *     of which `provisor verify --params` accepts and (with node_modules)
 *     @noble/curves too, from the documented format alone; `result
 *     --json` lists them all;
 *   - gpu.1's wrong proof was caught by the pairing before the commit:
 *     gpu.1 quarantined (wrong result), and still every committed proof
 *     verifies; gpu.0's death lost nothing;
 *   - a one-byte change to a committed proof is refused by verify;
 *   - a porep job at another k is refused at submit, in one line.
 * Supervisor 2 (no faults; preempt_after = 1 ms, a long preempt_grace;
 * the winning-post confined to gpu.0, which porep proofs keep busy):
 *   - a winning-post behind 12 porep proofs (6 under a sanitizer) takes
 *     gpu.0 back: an abandon is counted, no worker restarts (none
 *     killed), and the porep job's proofs all verify;
 *   - a cancelled porep job ends cancelled, its partitions cancelled, with
 *     no worker killed.
 */
#include "tests/pipeline/harness.h"

/* Sizes: fewer proofs under a sanitizer (no claim depends on how many).
 * The faults fire whatever the order the slots take partitions in:
 * gpu.1's first store is wrong, and gpu.0, alone once gpu.1 is
 * quarantined, dies in its second partition. (gpu.1's third store, as it
 * was, never came where gpu.0 took six of eight partitions.) */
#define NJOBS T_SIZE(3, 2)
#define WP_PARTS T_SIZE(12, 6)

static struct sv sv;
static char dir[256], conf_path[300], params[300], fault_state[300];

static void cleanup(void)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
}

/* pdir: find porep's params in that directory (params_dir) instead. */
static void write_conf(const char *extra, const char *wp, const char *pdir)
{
	FILE *f = fopen(conf_path, "w");

	CHECK(f, "fopen %s", conf_path);
	fprintf(f, "[supervisor]\npreempt_grace = %us\n%s\n", 10 * t_slow(), extra);
	if (pdir)
		fprintf(f, "params_dir = %s\n", pdir);
	fprintf(f, "[kind.porep]\nlog_size = 12\npartitions = 4\n");
	if (!pdir)
		fprintf(f, "params = %s\n", params);
	fprintf(f, "[kind.winning-post]\nlog_size = 10\n%s\n", wp);
	fclose(f);
}

/* The gpu slots' restarts (0) or preempted (1) counters, summed. */
static uint64_t gpu_sum(int which)
{
	uint64_t n = 0;
	struct shm_slot sl;

	for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++)
		if (shm_read_slot(&sv.seg, SHM_T_GPU, i, &sl) == 0)
			n += which ? sl.preempted : sl.restarts;
	return n;
}

#define restarts() gpu_sum(0)
#define preempted() gpu_sum(1)

/* verify --params on job id's result: its ok lines, or -1 on a failure. */
static int verify_proofs(uint64_t id)
{
	char out[400];

	snprintf(out, sizeof out, "%s/verify.out", dir);
	if (t_sh("%s/provisor verify --params %s %s/results/job-%llu.result >%s 2>&1", sv_bin(), params, sv.dir,
	       (unsigned long long)id, out))
		return -1;
	return t_sh("exit $(grep -c ': ok$' %s)", out);
}

static void supervisor1(void)
{
	struct shm_job j;
	struct shm_slot sl;
	struct stat st;
	char reply[256], log[400];
	uint64_t id[3];	/* NJOBS of them */

	write_conf("", "", NULL);
	snprintf(fault_state, sizeof fault_state, "%s/fault", dir);
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu.0:during:kill:1@1,gpu.1:store:flip:1", 1);
	sv_start(&sv, "proofs", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2", "--synth", "2",
		 "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	CHECK(t_sh("grep -q 'validating every point once' %s", sv.log) == 0, "no validation at the first start");
	CHECK(t_sh("ls %s/params/k12-*.resident >/dev/null", sv.dir) == 0, "no resident form in STATE/params");
	for (uint32_t i = 0; i < 2; i++) {
		CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, i, &sl) == 0, "slot");
		CHECK(sl.load_ns > 0 && sl.load_permille == 1000, "gpu.%u: load_ns %llu, %u permille", i,
		      (unsigned long long)sl.load_ns, sl.load_permille);
	}
	CHECK(sv_req(&sv, "submit porep k=11\n", reply, sizeof reply) == 1 &&
	      strstr(reply, "proves with params for log size 12"), "porep at k=11: %s", reply);
	for (int i = 0; i < NJOBS; i++)
		id[i] = sv_submit(&sv, "porep");
	for (int i = 0; i < NJOBS; i++) {
		sv_wait(&sv, id[i], 120 * (int)t_slow(), &j);
		CHECK(j.state == SHM_JOB_DONE, "job %llu: state %u (%s)", (unsigned long long)id[i],
		      j.state, j.reason);
		snprintf(log, sizeof log, "%s/results/job-%llu.result", sv.dir, (unsigned long long)id[i]);
		CHECK(stat(log, &st) == 0 && st.st_size == 80 + 4 * (376 + 32) + 32, "%s: %lld bytes", log,
		      (long long)st.st_size);
		CHECK(verify_proofs(id[i]) == 4, "job %llu: not 4 proofs verified", (unsigned long long)id[i]);
	}
	/* the faults fired, and were survived */
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 1, &sl) == 0 && sl.state == SHM_SLOT_DISABLED &&
	      sl.disable_reason == SHM_DISABLE_WRONG_RESULT, "gpu.1 not quarantined: %s reason %u",
	      shm_slot_state_name(sl.state), sl.disable_reason);
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 0, &sl) == 0 && sl.restarts >= 1, "gpu.0 was not restarted");
	CHECK(t_sh("grep -q 'fails the pairing check' %s", sv.log) == 0, "the wrong proof was not named");
	/* @noble/curves on every region, as docs/formats.md lays them out */
	if (access("tests/noble/node_modules/@noble/curves", F_OK) == 0) {
		for (uint32_t p = 0; p < 4; p++)
			CHECK(t_sh("dd if=%s/results/job-%llu.result of=%s/proof bs=1 skip=%u count=376 status=none && "
				 "node tests/noble/verify_proof.mjs %s %s/proof 2>/dev/null | grep -qx ok",
				 sv.dir, (unsigned long long)id[0], dir, 80 + p * 376, params, dir) == 0,
			      "noble refused partition %u's proof", p);
		printf("info: @noble/curves verified job %llu's 4 proofs\n", (unsigned long long)id[0]);
	} else {
		printf("info: no @noble/curves (make deps): the oracle check skipped\n");
	}
	CHECK(t_sh("%s/provisor jobs --name %s | grep -E '^%llu +porep +proofs +done' >/dev/null", sv_bin(), sv.name,
		 (unsigned long long)id[0]) == 0, "jobs does not show job %llu's output as proofs",
	      (unsigned long long)id[0]);
	CHECK(t_sh("%s/provisor status --name %s --json | grep -q '\"output\": *\"proofs\"' && "
		 "%s/provisor status --name %s --json | grep -q '\"load_seconds\"'", sv_bin(), sv.name, sv_bin(),
		 sv.name) == 0, "status --json has no proofs output or load time");
	CHECK(t_sh("%s/provisor result --name %s --json %llu | grep -o '\"partition\"' | wc -l | grep -qx 4",
		 sv_bin(), sv.name, (unsigned long long)id[1]) == 0, "result --json does not list 4 proofs");
	/* a tampered copy: the low bit of partition 2's A (offset 152 in it) */
	char tampered[400];
	snprintf(tampered, sizeof tampered, "%s/t.result", dir);
	CHECK(t_sh("cp %s/results/job-%llu.result %s", sv.dir, (unsigned long long)id[NJOBS - 1], tampered) == 0 &&
	      t_flip(tampered, 80 + 2 * 376 + 200) == 0, "tamper");
	CHECK(t_sh("%s/provisor verify --params %s %s/t.result >/dev/null 2>&1", sv_bin(), params, dir) != 0,
	      "a tampered proofs file verified");
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	CHECK(sv_reap(&sv, 30 * (int)t_slow()) == 0, "supervisor 1 did not stop cleanly");
	sv_check_clean(&sv);
}

static void supervisor2(void)
{
	struct shm_job j, w;
	char reply[256];

	/* the winning-post may run only on gpu.0, kept busy with porep proofs,
	 * and may take back a running one 1 ms after it is ready: the
	 * pre-emption must happen (in the MSMs, mostly: they are the proof) */
	/* porep's params found in a directory by k (a hard link: the same
	 * file, so its resident form is still current) */
	char pdir[400];
	snprintf(pdir, sizeof pdir, "%s/pdir", dir);
	CHECK(t_sh("mkdir %s && ln %s %s/porep12.params && echo notes > %s/README", pdir, params, pdir, pdir) == 0,
	      "params dir");
	write_conf("preempt_after = 1ms", "slots = gpu.0", pdir);
	sv_start(&sv, "proofs", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2", "--synth", "2",
		 "--backend", "cpu", NULL);
	CHECK(t_sh("grep -c 'validating every point once' %s | grep -qx 0", sv.log) == 0,
	      "the second start validated the params again");
	CHECK(t_sh("grep -q 'params %s/porep12.params: k=12.*for kind porep' %s", pdir, sv.log) == 0,
	      "params_dir: porep's params not found by k");
	/* pre-emption behind proofs: no worker killed */
	char sub[64];
	snprintf(sub, sizeof sub, "porep partitions=%d", WP_PARTS);
	uint64_t porep = sv_submit(&sv, sub);
	struct shm_slot a;
	for (int i = 0; i < 2000 * (int)t_slow(); i++) {
		if (shm_read_slot(&sv.seg, SHM_T_GPU, 0, &a) == 0 && a.state == SHM_SLOT_BUSY && a.job_id == porep)
			break;
		usleep(5000);
	}
	CHECK(a.state == SHM_SLOT_BUSY && a.job_id == porep, "gpu.0 never held a porep partition");
	uint64_t wp = sv_submit(&sv, "winning-post");
	sv_wait(&sv, wp, 60 * (int)t_slow(), &w);
	CHECK(w.state == SHM_JOB_DONE, "winning-post: state %u", w.state);
	sv_wait(&sv, porep, 180 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_DONE, "porep: state %u (%s)", j.state, j.reason);
	CHECK(verify_proofs(porep) == WP_PARTS, "porep's %d proofs do not all verify", WP_PARTS);
	CHECK(sv_verify(&sv, wp) == 0, "the winning-post's H does not verify");
	printf("info: %llu partition(s) taken back for the winning-post, %llu worker restart(s)\n",
	       (unsigned long long)preempted(), (unsigned long long)restarts());
	CHECK(preempted() >= 1, "nothing was taken back for the winning-post");
	if (restarts())
		SV_FAIL("a worker was restarted: killed for the pre-emption?");
	/* cancel abandons proofs in flight, and kills nothing */
	uint64_t c = sv_submit(&sv, sub);
	for (int i = 0; i < 2000 * (int)t_slow(); i++) {
		if (shm_read_slot(&sv.seg, SHM_T_GPU, 0, &a) == 0 && a.state == SHM_SLOT_BUSY && a.job_id == c)
			break;
		usleep(5000);
	}
	char line[64];
	snprintf(line, sizeof line, "cancel %llu\n", (unsigned long long)c);
	CHECK(sv_req(&sv, line, reply, sizeof reply) == 0, "cancel: %s", reply);
	sv_wait(&sv, c, 30 * (int)t_slow(), &j);
	CHECK(j.state == SHM_JOB_CANCELLED, "cancelled job: state %u", j.state);
	for (uint32_t p = 0; p < j.nparts; p++)
		CHECK(j.part[p].state == SHM_PART_DONE || j.part[p].state == SHM_PART_CANCELLED,
		      "partition %u ends %u", p, j.part[p].state);
	for (int i = 0; i < 2000 * (int)t_slow(); i++) {
		struct shm_slot a, b;
		if (shm_read_slot(&sv.seg, SHM_T_GPU, 0, &a) == 0 && shm_read_slot(&sv.seg, SHM_T_GPU, 1, &b) == 0 &&
		    a.state == SHM_SLOT_IDLE && b.state == SHM_SLOT_IDLE)
			break;
		usleep(5000);
	}
	if (restarts())
		SV_FAIL("a worker was restarted after the cancel");
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	CHECK(sv_reap(&sv, 30 * (int)t_slow()) == 0, "supervisor 2 did not stop cleanly");
	sv_check_clean(&sv);
}

/* provisor run with params PATH for porep (log_size k) must refuse to
 * start: a non-zero exit, and its last line names the problem (want). */
static void start_refused(const char *path, unsigned k, const char *want)
{
	char out[400];
	FILE *f = fopen(conf_path, "w");

	CHECK(f, "fopen");
	fprintf(f, "[kind.porep]\nlog_size = %u\nparams = %s\n", k, path);
	fclose(f);
	snprintf(out, sizeof out, "%s/start.err", dir);
	CHECK(t_sh("%s/provisor run --name t-proofs-bad-%d --state-dir %s/badstate --config %s --backend cpu "
		 "2>%s", sv_bin(), (int)getpid(), dir, conf_path, out) != 0, "started with params %s", path);
	if (t_sh("tail -n 1 %s | grep -q -- '%s'", out, want)) {
		t_sh("cat %s", out);
		T_FAIL("start with %s: no '%s' in its last line", path, want);
	}
	printf("ok: refused at start: %s\n", want);
}

int main(void)
{
	snprintf(dir, sizeof dir, "%s/provisor-test-proofs-files-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	atexit(cleanup);
	snprintf(conf_path, sizeof conf_path, "%s/conf", dir);
	snprintf(params, sizeof params, "%s/params12", dir);
	CHECK(t_sh("%s/provisor setup --seed 5eed --log-size 12 -o %s >/dev/null", sv_bin(), params) == 0, "setup");
	start_refused("/nonexistent/params", 12, "kind.porep: params /nonexistent/params: cannot open: No such file");
	start_refused(params, 13, "params .* are for k=12, but its log_size is 13");
	CHECK(t_sh("cp %s %s/damaged && printf '\\001' | dd of=%s/damaged bs=1 seek=5000 conv=notrunc status=none",
		 params, dir, dir) == 0, "damage");
	char damaged[400];
	snprintf(damaged, sizeof damaged, "%s/damaged", dir);
	start_refused(damaged, 12, "checksum mismatch");
	{	/* params_dir with two files for porep's k: which one? refused */
		FILE *f = fopen(conf_path, "w");
		CHECK(f, "fopen");
		fprintf(f, "[supervisor]\nparams_dir = %s\n[kind.porep]\nlog_size = 12\n", dir);
		fclose(f);
		CHECK(t_sh("%s/provisor run --name t-proofs-dir-%d --state-dir %s/badstate --config %s --backend cpu "
			 "2>&1 | tail -n 1 | grep -q 'has two params files for k=12'", sv_bin(), (int)getpid(), dir,
			 conf_path) == 0, "params_dir with two k=12 files was not refused");
		printf("ok: refused at start: params_dir with two files for one k\n");
	}
	supervisor1();
	supervisor2();
	/* provisor params: list, a stale source, load, evict */
	CHECK(t_sh("%s/provisor params list --state-dir %s | grep -E '^k12-.* 12 .* same +%s$' >/dev/null", sv_bin(),
		 sv.dir, params) == 0, "params list does not show the resident k=12 params as current");
	CHECK(t_sh("touch -d '1 hour ago' %s && %s/provisor params list --state-dir %s | grep -q ' stale '", params,
		 sv_bin(), sv.dir) == 0, "params list does not see the source changed");
	CHECK(t_sh("%s/provisor params load %s --state-dir %s | grep -q 'validated in'", sv_bin(), params, sv.dir) == 0,
	      "params load did not validate a changed source");
	CHECK(t_sh("%s/provisor params load %s --state-dir %s | grep -q 'already resident and valid'", sv_bin(), params,
		 sv.dir) == 0, "a second params load validated again");
	CHECK(t_sh("%s/provisor params evict --remove %s --state-dir %s >/dev/null && "
		 "%s/provisor params list --state-dir %s | grep -q '(none'", sv_bin(), params, sv.dir, sv_bin(), sv.dir) == 0,
	      "params evict --remove left the resident file");
	printf("ok\n");
	return 0;
}
