/*
 * Stopping leaves nothing behind: SIGTERM while partitions are being
 * synthesized and proved ends the supervisor with status 0, and no
 * worker, socket, segment or temporary file remains. A second supervisor
 * of the same name is refused while the first runs, and starts once it
 * has gone. Killing the supervisor with SIGKILL takes its workers with it
 * (parent-death signal): no orphan stays on the GPU.
 */
#include "tests/pipeline/harness.h"

static struct sv sv;

int main(void)
{
	char cmd[600];
	struct shm_job j;

	sv_start(&sv, "stop", NULL);
	snprintf(cmd, sizeof cmd, "%s/provisor run --name %s --state-dir %s.2 2>/dev/null",
		 sv_bin(), sv.name, sv.dir);
	CHECK(system(cmd) != 0, "a second supervisor with the same name started");
	struct stat st;
	snprintf(cmd, sizeof cmd, "%s.2", sv.dir);
	CHECK(stat(cmd, &st) < 0, "the refused supervisor created its state directory %s", cmd);

	for (int i = 0; i < 4; i++)
		sv_submit(&sv, "porep k=15");
	for (int i = 0; i < 400; i++) {	/* wait until work is in flight */
		struct shm_slot s;
		if (shm_read_slot(&sv.seg, SHM_T_GPU, 0, &s) == 0 && s.state == SHM_SLOT_BUSY)
			break;
		usleep(5000);
	}
	kill(sv.pid, SIGTERM);
	int status = sv_reap(&sv, 15);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "SIGTERM: exit status %d", status);
	sv_check_clean(&sv);
	shm_close(&sv.seg);
	sv.mapped = 0;

	/* The name is free again; then SIGKILL takes the workers along. */
	static struct sv again;	/* static: the atexit cleanup points at it */
	sv_start(&again, "stop", NULL);
	uint64_t id = sv_submit(&again, "winning-post k=10");
	sv_wait(&again, id, 30, &j);
	CHECK(j.state == SHM_JOB_DONE, "job on the restarted instance");
	CHECK(sv_count_children(again.pid) == 4, "expected 4 workers, found %d", sv_count_children(again.pid));
	kill(again.pid, SIGKILL);
	sv_reap(&again, 5);
	int left = 0;
	for (int i = 0; i < 100 * (int)t_slow() && (left = sv_count_children(getpid())) > 0; i++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(10000);
	}
	CHECK(left == 0, "%d workers outlived a killed supervisor", left);
	printf("info: workers of a SIGKILLed supervisor all gone\n");
	return 0;
}
