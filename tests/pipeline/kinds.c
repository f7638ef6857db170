/*
 * Every kind end to end: submit one job of each kind, wait, and verify
 * every result file with `provisor verify`. No kind bypasses begin/end:
 * every partition of every job was shown busy in a GPU slot's record, by
 * the slot its job record names, while it was proved (each gpuworker's
 * own trace, PROVISOR_TRACE_DIR, logs each begin it published, with the
 * job and partition it was given, and each end; how many ends were
 * published too is printed: a worker killed for a pre-emption just after
 * sending its result never publishes that end). Meanwhile a sampler reads
 * the GPU slots in a loop: every busy slot it sees must name a job that
 * was submitted (whether it saw each job is printed, info:, a short spell
 * may be missed).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "format/pfile.h"
#include "tests/pipeline/harness.h"

#define NKINDS 4

#define MAX_GEN (1u << 16)

static struct sv sv;
static uint64_t ids[NKINDS];
static _Atomic int seen[NKINDS], stray, sampling = 1;
static char trace_dir[200];

/* From the gpuworkers' traces, by generation: who began it (job, part,
 * slot), and whether it ended. */
static uint64_t b_job[MAX_GEN];
static uint32_t b_part[MAX_GEN], b_slot[MAX_GEN];
static int b_seen[MAX_GEN], e_seen[MAX_GEN];

static void trace_rm(void)
{
	char cmd[300];

	if (!trace_dir[0] || getenv("KEEP_LOG"))
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", trace_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", trace_dir);
}

static void trace_line(void *ctx, unsigned slot, unsigned file, const char *line)
{
	unsigned long long g, a, b, c;

	(void)ctx;
	(void)file;
	if (sscanf(line, "B %llu %llu %llu %llu", &g, &a, &b, &c) == 4 && g < MAX_GEN) {
		b_job[g] = a;
		b_part[g] = (uint32_t)b;
		b_slot[g] = slot;
		b_seen[g] = 1;
	} else if (sscanf(line, "E %llu %llu %llu", &g, &a, &b) == 3 && g < MAX_GEN) {
		e_seen[g] = 1;
	}
}

static unsigned read_traces(void)
{
	memset(b_seen, 0, sizeof b_seen);
	memset(e_seen, 0, sizeof e_seen);
	return sv_trace_lines(trace_dir, trace_line, NULL);
}

/* Partitions of jobs[] with no begin in the trace of the GPU slot their
 * job record names, the first one in *kk, *pp; those with an end of that
 * begin too in *ended. */
static unsigned missing(const struct shm_job *jobs, int *kk, uint32_t *pp, unsigned *ended)
{
	unsigned n = 0;

	*ended = 0;
	for (int k = 0; k < NKINDS; k++)
		for (uint32_t p = 0; p < jobs[k].nparts; p++) {
			uint32_t slot = jobs[k].part[p].gpu_slot;
			int found = 0, end = 0;
			for (uint32_t g = 1; g < MAX_GEN; g++)
				if (b_seen[g] && b_job[g] == ids[k] && b_part[g] == p && b_slot[g] == slot) {
					found = 1;
					end |= e_seen[g];
				}
			*ended += (unsigned)end;
			if (!found && !n++) {
				*kk = k;
				*pp = p;
			}
		}
	return n;
}

static uint64_t gpu_done(void)
{
	uint64_t done = 0;

	for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++) {
		struct shm_slot s;
		CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, i, &s) == 0, "read gpu.%u", i);
		done += s.done;
	}
	return done;
}

static void *sampler(void *arg)
{
	(void)arg;
	while (atomic_load(&sampling)) {
		usleep(200);	/* not a core of its own: the workers need it */
		for (uint32_t i = 0; i < shm_count(&sv.seg, SHM_T_GPU); i++) {
			struct shm_slot s;
			if (shm_read_slot(&sv.seg, SHM_T_GPU, i, &s) || s.state != SHM_SLOT_BUSY)
				continue;
			int known = 0;
			for (int k = 0; k < NKINDS; k++)
				if (ids[k] == s.job_id) {
					atomic_store(&seen[k], 1);
					known = 1;
				}
			if (!known && s.job_id)
				atomic_store(&stray, 1);
		}
	}
	return NULL;
}

int main(void)
{
	static const char *const kinds[NKINDS] = {
		"winning-post", "window-post partitions=3", "snap-deals", "porep",
	};
	static struct shm_job jobs[NKINDS];
	pthread_t t;
	struct shm_job j;

	snprintf(trace_dir, sizeof trace_dir, "%s/provisor-trace-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(trace_dir, 0700) == 0, "mkdir %s", trace_dir);
	atexit(trace_rm);
	setenv("PROVISOR_TRACE_DIR", trace_dir, 1);
	if (T_SANITIZER) {
		/* Under a sanitizer every kind at 2^12 and porep and snap-deals
		 * in 6 partitions: the claims do not depend on size, and the
		 * default sizes took most of a minute under ThreadSanitizer. */
		static char conf[300];
		snprintf(conf, sizeof conf, "%s/kinds.conf", trace_dir);
		FILE *f = fopen(conf, "w");
		CHECK(f, "fopen %s", conf);
		for (int k = 0; k < NKINDS; k++)
			fprintf(f, "[kind.%s]\nlog_size = 12\n%s", vocab_kind_name((unsigned)k + 1),
				k == 2 || k == 3 ? "partitions = 6\n" : "");
		CHECK(fclose(f) == 0, "write %s", conf);
		sv_start(&sv, "kinds", "--config", conf, NULL);
	} else {
		sv_start(&sv, "kinds", NULL);
	}
	for (int k = 0; k < NKINDS; k++)
		ids[k] = sv_submit(&sv, kinds[k]);
	pthread_create(&t, NULL, sampler, NULL);
	for (int k = 0; k < NKINDS; k++) {
		sv_wait(&sv, ids[k], 120 * (int)t_slow(), &j);
		jobs[k] = j;
		CHECK(j.state == SHM_JOB_DONE, "%s job ended %u: %s", kinds[k], j.state, j.reason);
		CHECK(j.kind == (uint32_t)k + 1, "job kind recorded %u", j.kind);
		for (uint32_t p = 0; p < j.nparts; p++)
			CHECK(j.part[p].state == SHM_PART_DONE && j.part[p].gpu_ns > 0 && j.part[p].synth_ns > 0,
			      "%s partition %u: state %u", kinds[k], p, j.part[p].state);
		CHECK(sv_verify(&sv, ids[k]) == 0, "%s result does not verify", kinds[k]);
		printf("info: %s: %u partitions of 2^%u, %.0f ms, verified\n", vocab_kind_name(j.kind),
		       j.nparts, j.log_size, (double)(j.end_mono_ns - j.submit_mono_ns) / 1e6);
	}
	atomic_store(&sampling, 0);
	pthread_join(t, NULL);
	CHECK(!atomic_load(&stray), "a busy slot named a job nobody submitted");
	for (int k = 0; k < NKINDS; k++)
		printf("info: %s: the sampler %s a GPU slot busy with it\n", kinds[k],
		       atomic_load(&seen[k]) ? "saw" : "never saw");

	/* Every partition begun in the record of the GPU slot its job names:
	 * the worker's trace logs the begin it published, with the job and
	 * partition it was given. A worker writes a result's frame before it
	 * publishes the end, so the last ends may land just after the job is
	 * seen done: read again until every end is there too, or a while
	 * (the ends are only counted; the bound only catches a hang). */
	uint64_t nparts = 0, done = 0;
	unsigned miss = 0, ended = 0;
	int mk = 0;
	uint32_t mp = 0;
	for (int k = 0; k < NKINDS; k++)
		for (uint32_t p = 0; p < jobs[k].nparts; p++, nparts++)
			CHECK(jobs[k].part[p].gpu_slot < shm_count(&sv.seg, SHM_T_GPU),
			      "%s partition %u: gpu slot %u", kinds[k], p, jobs[k].part[p].gpu_slot);
	for (unsigned i = 0; i < 100 * t_slow(); i++) {
		CHECK(read_traces() >= 1, "no traces from the gpuworkers");
		miss = missing(jobs, &mk, &mp, &ended);
		done = gpu_done();
		if (ended == nparts && done >= nparts)
			break;
		usleep(10000);
	}
	CHECK(!miss, "%u partitions were never shown busy in their GPU slot's record; the first: %s "
	      "partition %u in gpu.%u's", miss, kinds[mk], mp, jobs[mk].part[mp].gpu_slot);
	printf("info: %llu partitions, each shown busy in its GPU slot's record while proved; %u "
	       "ends published there, %llu counted done\n", (unsigned long long)nparts, ended,
	       (unsigned long long)done);
	/* The supervisor's totals count each kind's one job. */
	struct shm_sup sup;
	CHECK(shm_read_sup(&sv.seg, &sup) == 0, "sup record");
	CHECK_EQ_U64(sup.jobs_done, NKINDS);
	for (int k = 0; k < NKINDS; k++)
		CHECK(sup.jobs_done_kind[k] == 1, "%s: %llu jobs done by kind", kinds[k],
		      (unsigned long long)sup.jobs_done_kind[k]);

	char reply[256];
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	int status = sv_reap(&sv, 15);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "supervisor exit status %d", status);
	sv_check_clean(&sv);
	return 0;
}
