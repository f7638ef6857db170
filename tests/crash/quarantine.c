/*
 * A faulty slot is caught: gpu.0 flips one bit of the first H it stores
 * (fault point store, action flip), with a digest that matches the wrong
 * bytes, so only verification can tell. The synth that verifies it says
 * wrong; gpu.0 is quarantined (disabled, reason wrong result, event
 * quarantine, sup.quarantines 1), the partition is computed again on
 * another slot, and the job completes with a result that verifies.
 * `worker enable` brings gpu.0 back, and a job after that completes too.
 */
#include "tests/crash/common.h"

static struct sv sv;

/* provisor status [opt] of the test's instance must print want. */
static void status_says(const char *opt, const char *want)
{
	char cmd[512], out[65536];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof cmd, "%s/provisor status --name %s %s", sv_bin(), sv.name, opt);
	p = popen(cmd, "r");
	CHECK(p, "popen %s", cmd);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	pclose(p);
	CHECK(strstr(out, want), "status %s does not say '%s'", opt, want);
}

int main(void)
{
	struct shm_slot s;
	struct shm_event ev;
	struct shm_sup sup;
	char reply[128];

	crash_fault("gpu.0:store:flip:1");
	sv_start(&sv, "quarantine", NULL);
	CHECK(shm_count(&sv.seg, SHM_T_GPU) >= 2, "needs two gpu slots");
	uint64_t id = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, id, 60 * (int)t_slow());
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
	CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_WRONG_RESULT);
	uint64_t done0 = s.done;
	CHECK(crash_event(&sv, SHM_EV_QUARANTINE, SHM_T_GPU, 0, &ev), "no quarantine event for gpu.0");
	CHECK(ev.job_id == id && strstr(ev.msg, "wrong result"), "quarantine event: job %llu '%s'",
	      (unsigned long long)ev.job_id, ev.msg);
	printf("info: %s\n", ev.msg);
	CHECK(crash_event(&sv, SHM_EV_DISABLE, SHM_T_GPU, 0, &ev) && strstr(ev.msg, "wrong result"),
	      "disable event does not say wrong result");
	/* the counters are published at a tick: a few whole ticks, however
	 * long they take */
	for (int i = 0; i < 5 && (shm_read_sup(&sv.seg, &sup) || !sup.quarantines); i++)
		sv_wait_tick(&sv);
	CHECK_EQ_U64(sup.quarantines, 1);
	status_says("", "(disabled: wrong result)");
	status_says("", "1 slot(s) quarantined");
	status_says("--json", "\"disable_reason\":\"wrong-result\"");
	status_says("--prometheus", "provisor_quarantines_total 1");
	status_says("--prometheus", "provisor_worker_quarantined{slot=\"gpu.0\"");
	/* Only gpu.1 works now; then the operator takes gpu.0 back. */
	uint64_t id2 = sv_submit(&sv, "winning-post k=12");
	crash_job_ok(&sv, id2, 60 * (int)t_slow());
	CHECK(sv_req(&sv, "worker enable gpu.0\n", reply, sizeof reply) == 0, "enable: %s", reply);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000 * (int)t_slow(), &s);
	uint64_t id3 = sv_submit(&sv, "porep k=12");
	crash_job_ok(&sv, id3, 60 * (int)t_slow());
	CHECK(shm_read_slot(&sv.seg, SHM_T_GPU, 0, &s) == 0 && s.done > done0,
	      "gpu.0 proved nothing after enable");
	printf("info: gpu.0 quarantined, enabled again, %llu done\n", (unsigned long long)s.done);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
