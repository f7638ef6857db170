/*
 * keep_h: a kind with params and `keep_h = yes` ends in a proofs+H file,
 * each partition's proof followed by its H, every one of both checked
 * before the commit and by anyone after it.
 *
 * At start: keep_h on a kind without params refuses the start, in one
 * line naming the kind.
 * Supervisor (porep at k = 12, 3 partitions, params, keep_h; 2 gpu slots,
 * gpu.1 storing one wrong H beside a sound proof):
 *   - two porep jobs end done, each result a proofs+H file of exactly
 *     80 + P * (376 + 2^12 * 32 + 32) + 32 bytes;
 *   - `provisor verify --params` accepts every proof and every H (2P ok
 *     lines); without --params, every H, and one line says the proofs
 *     need --params; @noble/curves (with node_modules) accepts each
 *     proof cut out of the file at the documented offset;
 *   - gpu.1's wrong H was caught by a synth before the commit: gpu.1
 *     quarantined (wrong result), the log names the H;
 *   - jobs, status and status --json say the output is proofs+h; result
 *     --json lists the proofs with where their H is;
 *   - a copy with one byte of an H flipped, one truncated and one with a
 *     byte too many are each refused in one line, exit non-zero.
 */
#include "tests/pipeline/harness.h"

#define K 12
#define P 3
#define REGION (376 + (32u << K))
#define FILE_BYTES (80 + P * (REGION + 32) + 32)

static struct sv sv;
static char dir[256], conf_path[300], params[300];

static void cleanup(void)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
}

/* keep_h on porep, which has no params: the start is refused. */
static void refused_without_params(void)
{
	char out[400];
	FILE *f = fopen(conf_path, "w");

	CHECK(f, "fopen %s", conf_path);
	fprintf(f, "[kind.porep]\nlog_size = %d\nkeep_h = yes\n", K);
	fclose(f);
	snprintf(out, sizeof out, "%s/start.err", dir);
	CHECK(t_sh("%s/provisor run --name t-keeph-bad-%d --state-dir %s/badstate --config %s --backend cpu 2>%s",
		 sv_bin(), (int)getpid(), dir, conf_path, out) != 0, "started with keep_h and no params");
	if (t_sh("tail -n 1 %s | grep -q 'kind.porep: keep_h = yes needs params'", out)) {
		t_sh("cat %s", out);
		T_FAIL("keep_h without params: not refused in one line naming the kind");
	}
	printf("ok: keep_h without params refused at start\n");
}

/* A copy of result src with change (a shell command on $f; NULL: the low
 * bit of the byte at flip flipped) applied must be refused by verify
 * --params: a non-zero exit, and want on stderr. */
static void refused_copy(const char *src, const char *change, long flip, const char *want, const char *what)
{
	char copy[400], out[400];

	snprintf(copy, sizeof copy, "%s/t.result", dir);
	snprintf(out, sizeof out, "%s/t.err", dir);
	CHECK(t_sh("cp %s %s && f=%s && %s", src, copy, copy, change ? change : "true") == 0 &&
	      (change || t_flip(copy, flip) == 0), "%s: could not make the copy", what);
	CHECK(t_sh("%s/provisor verify --params %s %s >/dev/null 2>%s", sv_bin(), params, copy, out) != 0,
	      "%s: verified", what);
	if (t_sh("grep -q -- '%s' %s", want, out)) {
		t_sh("cat %s", out);
		T_FAIL("%s: no '%s' in verify's errors", what, want);
	}
	printf("ok: refused: %s\n", what);
}

int main(void)
{
	char reply[256], res[400], fault_state[300];
	struct shm_job j;
	struct shm_slot sl;
	struct stat st;
	uint64_t id[2];

	snprintf(dir, sizeof dir, "%s/provisor-test-keeph-files-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	atexit(cleanup);
	snprintf(conf_path, sizeof conf_path, "%s/conf", dir);
	snprintf(params, sizeof params, "%s/params%d", dir, K);
	CHECK(t_sh("%s/provisor setup --seed 5eed --log-size %d -o %s >/dev/null", sv_bin(), K, params) == 0, "setup");
	refused_without_params();

	FILE *f = fopen(conf_path, "w");
	CHECK(f, "fopen %s", conf_path);
	fprintf(f, "[kind.porep]\nlog_size = %d\npartitions = %d\nparams = %s\nkeep_h = yes\n", K, P, params);
	fclose(f);
	snprintf(fault_state, sizeof fault_state, "%s/fault", dir);
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu.1:store:flip:1", 1);
	sv_start(&sv, "keeph", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2", "--synth", "2",
		 "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	for (int i = 0; i < 2; i++)
		id[i] = sv_submit(&sv, "porep");
	for (int i = 0; i < 2; i++) {
		sv_wait(&sv, id[i], 120 * (int)t_slow(), &j);
		CHECK(j.state == SHM_JOB_DONE, "job %llu: state %u (%s)", (unsigned long long)id[i], j.state,
		      j.reason);
		CHECK(j.output == SHM_OUTPUT_PROOFS_H, "job %llu: output %u in the segment",
		      (unsigned long long)id[i], j.output);
		snprintf(res, sizeof res, "%s/results/job-%llu.result", sv.dir, (unsigned long long)id[i]);
		CHECK(stat(res, &st) == 0 && st.st_size == FILE_BYTES, "%s: %lld bytes, not %d", res,
		      (long long)st.st_size, FILE_BYTES);
		CHECK(t_sh("%s/provisor verify --params %s %s 2>&1 | grep -c ': ok$' | grep -qx %d", sv_bin(), params,
			 res, 2 * P) == 0, "job %llu: not %d proofs and %d H verified", (unsigned long long)id[i], P, P);
	}
	printf("ok: 2 jobs done, %d bytes each, every proof and H verified\n", FILE_BYTES);
	CHECK(t_sh("%s/provisor verify %s >%s/v.out 2>%s/v.err && grep -c ': ok$' %s/v.out | grep -qx %d && "
		 "grep -q 'its %d proofs were not (that needs --params PARAMS)' %s/v.err", sv_bin(), res, dir, dir,
		 dir, P, P, dir) == 0, "verify without --params: not every H checked and the proofs named unchecked");

	/* the wrong H beside a sound proof was caught before the commit */
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 1, &sl) == 0 && sl.state == SHM_SLOT_DISABLED &&
	      sl.disable_reason == SHM_DISABLE_WRONG_RESULT, "gpu.1 not quarantined: %s reason %u",
	      shm_slot_state_name(sl.state), sl.disable_reason);
	CHECK(t_sh("grep -q 'failed verification: its H: ' %s", sv.log) == 0, "the wrong H was not named in the log");

	if (access("tests/noble/node_modules/@noble/curves", F_OK) == 0) {
		for (uint32_t p = 0; p < P; p++)
			CHECK(t_sh("dd if=%s of=%s/proof bs=1 skip=%u count=376 status=none && "
				 "node tests/noble/verify_proof.mjs %s %s/proof 2>/dev/null | grep -qx ok", res, dir,
				 80 + p * REGION, params, dir) == 0, "noble refused partition %u's proof", p);
		printf("info: @noble/curves verified the %d proofs cut out of a proofs+H file\n", P);
	} else {
		printf("info: no @noble/curves (make deps): the oracle check skipped\n");
	}

	CHECK(t_sh("%s/provisor jobs --name %s | grep -E '^%llu +porep +proofs\\+h +done' >/dev/null", sv_bin(),
		 sv.name, (unsigned long long)id[0]) == 0, "jobs does not show the output as proofs+h");
	CHECK(t_sh("%s/provisor status --name %s | grep -q '^job %llu porep done: .*output proofs+h'", sv_bin(),
		 sv.name, (unsigned long long)id[0]) == 0, "status does not show the output as proofs+h");
	CHECK(t_sh("%s/provisor status --name %s --json | grep -q '\"output\": *\"proofs+h\"'", sv_bin(), sv.name) == 0,
	      "status --json does not show the output as proofs+h");
	CHECK(t_sh("%s/provisor result --name %s --json %llu | grep -o '\"h_offset\"' | wc -l | grep -qx %d", sv_bin(),
		 sv.name, (unsigned long long)id[1], P) == 0, "result --json does not list %d proofs with their H", P);

	/* an H's byte flipped (partition 1, H[5]'s low bit: still canonical) */
	refused_copy(res, NULL, 80 + REGION + 376 + 5 * 32,
		     "partition 1 (k=12, seed .*): FAILED: its region (proof and H) does not match its digest",
		     "a flipped byte in an H");
	refused_copy(res, "truncate -s -1 $f", 0, "truncated: ", "a truncated file");
	refused_copy(res, "printf x >>$f", 0, "trailing bytes", "a byte too many");

	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	CHECK(sv_reap(&sv, 30 * (int)t_slow()) == 0, "the supervisor did not stop cleanly");
	sv_check_clean(&sv);
	printf("ok\n");
	return 0;
}
