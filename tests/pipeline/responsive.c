/*
 * The loop stays responsive: a real supervisor proves a porep job of
 * k = 20 (2 partitions, 96 MiB each; 1 under a sanitizer, the size that
 * matters being the partition's) while a client pings the control socket
 * every 20 ms over one open connection. Every ping must be answered, and
 * the segment's loop figures must show the work: the iteration count
 * grew, the longest iteration is above 0 and below a generous 200 ms
 * times t_slow() (an iteration is wall time, descheduling included; the
 * design's target is a few ms; measured here about 1 ms; when H still
 * passed through the loop, stored and read back, it was 470 to 680 ms at
 * this size, and more in proportion when slower). The figures measured
 * are printed (info:) for the record.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "tests/pipeline/harness.h"

#define PING_MS 20
#define LOOP_MAX_BOUND_NS 200000000ull

static struct sv sv;
static atomic_int stop_pinging;
static uint64_t pings, answered, rtt_max_ns;
static char ping_err[300];

static void *pinger(void *arg)
{
	struct ctl_conn c;
	char reply[64];

	(void)arg;
	if (ctl_open(&c, sv.sock, 5000 * (int)t_slow(), NULL, NULL, ping_err, sizeof ping_err) < 0)
		return NULL;
	while (!atomic_load(&stop_pinging)) {
		uint64_t t0 = t_now_ns();
		pings++;
		if (ctl_request(&c, "ping", reply, sizeof reply, 5000 * (int)t_slow(), ping_err,
				sizeof ping_err) != 0 ||
		    strcmp(reply, "ok pong")) {
			if (!ping_err[0])
				snprintf(ping_err, sizeof ping_err, "reply '%s'", reply);
			break;
		}
		answered++;
		if (t_now_ns() - t0 > rtt_max_ns)
			rtt_max_ns = t_now_ns() - t0;
		usleep(PING_MS * 1000);
	}
	ctl_close(&c);
	return NULL;
}

static void read_sup(struct shm_sup *v)
{
	for (int i = 0; i < 100; i++)
		if (shm_read_sup(&sv.seg, v) == 0)
			return;
	SV_FAIL("the supervisor record stays unreadable");
}

int main(void)
{
	struct shm_sup before, after;
	struct shm_job j;
	pthread_t t;
	char reply[64], cmd[400];
	uint64_t t0, loop_bound_ns = LOOP_MAX_BOUND_NS * t_slow();
	int rc, nparts = T_SIZE(2, 1);

	sv_start(&sv, "resp", NULL);	/* defaults: max_log_size 20, mem_budget 1 GiB */
	sv_wait_tick(&sv);		/* a tick published: the record has loop figures */
	read_sup(&before);
	CHECK(before.loop_iterations > 0, "no loop iterations published after start");
	CHECK(!pthread_create(&t, NULL, pinger, NULL), "pthread_create");
	t0 = t_now_ns();
	char job[64];
	snprintf(job, sizeof job, "porep k=20 partitions=%d", nparts);
	uint64_t id = sv_submit(&sv, job);
	sv_wait(&sv, id, 60 * (int)t_slow(), &j);
	uint64_t job_ms = (t_now_ns() - t0) / 1000000;
	usleep(100000);			/* a few pings after the job */
	sv_wait_tick(&sv);		/* and a tick published since */
	atomic_store(&stop_pinging, 1);
	pthread_join(t, NULL);
	CHECK(j.state == SHM_JOB_DONE, "job %llu ended in state %u: %s", (unsigned long long)id, j.state,
	      j.reason);
	CHECK(!ping_err[0] && pings > 0 && answered == pings, "%llu of %llu pings answered: %s",
	      (unsigned long long)answered, (unsigned long long)pings, ping_err);
	read_sup(&after);
	CHECK(after.loop_iterations > before.loop_iterations, "loop_iterations %llu -> %llu",
	      (unsigned long long)before.loop_iterations, (unsigned long long)after.loop_iterations);
	CHECK(after.loop_max_ns > 0 && after.loop_max_ns < loop_bound_ns,
	      "the longest loop iteration took %.1f ms, the bound %.0f ms (slowest step in the last "
	      "slow one: %.16s)", after.loop_max_ns / 1e6, loop_bound_ns / 1e6, after.loop_slow_what);
	CHECK(after.loop_p50_ns <= after.loop_p99_ns && after.loop_p99_ns <= after.loop_max_ns,
	      "p50 %llu p99 %llu max %llu", (unsigned long long)after.loop_p50_ns,
	      (unsigned long long)after.loop_p99_ns, (unsigned long long)after.loop_max_ns);
	printf("info: porep k=20 x%d in %llu ms: %llu loop iterations; since start p50 %.3f ms, "
	       "p99 %.3f ms, max %.1f ms (bound %.0f ms), %llu over 50 ms\n", nparts,
	       (unsigned long long)job_ms,
	       (unsigned long long)(after.loop_iterations - before.loop_iterations),
	       after.loop_p50_ns / 1e6, after.loop_p99_ns / 1e6, after.loop_max_ns / 1e6,
	       loop_bound_ns / 1e6, (unsigned long long)after.loop_slow_count);
	if (after.loop_slow_count)
		printf("info: the last slow iteration: %.1f ms, most of it in %.16s\n",
		       after.loop_slow_ns / 1e6, after.loop_slow_what);
	printf("info: %llu pings every %d ms on one connection, all answered; rtt max %.1f ms\n",
	       (unsigned long long)pings, PING_MS, rtt_max_ns / 1e6);
	CHECK(sv_req(&sv, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	rc = sv_reap(&sv, 30);
	CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "supervisor exit status %d", rc);
	/* each slow iteration is in the log: on a line of its own or counted
	 * in a summary line (at most one line a second) */
	snprintf(cmd, sizeof cmd, "grep 'slow loop iteration' '%s'", sv.log);
	char *lines = t_capture(cmd, &rc);
	CHECK(!after.loop_slow_count || lines[0], "no slow iteration in the log");
	for (char *l = strtok(lines, "\n"); l; l = strtok(NULL, "\n"))
		printf("info: log: %s\n", strstr(l, "]: ") ? strstr(l, "]: ") + 3 : l);
	free(lines);
	sv_check_clean(&sv);
	return 0;
}
