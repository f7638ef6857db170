/*
 * Hung workers. A gpuworker stopped with SIGSTOP mid-partition (its
 * heartbeat stops): the watchdog kills it after heartbeat_timeout and its
 * partition is requeued; the job completes and verifies. The slot's last
 * exit is SIGKILL and the crash event says "hung: no heartbeat".
 * heartbeat_timeout is 3 s times t_slow(): it applies to every worker (a
 * synth beats once per 2^16 rows, a new worker must say HELLO within it),
 * and only the stopped one may miss it on a slow or loaded machine. The
 * porep deadline is four times that, so the stopped partition's deadline
 * (at least 10 s by default) does not kill it first.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s, after;
	struct shm_event ev;

	char conf[128];
	snprintf(conf, sizeof conf, "[supervisor]\nheartbeat_timeout = %us\n[kind.porep]\ndeadline = %us\n",
		 3 * t_slow(), 12 * t_slow());
	sv_start(&sv, "hang", "--config", crash_config(conf), NULL);
	uint64_t id = sv_submit(&sv, "porep k=16 partitions=4");
	pid_t pid = crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_BUSY, 20000, &s);
	uint64_t t0 = t_now_ns();
	CHECK(kill(pid, SIGSTOP) == 0, "SIGSTOP");
	crash_job_ok(&sv, id, 120 * (int)t_slow());
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &after);
	CHECK(after.pid != (uint32_t)pid && after.last_exit_kind == SHM_EXIT_SIGNAL &&
	      after.last_exit_code == SIGKILL, "the stopped worker was not killed");
	CHECK(crash_event(&sv, SHM_EV_CRASH, SHM_T_GPU, 0, &ev) && strstr(ev.msg, "hung: no heartbeat"),
	      "crash event does not say hung: no heartbeat: '%s'", ev.msg);
	printf("info: stopped gpuworker killed as hung and its job done in %.1f s: %s\n",
	       (double)(t_now_ns() - t0) / 1e9, ev.msg);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
