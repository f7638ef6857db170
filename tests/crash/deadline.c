/*
 * A gpuworker hung inside a partition while its heartbeat thread goes on:
 * the partition runs past its kind's deadline (from the configuration:
 * 2 s times t_slow(), which every healthy k = 12 partition, a few ms,
 * meets on a slow or loaded machine too), the watchdog SIGKILLs the
 * worker, the partition is requeued and the job completes and verifies.
 */
#include "tests/crash/common.h"

static struct sv sv;

int main(void)
{
	struct shm_slot s;

	crash_fault("gpu.0:during:hang");
	char conf[64];
	snprintf(conf, sizeof conf, "[kind.porep]\ndeadline = %us\n", 2 * t_slow());
	sv_start(&sv, "deadline", "--config", crash_config(conf), NULL);
	uint64_t id = sv_submit(&sv, "porep k=12 partitions=4");
	crash_job_ok(&sv, id, 60 * (int)t_slow());
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &s);
	CHECK(s.last_exit_kind == SHM_EXIT_SIGNAL && s.last_exit_code == SIGKILL, "not killed");
	crash_event_says(&sv, SHM_T_GPU, 0, "deadline");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
