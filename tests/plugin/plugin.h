/*
 * Helpers for the backend plugin tests: porep at k = 12 with params from
 * `provisor setup` (4 partitions, proofs), a supervisor with one GPU of
 * two worker slots and two synths whose gpuworkers run a plugin
 * (bin/plugins/NAME.so, gpuworker/backend.h), misbehave.so told what to
 * do by PROVISOR_MISBEHAVE (plugins/misbehave.c). Each test states one
 * claim; every one ends with the jobs' proofs verified by the pairing.
 */
#ifndef TESTS_PLUGIN_PLUGIN_H
#define TESTS_PLUGIN_PLUGIN_H

#include <limits.h>
#include <stdlib.h>

#include "tests/crash/common.h"

static char plug_dir[256], plug_params[300], plug_conf[300], plug_arg[PATH_MAX + 16];

static inline void plug_cleanup(void)
{
	char cmd[400];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", plug_dir);
	if (system(cmd)) {
	}
}

static inline int plug_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* Params, then a supervisor whose gpuworkers run plugin (cpu, misbehave;
 * NULL: the built-in cpu backend) misbehaving as mode says (NULL:
 * behaving); extra: more configuration, after the [kind.porep] lines. */
static inline void plug_start(struct sv *v, const char *tag, const char *plugin, const char *mode, const char *extra)
{
	char so[PATH_MAX], rel[300];

	snprintf(plug_dir, sizeof plug_dir, "%s/provisor-test-plugin-%d", t_tmpdir(), (int)getpid());
	if (access(plug_dir, F_OK) != 0) {
		CHECK(mkdir(plug_dir, 0700) == 0, "mkdir %s", plug_dir);
		atexit(plug_cleanup);
		snprintf(plug_params, sizeof plug_params, "%s/params12", plug_dir);
		CHECK(plug_sh("%s/provisor setup --seed 5eed --log-size 12 -o %s >/dev/null", sv_bin(),
			      plug_params) == 0, "setup");
	}
	snprintf(plug_arg, sizeof plug_arg, "cpu");
	if (plugin) {
		snprintf(rel, sizeof rel, "%s/plugins/%s.so", sv_bin(), plugin);
		CHECK(realpath(rel, so), "no plugin %s (make programs)", rel);
		snprintf(plug_arg, sizeof plug_arg, "plugin:%s", so);
	}
	snprintf(plug_conf, sizeof plug_conf, "%s/conf", plug_dir);
	FILE *f = fopen(plug_conf, "w");
	CHECK(f, "fopen %s", plug_conf);
	fprintf(f, "[kind.porep]\nlog_size = 12\npartitions = 4\nparams = %s\n%s\n", plug_params,
		extra ? extra : "");
	fclose(f);
	if (mode)
		setenv("PROVISOR_MISBEHAVE", mode, 1);
	else
		unsetenv("PROVISOR_MISBEHAVE");
	sv_start(v, tag, "--config", plug_conf, "--gpus", "1", "--workers-per-gpu", "2", "--synth", "2",
		 "--backend", plug_arg, NULL);
	unsetenv("PROVISOR_MISBEHAVE");
}

/* Job id ends done and every one of its 4 proofs passes verify --params. */
static inline void plug_proofs_ok(struct sv *v, uint64_t id, int timeout_s)
{
	struct shm_job j;
	char out[400];

	sv_wait(v, id, timeout_s * (int)t_slow(), &j);
	if (j.state != SHM_JOB_DONE)
		SV_FAIL("job %llu ended in state %u: %s", (unsigned long long)id, j.state, j.reason);
	snprintf(out, sizeof out, "%s/verify.out", plug_dir);
	CHECK(plug_sh("%s/provisor verify --params %s %s/results/job-%llu.result >%s 2>&1", sv_bin(), plug_params,
		      v->dir, (unsigned long long)id, out) == 0, "job %llu: its proofs do not verify",
	      (unsigned long long)id);
	CHECK(plug_sh("grep -c ': ok$' %s | grep -qx 4", out) == 0, "job %llu: not 4 proofs verified",
	      (unsigned long long)id);
}

/* Slot gpu.i's record. */
static inline struct shm_slot plug_slot(struct sv *v, uint32_t i)
{
	struct shm_slot s;

	CHECK(shm_read_slot(&v->seg, SHM_T_GPU, i, &s) == 0, "read gpu.%u", i);
	return s;
}

/* provisor status [opt] of v must print want. */
static inline void plug_status_says(struct sv *v, const char *opt, const char *want)
{
	CHECK(plug_sh("%s/provisor status --name %s %s | grep -qF -- '%s'", sv_bin(), v->name, opt, want) == 0,
	      "status %s does not say '%s'", opt, want);
}

/* The supervisor's record, after a few ticks (its counters are published
 * at a tick) once cond holds, or the last one read. */
#define PLUG_SUP_WHEN(v, sup, cond) \
	for (int plug_i_ = 0; plug_i_ < 10 && (shm_read_sup(&(v)->seg, &(sup)) || !(cond)); plug_i_++) \
		sv_wait_tick(v)

#endif
