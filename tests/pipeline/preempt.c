/*
 * Pre-emption: both GPU slots and both synths saturated by a big
 * low-priority porep job, a winning-post still gets through at once.
 *
 * 1. Abandon on request: the winning-post completes long before one
 *    porep partition could have (their time is measured first, on the same
 *    supervisor); partitions were taken back (sup.preemptions, the slots'
 *    preempted, SHM_EV_PREEMPT events) without counting as failures or
 *    attempts (sup.parts_failed 0, every attempt count 0, no crash event);
 *    both jobs complete and their results verify.
 * 0. Reservation: with [kind.winning-post] reserve = 1 a porep job never
 *    has both GPU slots at once (sampled all along), and a winning-post
 *    then finds its slot free.
 * 2. The kill fallback: the gpuworker's proving thread hangs (fault
 *    injection: gpu:during:hang), so it never reaches a safe point; it is
 *    killed after the grace period and replaced, which is no crash and no
 *    failure either, and the winning-post still gets through quickly.
 */
#include <stdlib.h>

#include "tests/pipeline/harness.h"

#define K_BIG 19

static struct sv sv0, sv1, sv2;
static char conf_path[256], fault_state[256];

static void cleanup(void)
{
	unlink(conf_path);
	unlink(fault_state);
}

/* restart_intensity 2: were a pre-emption kill a crash, the slot would
 * soon be disabled. extra: more lines. */
static void write_conf(const char *extra)
{
	FILE *f;

	snprintf(conf_path, sizeof conf_path, "%s/provisor-test-preempt-%d.conf", t_tmpdir(), (int)getpid());
	f = fopen(conf_path, "w");
	CHECK(f, "fopen %s", conf_path);
	fprintf(f, "[supervisor]\npreempt_after = 100ms\nrestart_intensity = 2\n%s", extra);
	fclose(f);
}

/* Events of one type since the start, and whether any is of type bad. */
static int count_events(struct sv *v, uint32_t type, uint32_t bad, int *saw_bad)
{
	uint64_t head = shm_event_head(&v->seg);
	struct shm_event ev;
	int n = 0;

	*saw_bad = 0;
	for (uint64_t q = 1; q <= head; q++)
		if (shm_read_event(&v->seg, q, &ev) == 0) {
			n += ev.type == type;
			if (ev.type == bad) {
				*saw_bad = 1;
				printf("info: unexpected event: %s\n", ev.msg);
			}
		}
	return n;
}

/* Wait until both GPU slots are busy with job id. */
static void wait_busy(struct sv *v, uint64_t id)
{
	for (int i = 0; i < 3000; i++) {
		int busy = 0;
		for (uint32_t s = 0; s < shm_count(&v->seg, SHM_T_GPU); s++) {
			struct shm_slot sl;
			busy += shm_read_slot(&v->seg, SHM_T_GPU, s, &sl) == 0 &&
				sl.state == SHM_SLOT_BUSY && sl.job_id == id;
		}
		if (busy == (int)shm_count(&v->seg, SHM_T_GPU))
			return;
		usleep(5000);
	}
	SV_FAIL("the GPU slots did not both get busy with job %llu", (unsigned long long)id);
}

static uint64_t slots_sum(struct sv *v, int what)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < shm_count(&v->seg, SHM_T_GPU); s++) {
		struct shm_slot sl;
		if (shm_read_slot(&v->seg, SHM_T_GPU, s, &sl) == 0)
			n += what == 0 ? sl.preempted : what == 1 ? sl.failed : what == 2 ? sl.restarts : sl.pid;
	}
	return n;
}

/* Saturate with a porep job, then a winning-post; returns its latency
 * (submit to done) in ms and checks everything the header says. */
static double run_case(struct sv *v, double part_ms, int kill_expected)
{
	struct shm_job j, wj;
	struct shm_sup st;
	char args[64];
	int bad;

	snprintf(args, sizeof args, "porep k=%d partitions=6", K_BIG);
	uint64_t big = sv_submit(v, args);
	wait_busy(v, big);
	usleep(50000);	/* and the next partitions prefetched behind */
	uint64_t pids0 = slots_sum(v, 3);
	uint64_t wp = sv_submit(v, "winning-post k=14");
	sv_wait(v, wp, 30, &wj);
	double wp_ms = (double)(wj.end_mono_ns - wj.submit_mono_ns) / 1e6;
	CHECK(wj.state == SHM_JOB_DONE, "winning-post ended %u: %s", wj.state, wj.reason);
	CHECK(sv_job(v, big, &j) >= 0 && !sv_job_over(&j), "the porep job ended before the winning-post");
	printf("info: winning-post behind a saturated k=%d porep: %.0f ms (one porep partition: %.0f ms)\n",
	       K_BIG, wp_ms, part_ms);
	/* Without pre-emption it waits for a running partition (and the
	 * one prefetched behind it): at least one whole partition. */
	CHECK(wp_ms < part_ms * 0.8, "winning-post took %.0f ms, a porep partition %.0f ms", wp_ms,
	      part_ms);
	sv_wait(v, big, 60, &j);
	CHECK(j.state == SHM_JOB_DONE, "porep ended %u: %s", j.state, j.reason);
	for (uint32_t p = 0; p < j.nparts; p++)
		CHECK(j.part[p].attempts == 0, "porep partition %u counted %u attempts", p,
		      j.part[p].attempts);
	CHECK(shm_read_sup(&v->seg, &st) == 0, "read sup");
	printf("info: sup.preemptions %llu, slots' preempted %llu, gpuworkers replaced: %s\n",
	       (unsigned long long)st.preemptions, (unsigned long long)slots_sum(v, 0),
	       slots_sum(v, 3) != pids0 ? "yes" : "no");
	CHECK(st.preemptions >= 1, "no pre-emption counted");
	if (st.parts_failed) {	/* say which, from the events */
		int b;
		count_events(v, SHM_EV_NONE, SHM_EV_INFO, &b);
		count_events(v, SHM_EV_NONE, SHM_EV_CRASH, &b);
		count_events(v, SHM_EV_NONE, SHM_EV_PREEMPT, &b);
	}
	CHECK(st.parts_failed == 0, "%llu partitions counted failed", (unsigned long long)st.parts_failed);
	CHECK(slots_sum(v, 1) == 0, "GPU slots counted %llu failed", (unsigned long long)slots_sum(v, 1));
	CHECK(slots_sum(v, 0) >= 1, "no GPU slot counted a pre-emption");
	int n = count_events(v, SHM_EV_PREEMPT, SHM_EV_CRASH, &bad);
	CHECK(n >= 1 && (uint64_t)n == st.preemptions, "%d pre-emption events for %llu pre-emptions", n,
	      (unsigned long long)st.preemptions);
	CHECK(!bad, "a pre-emption counted as a crash");
	/* a replacement is no crash: no restart counted (nor a crash event) */
	CHECK(slots_sum(v, 2) == 0, "%llu restarts counted", (unsigned long long)slots_sum(v, 2));
	if (kill_expected)
		CHECK(slots_sum(v, 3) != pids0, "the hung gpuworker was not replaced");
	CHECK(sv_verify(v, wp) == 0, "winning-post result does not verify");
	CHECK(sv_verify(v, big) == 0, "porep result does not verify");
	return wp_ms;
}

static void reservation(void)
{
	struct shm_job j;
	char reply[256];
	int both = 0, one = 0;

	write_conf("[kind.winning-post]\nreserve = 1\n");
	sv_start(&sv0, "preempt0", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	uint64_t big = sv_submit(&sv0, "porep k=16 partitions=8");
	for (int i = 0; i < 30000 && !(sv_job(&sv0, big, &j) >= 0 && sv_job_over(&j)); i++) {
		int busy = 0;
		for (uint32_t s = 0; s < 2; s++) {
			struct shm_slot sl;
			busy += shm_read_slot(&sv0.seg, SHM_T_GPU, s, &sl) == 0 && sl.state == SHM_SLOT_BUSY &&
				sl.job_id == big;
		}
		both += busy == 2;
		one += busy == 1;
		if (i == 200) {	/* meanwhile a winning-post: its slot is free */
			uint64_t wp = sv_submit(&sv0, "winning-post k=14");
			sv_wait(&sv0, wp, 30, &j);
			CHECK(j.state == SHM_JOB_DONE, "winning-post ended %u", j.state);
			printf("info: reserve = 1: winning-post beside a porep job in %.0f ms\n",
			       (double)(j.end_mono_ns - j.submit_mono_ns) / 1e6);
		}
		usleep(1000);
	}
	CHECK(sv_job(&sv0, big, &j) >= 0 && j.state == SHM_JOB_DONE, "porep ended %u", j.state);
	printf("info: reserve = 1: porep on one slot in %d samples, on both in %d\n", one, both);
	CHECK(one > 0 && both == 0, "porep on both slots in %d of %d samples", both, one + both);
	CHECK(sv_req(&sv0, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv0, 15);
	sv_check_clean(&sv0);
}

int main(void)
{
	struct shm_job j;
	char reply[256], args[64];

	atexit(cleanup);
	reservation();
	write_conf("");

	/* 1: abandon on request. First a porep partition's own time, alone. */
	sv_start(&sv1, "preempt", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	snprintf(args, sizeof args, "porep k=%d partitions=1", K_BIG);
	uint64_t one = sv_submit(&sv1, args);
	sv_wait(&sv1, one, 30, &j);
	CHECK(j.state == SHM_JOB_DONE, "single porep partition ended %u", j.state);
	double part_ms = (double)j.part[0].gpu_ns / 1e6;
	run_case(&sv1, part_ms, 0);
	/* The views show it: status text, JSON and the metrics. */
	static const char *const views[][2] = {
		{ "", "^pre-emptions: [1-9]" },
		{ "--json", "\"preemptions\": *[1-9]" },
		{ "--json", "\"preempted\": *[1-9]" },
		{ "--prometheus", "^provisor_preemptions_total [1-9]" },
		{ "--prometheus", "^provisor_worker_preempted_total\\{.*\\} [1-9]" },
	};
	for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "%s/provisor status --name %s %s | grep -Eq '%s'", sv_bin(),
			 sv1.name, views[i][0], views[i][1]);
		CHECK(system(cmd) == 0, "status %s shows no '%s'", views[i][0], views[i][1]);
	}
	CHECK(sv_req(&sv1, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv1, 15);
	sv_check_clean(&sv1);

	/* 2: the gpuworker never reaches a safe point: killed, replaced. The
	 * winning-post may only run on gpu.0 (affinity), the one that hangs. */
	write_conf("[kind.winning-post]\nslots = gpu.0\n");
	snprintf(fault_state, sizeof fault_state, "%s/provisor-test-preempt-fault-%d", t_tmpdir(),
		 (int)getpid());
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu.0:during:hang:1", 1);
	sv_start(&sv2, "preempt2", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	run_case(&sv2, part_ms, 1);
	CHECK(sv_req(&sv2, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv2, 15);
	sv_check_clean(&sv2);
	return 0;
}
