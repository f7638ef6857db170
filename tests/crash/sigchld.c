/*
 * Child exits watched through SIGCHLD alone (the test hook
 * PROVISOR_NO_PIDFD, as on a kernel before 5.3 or under valgrind): the
 * supervisor says so once; a gpuworker killed mid-partition is replaced
 * and its job verifies; every worker SIGKILLed while the supervisor is
 * stopped, so that their SIGCHLDs coalesce into one, is replaced and
 * counted exactly once, with no zombie left; then a job verifies on the
 * new workers.
 */
#include "tests/crash/common.h"

static struct sv sv;

static int log_lines(const char *needle)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(sv.log, "r");

	while (f && fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

#define MAXW 64

int main(void)
{
	struct shm_slot before, after, sl[2][MAXW];
	uint32_t n[2];

	setenv("PROVISOR_NO_PIDFD", "1", 1);
	sv_start(&sv, "sigchld", NULL);
	CHECK(log_lines("watching child exits through SIGCHLD") == 1,
	      "the supervisor did not say (once) that it watches exits through SIGCHLD");

	/* One worker, mid-partition. */
	uint64_t id = sv_submit(&sv, "porep k=16 partitions=4");
	pid_t pid = crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_BUSY, 20000, &before);

	CHECK(kill(pid, SIGKILL) == 0, "kill");
	crash_job_ok(&sv, id, 120);
	crash_wait_state(&sv, SHM_T_GPU, 0, SHM_SLOT_IDLE, 10000, &after);
	CHECK(after.pid != (uint32_t)pid && after.restarts == before.restarts + 1,
	      "gpu.0: pid %u (was %d), restarts %llu -> %llu", after.pid, (int)pid,
	      (unsigned long long)before.restarts, (unsigned long long)after.restarts);

	/* Every worker at once. */
	int total = 0;
	for (int t = 0; t < 2; t++) {
		n[t] = shm_count(&sv.seg, t ? SHM_T_SYNTH : SHM_T_GPU);
		CHECK(n[t] >= 1 && n[t] <= MAXW, "%u slots", n[t]);
		for (uint32_t i = 0; i < n[t]; i++)
			crash_wait_state(&sv, t ? SHM_T_SYNTH : SHM_T_GPU, i, SHM_SLOT_IDLE, 10000, &sl[t][i]);
		total += (int)n[t];
	}
	/* With the supervisor stopped, so that all the exits are pending at
	 * once when it goes on: one SIGCHLD for them all. */
	CHECK(kill(sv.pid, SIGSTOP) == 0, "stop the supervisor");
	for (int t = 0; t < 2; t++)
		for (uint32_t i = 0; i < n[t]; i++)
			CHECK(kill((pid_t)sl[t][i].pid, SIGKILL) == 0, "kill worker %u", sl[t][i].pid);
	for (int ms = 0; sv_count_state(sv.pid, 'Z') < total; ms++) {
		if (ms > 10000)
			SV_FAIL("%d of %d killed workers are zombies after 10 s", sv_count_state(sv.pid, 'Z'), total);
		usleep(1000);
	}
	CHECK(kill(sv.pid, SIGCONT) == 0, "continue the supervisor");
	for (int t = 0; t < 2; t++)
		for (uint32_t i = 0; i < n[t]; i++) {
			int table = t ? SHM_T_SYNTH : SHM_T_GPU;
			struct shm_slot now;

			for (int ms = 0;; ms += 10) {
				if (shm_read_slot(&sv.seg, table, i, &now) == 0 && now.state == SHM_SLOT_IDLE &&
				    now.pid != sl[t][i].pid)
					break;
				if (ms > 10000)
					SV_FAIL("%s.%u not replaced within 10 s", t ? "synth" : "gpu", i);
				usleep(10000);
			}
			CHECK(now.restarts == sl[t][i].restarts + 1, "%s.%u restarts %llu -> %llu",
			      t ? "synth" : "gpu", i, (unsigned long long)sl[t][i].restarts,
			      (unsigned long long)now.restarts);
		}
	CHECK(sv_count_state(sv.pid, 'Z') == 0, "%d zombie workers", sv_count_state(sv.pid, 'Z'));
	CHECK(sv_count_children(sv.pid) == total, "%d children, %d slots", sv_count_children(sv.pid), total);

	id = sv_submit(&sv, "porep k=14 partitions=8");
	crash_job_ok(&sv, id, 120);
	printf("info: exits by SIGCHLD: a mid-partition kill, then %d workers killed at once (one SIGCHLD), "
	       "each replaced once, 0 zombies, jobs verified\n", total);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
