/*
 * Pre-emption: both GPU slots and both synths saturated by a big
 * low-priority porep job, a winning-post still gets through at once.
 *
 * 1. Abandon on request: gpu.0's first porep partition is held (fault
 *    injection: gpu.0:during:hold) until it is asked to give it up, so it
 *    can end only by being pre-empted, and the winning-post may run on
 *    gpu.0 alone (affinity). The winning-post gets done all the same, and
 *    the event ring shows, between its submission and its end, the held
 *    partition taken back from gpu.0 on request (not by a kill).
 *    Partitions taken back (sup.preemptions, the slots' preempted,
 *    SHM_EV_PREEMPT events; a GPU slot counts each partition taken from
 *    it, begun or not, by request or by a kill, as the events do) count as
 *    no failure and no attempt
 *    (sup.parts_failed 0, every attempt count 0, no crash event); both
 *    jobs complete and their results verify. How long the winning-post
 *    took is bench/preempt.sh's measure, not a check here.
 * 0. Reservation: with [kind.winning-post] reserve = 1 a porep job never
 *    has both GPU slots at once (sampled all along), and a winning-post
 *    then finds its slot free.
 * 2. The kill fallback: the gpuworker's proving thread hangs (fault
 *    injection: gpu.0:during:hang), so it never reaches a safe point; it
 *    is killed after the grace period and replaced, which is no crash and
 *    no failure either, and the winning-post gets through on gpu.0, the
 *    hung partition taken back from it before the winning-post's end.
 */
#include <stdlib.h>

#include "tests/pipeline/harness.h"

#define K_BIG T_SIZE(18, 15)	/* no claim depends on it: gpu.0's partition never ends by itself */

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

/* The event ring's SHM_EV_PREEMPT for partition part of job low, taken
 * back from GPU slot gs after job high's submission and before its end;
 * 0 when there is none. */
static int preempted_between(struct sv *v, uint64_t low, uint32_t part, uint64_t high, uint32_t gs,
			     struct shm_event *out)
{
	uint64_t head = shm_event_head(&v->seg);
	struct shm_event ev;
	int submitted = 0, taken = 0;

	for (uint64_t q = 1; q <= head; q++) {
		if (shm_read_event(&v->seg, q, &ev) != 0)
			continue;
		if (ev.job_id == high && ev.type == SHM_EV_JOB_SUBMIT) {
			submitted = 1;
		} else if (ev.job_id == high && ev.type == SHM_EV_JOB_DONE) {
			return taken;
		} else if (submitted && !taken && ev.type == SHM_EV_PREEMPT && ev.table == SHM_T_GPU &&
			   ev.slot == gs && ev.job_id == low && ev.partition == part) {
			*out = ev;
			taken = 1;
		}
	}
	return 0;
}

/* Wait until gpu.0 is busy with job id and every partition of it is at
 * a gpuworker, no synth busy: nothing is being relayed (the bounds here,
 * times t_slow(), only catch a hang). */
static void wait_relayed(struct sv *v, uint64_t id)
{
	for (unsigned i = 0; i < 6000 * t_slow(); i++) {
		struct shm_slot sl;
		struct shm_job j;
		int waiting = 0;

		if (sv_job(v, id, &j) < 0 || shm_read_slot(&v->seg, SHM_T_GPU, 0, &sl) != 0)
			continue;
		for (uint32_t p = 0; p < j.nparts; p++)
			waiting += j.part[p].state < SHM_PART_PROVING;
		for (uint32_t s = 0; s < shm_count(&v->seg, SHM_T_SYNTH); s++) {
			struct shm_slot ss;
			waiting += shm_read_slot(&v->seg, SHM_T_SYNTH, s, &ss) == 0 &&
				ss.state == SHM_SLOT_BUSY;
		}
		if (!waiting && sl.state == SHM_SLOT_BUSY && sl.job_id == id)
			return;
		usleep(5000);
	}
	SV_FAIL("job %llu was not all at the gpuworkers, gpu.0 busy with it", (unsigned long long)id);
}

/* Wait until both GPU slots are busy with job id. */
static void wait_busy(struct sv *v, uint64_t id)
{
	for (unsigned i = 0; i < 3000 * t_slow(); i++) {
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

/* A porep job of nparts partitions, then a winning-post that may run on
 * gpu.0 only, whose porep partition cannot end by itself (held or hung);
 * checks what the events and the header say. More partitions than the
 * gpuworkers hold saturate every slot, synths included; fewer are all
 * relayed first, so that nothing but the running partition stands in the
 * way (a relay into gpu.0 would be ended by killing it). how: the
 * pre-emption event's words. */
static void run_case(struct sv *v, uint32_t nparts, int kill_expected, const char *how)
{
	struct shm_job j, wj;
	struct shm_sup st;
	struct shm_slot g0;
	struct shm_event ev;
	char args[64];
	int bad;

	snprintf(args, sizeof args, "porep k=%d partitions=%u", K_BIG, nparts);
	uint64_t big = sv_submit(v, args);
	if (nparts > 4) {	/* 2 gpuworkers hold 2 each (SUP_GPU_DEPTH) */
		wait_busy(v, big);
		usleep(50000);	/* and the next partitions prefetched behind */
	} else {
		wait_relayed(v, big);
	}
	uint64_t pids0 = slots_sum(v, 3);
	CHECK(shm_read_slot(&v->seg, SHM_T_GPU, 0, &g0) == 0 && g0.state == SHM_SLOT_BUSY &&
	      g0.job_id == big, "gpu.0 is not busy with the porep job");
	uint64_t wp = sv_submit(v, "winning-post k=14");
	sv_wait(v, wp, 60, &wj);
	CHECK(wj.state == SHM_JOB_DONE, "winning-post ended %u: %s", wj.state, wj.reason);
	printf("info: winning-post behind a saturated k=%d porep: %.0f ms\n", K_BIG,
	       (double)(wj.end_mono_ns - wj.submit_mono_ns) / 1e6);
	CHECK(wj.part[0].gpu_slot == 0, "the winning-post ran on gpu slot %u, not gpu.0",
	      wj.part[0].gpu_slot);
	/* gpu.0's partition could not have ended by itself: it was taken
	 * back for the winning-post, after its submission, before its end. */
	CHECK(preempted_between(v, big, g0.partition, wp, 0, &ev),
	      "porep partition %u was not taken back from gpu.0 between the winning-post's "
	      "submission and its end", g0.partition);
	CHECK(strstr(ev.msg, how), "gpu.0's partition %u pre-empted as \"%s\", not %s", g0.partition,
	      ev.msg, how);
	CHECK(sv_job(v, big, &j) >= 0 && !sv_job_over(&j), "the porep job ended before the winning-post");
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
	/* the slots count partitions taken back, one each, however taken */
	uint64_t gpu_events = 0, head = shm_event_head(&v->seg);
	for (uint64_t q = 1; q <= head; q++)
		gpu_events += shm_read_event(&v->seg, q, &ev) == 0 && ev.type == SHM_EV_PREEMPT &&
			      ev.table == SHM_T_GPU;
	CHECK(slots_sum(v, 0) == gpu_events, "GPU slots count %llu pre-empted, the events %llu",
	      (unsigned long long)slots_sum(v, 0), (unsigned long long)gpu_events);
	/* a replacement is no crash: no restart counted (nor a crash event) */
	CHECK(slots_sum(v, 2) == 0, "%llu restarts counted", (unsigned long long)slots_sum(v, 2));
	if (kill_expected)
		CHECK(slots_sum(v, 3) != pids0, "the hung gpuworker was not replaced");
	CHECK(sv_verify(v, wp) == 0, "winning-post result does not verify");
	CHECK(sv_verify(v, big) == 0, "porep result does not verify");
	printf("info: a porep partition at k=%d: %.0f ms on its gpuworker\n", K_BIG,
	       (double)j.part[0].gpu_ns / 1e6);
}

static void reservation(void)
{
	struct shm_job j;
	char reply[256];
	int both = 0, one = 0;

	write_conf("[kind.winning-post]\nreserve = 1\n");
	sv_start(&sv0, "preempt0", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	/* k=14 under TSan: the claim is where it runs, not how fast */
	uint64_t big = sv_submit(&sv0, T_SANITIZER == 2 ? "porep k=14 partitions=8" : "porep k=16 partitions=8");
	/* a sample a millisecond or so, until it ends (the bound, 30 s times
	 * t_slow(), only catches a hang) */
	unsigned i, samples = 30000 * t_slow();
	for (i = 0; i < samples && !(sv_job(&sv0, big, &j) >= 0 && sv_job_over(&j)); i++) {
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
			sv_wait(&sv0, wp, 30 * (int)t_slow(), &j);
			CHECK(j.state == SHM_JOB_DONE, "winning-post ended %u", j.state);
			printf("info: reserve = 1: winning-post beside a porep job in %.0f ms\n",
			       (double)(j.end_mono_ns - j.submit_mono_ns) / 1e6);
		}
		usleep(1000);
	}
	if (i == samples)
		SV_FAIL("the porep job did not end in %u samples", samples);
	CHECK(i > 200, "the porep job ended before the winning-post was submitted");
	CHECK(sv_job(&sv0, big, &j) >= 0 && j.state == SHM_JOB_DONE, "porep ended %u", j.state);
	printf("info: reserve = 1: porep on one slot in %d samples, on both in %d\n", one, both);
	CHECK(one > 0 && both == 0, "porep on both slots in %d of %d samples", both, one + both);
	CHECK(sv_req(&sv0, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv0, 15);
	sv_check_clean(&sv0);
}

int main(void)
{
	char reply[256];

	atexit(cleanup);
	reservation();

	/* 1: abandon on request. gpu.0's first porep partition is held
	 * until it is asked to give it up; the winning-post may run on gpu.0
	 * only. */
	char extra[128];
	/* It answers at once (its hold ends when asked): a grace no loaded
	 * or sanitized run can miss, so that no kill stands in for it. */
	snprintf(extra, sizeof extra, "preempt_grace = %us\n[kind.winning-post]\nslots = gpu.0\n",
		 10 * t_slow());
	write_conf(extra);
	snprintf(fault_state, sizeof fault_state, "%s/provisor-test-preempt-fault-%d", t_tmpdir(),
		 (int)getpid());
	setenv("PROVISOR_FAULT_STATE", fault_state, 1);
	setenv("PROVISOR_FAULT", "gpu.0:during:hold:1", 1);
	sv_start(&sv1, "preempt", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	run_case(&sv1, 3, 0, "abandoned on request");
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
	unlink(fault_state);

	/* 2: the gpuworker never reaches a safe point: killed, replaced,
	 * after the default grace. */
	write_conf("[kind.winning-post]\nslots = gpu.0\n");
	setenv("PROVISOR_FAULT", "gpu.0:during:hang:1", 1);
	sv_start(&sv2, "preempt2", "--config", conf_path, "--gpus", "1", "--workers-per-gpu", "2",
		 "--synth", "2", "--backend", "cpu", NULL);
	unsetenv("PROVISOR_FAULT");
	run_case(&sv2, 6, 1, "its worker killed");
	CHECK(sv_req(&sv2, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	sv_reap(&sv2, 15);
	sv_check_clean(&sv2);
	return 0;
}
