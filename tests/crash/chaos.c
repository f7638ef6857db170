/*
 * Chaos: a batch of at least 50 jobs of mixed kinds while a killer
 * SIGKILLs a random gpuworker or synth child every 100-300 ms, until at
 * least 100 kills (more jobs are added if the batch would end first).
 * Under a sanitizer: at least 25 jobs of 2^11 partitions and 60 kills,
 * the claims being the same. Every job completes and verifies; no job
 * completes twice; the supervisor never exits; afterwards no zombie, the
 * supervisor's fds are the same as before, and the restarts in the status
 * segment equal the kills: the killer's, and any the supervisor's
 * watchdog made itself (a worker too slow to say HELLO or beat within
 * heartbeat_timeout on a loaded machine; its log says hung for each, and
 * they are printed). heartbeat_timeout is 5 s times t_slow(), so those
 * are rare.
 * Every kind has one priority here, so nothing is pre-empted.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "tests/crash/common.h"

#define MAX_JOBS 400
#define KILLS T_SIZE(100, 60)
#define MIN_JOBS T_SIZE(50, 25)

static struct sv sv;
static _Atomic int killing = 1;
static _Atomic unsigned kills;

static char proc_state(pid_t pid, pid_t *ppid)
{
	char path[64], buf[512], st = '?';
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof buf, f)) {
		char *p = strrchr(buf, ')');
		int pp;
		if (p && sscanf(p + 2, "%c %d", &st, &pp) == 2)
			*ppid = pp;
	}
	if (f)
		fclose(f);
	return st;
}

static void *killer(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	pid_t last[8] = { 0 };

	(void)arg;
	while (atomic_load(&killing)) {
		usleep(100000 + (unsigned)(t_rand(&seed) % 200000));
		uint32_t n = shm_count(&sv.seg, SHM_T_GPU) + shm_count(&sv.seg, SHM_T_SYNTH);
		uint32_t pick = (uint32_t)(t_rand(&seed) % n);
		int table = pick < shm_count(&sv.seg, SHM_T_GPU) ? SHM_T_GPU : SHM_T_SYNTH;
		uint32_t slot = table == SHM_T_GPU ? pick : pick - shm_count(&sv.seg, SHM_T_GPU);
		struct shm_slot s;
		pid_t ppid = 0;

		if (shm_read_slot(&sv.seg, table, slot, &s) || (s.state != SHM_SLOT_IDLE &&
		    s.state != SHM_SLOT_BUSY) || (pid_t)s.pid == last[pick % 8] || !s.pid)
			continue;
		/* only a live child of the supervisor, each pid once */
		char st = proc_state((pid_t)s.pid, &ppid);
		if (ppid != sv.pid || st == 'Z' || st == 'X')
			continue;
		if (kill((pid_t)s.pid, SIGKILL) == 0) {
			last[pick % 8] = (pid_t)s.pid;
			atomic_fetch_add(&kills, 1);
		}
	}
	return NULL;
}

static int count_fds(pid_t pid)
{
	char path[64];
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The supervisor's own kills so far: its watchdog's, whose crash lines in
 * its log say hung ("gpu.1 killed by signal 9: hung: no heartbeat for
 * ...; restart in 0 ms"). The killer's kills show without a reason, or
 * with the one the supervisor saw first as a result of it ("relay into
 * it failed: Broken pipe"): those are not the supervisor's. */
static unsigned own_kills(void)
{
	char cmd[400];
	int rc;

	snprintf(cmd, sizeof cmd, "grep -E '(gpu|synth)\\.[0-9]+ killed by signal [0-9]+: hung: ' '%s'", sv.log);
	char *out = t_capture(cmd, &rc);
	unsigned n = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		printf("info: the supervisor's own kill: %s\n", strstr(l, "]: ") ? strstr(l, "]: ") + 3 : l);
		n++;
	}
	free(out);
	return n;
}

static void all_idle(void)
{
	struct shm_slot s;

	for (int t = SHM_T_GPU; t <= SHM_T_SYNTH; t++)
		for (uint32_t i = 0; i < shm_count(&sv.seg, t); i++)
			crash_wait_state(&sv, t, i, SHM_SLOT_IDLE, 20000 * (int)t_slow(), &s);
}

int main(void)
{
	static const char *const kinds[] = { "porep", "snap-deals", "window-post", "porep",
					     "snap-deals", "winning-post" };
	static uint64_t ids[MAX_JOBS];
	int njobs = 0;
	pthread_t t;

	/* One priority for every kind: no pre-emption, whose kills are not
	 * restarts (a chaos kill of a worker the supervisor is killing for a
	 * pre-emption at that moment would count as neither). */
	char conf[512];
	const char *k = T_SANITIZER ? "log_size = 11\n" : "";
	snprintf(conf, sizeof conf,
		 "[supervisor]\npoison_attempts = 255\nrestart_intensity = 1000000\n"
		 "backoff_max = 200ms\nstable_run = 1s\nheartbeat_timeout = %us\n"
		 "[kind.winning-post]\npriority = 2\n%s[kind.window-post]\npriority = 2\n%s"
		 "[kind.porep]\n%s[kind.snap-deals]\n%s", 5 * t_slow(), k, k, k, k);
	sv_start(&sv, "chaos", "--config", crash_config(conf), NULL);
	int fds_before = count_fds(sv.pid);
	for (; njobs < MIN_JOBS; njobs++)
		ids[njobs] = sv_submit(&sv, kinds[njobs % 6]);
	pthread_create(&t, NULL, killer, NULL);
	for (;;) {
		struct shm_sup sup;
		int st = 0;
		if (waitpid(sv.pid, &st, WNOHANG) != 0)
			SV_FAIL("the supervisor exited during chaos (status 0x%x)", st);
		if (atomic_load(&kills) >= KILLS)
			break;
		if (shm_read_sup(&sv.seg, &sup) == 0 && sup.jobs_queued + sup.jobs_running < 4 &&
		    njobs < MAX_JOBS) {
			ids[njobs] = sv_submit(&sv, kinds[njobs % 6]);
			njobs++;
		}
		usleep(50000);
	}
	atomic_store(&killing, 0);
	pthread_join(t, NULL);
	unsigned nkills = atomic_load(&kills);

	for (int i = 0; i < njobs; i++)
		crash_job_ok(&sv, ids[i], 300);
	CHECK(waitpid(sv.pid, NULL, WNOHANG) == 0, "the supervisor exited");
	all_idle();

	/* No job completed twice: one job-done event each. */
	uint64_t head = shm_event_head(&sv.seg);
	static int done_events[MAX_JOBS + 1];
	for (uint64_t q = head > 1024 ? head - 1023 : 1; q <= head; q++) {
		struct shm_event ev;
		if (shm_read_event(&sv.seg, q, &ev) == 0 && ev.type == SHM_EV_JOB_DONE &&
		    ev.job_id >= ids[0] && ev.job_id - ids[0] < MAX_JOBS)
			done_events[ev.job_id - ids[0]]++;
	}
	int events_ok = head <= 1024;
	for (int i = 0; i < njobs && events_ok; i++)
		CHECK(done_events[i] == 1, "job %llu completed %d times", (unsigned long long)ids[i],
		      done_events[i]);

	uint64_t restarts = 0;
	for (int tb = SHM_T_GPU; tb <= SHM_T_SYNTH; tb++)
		for (uint32_t i = 0; i < shm_count(&sv.seg, tb); i++) {
			struct shm_slot s;
			CHECK(shm_read_slot(&sv.seg, tb, i, &s) == 0, "read slot");
			restarts += s.restarts;
		}
	unsigned own = own_kills();
	int fds_after = count_fds(sv.pid);
	printf("info: %d jobs, %u kills (and %u by the supervisor), %llu restarts, supervisor fds %d "
	       "before / %d after, %d zombies%s\n", njobs, nkills, own, (unsigned long long)restarts,
	       fds_before, fds_after, sv_count_state(sv.pid, 'Z'),
	       events_ok ? "" : " (event ring wrapped: once-only not checked by events)");
	CHECK(njobs >= MIN_JOBS && nkills >= (unsigned)KILLS, "not enough chaos");
	CHECK(restarts == nkills + own, "restarts %llu != kills %u + the supervisor's own %u",
	      (unsigned long long)restarts, nkills, own);
	CHECK(fds_after == fds_before, "supervisor fds %d before, %d after", fds_before, fds_after);
	CHECK(sv_count_state(sv.pid, 'Z') == 0, "zombie children");
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
