/*
 * The segment's life and its plain records: creation mode whatever the
 * umask, read-only mapping for readers, one live instance per name, a
 * stale segment replaced, nothing left after destroy, the header's
 * identity fields, supervisor/job records, the event ring (wrap and
 * missed events), health as a reader sees it, and instance names.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tests/shm/common.h"

static mode_t seg_mode(const char *name)
{
	char path[4200];
	struct stat st;

	CHECK(shm_path(name, path, sizeof path) == 0, "path of %s", name);
	CHECK(stat(path, &st) == 0, "stat %s", path);
	return st.st_mode & 0777;
}

static int exists(const char *name)
{
	char path[4200];
	CHECK(shm_path(name, path, sizeof path) == 0, "path of %s", name);
	return access(path, F_OK) == 0;
}

int main(void)
{
	struct shm_seg *s, r, other;
	struct shm_config c = { 0 };
	char err[256], name[64];
	int status;

	/* Mode: 0640 by default, exactly, whatever the umask. */
	umask(0077);
	s = t_seg_create("basic", 3, 2);
	char myname[64];
	snprintf(myname, sizeof myname, "%s", shm_hdr(s)->name);
	CHECK(seg_mode(myname) == 0640, "default mode %o", seg_mode(myname));
	snprintf(name, sizeof name, "t-mode-%d", (int)getpid());
	umask(0);
	c = (struct shm_config){ .name = name, .mode = 0600, .gpu_slots = 1, .synth_slots = 1 };
	CHECK(shm_create(&other, &c, err, sizeof err) == 0, "create: %s", err);
	CHECK(seg_mode(name) == 0600, "configured mode %o", seg_mode(name));
	shm_destroy(&other);
	CHECK(!exists(name), "destroy left the segment behind");

	/* The header. */
	const struct shm_header *h = shm_hdr(s);
	static const uint8_t zero[16];
	CHECK(h->supervisor_pid == (uint32_t)getpid(), "pid");
	CHECK(memcmp(h->boot_id, zero, 16) != 0, "boot id is random, not zero");
	CHECK(h->start_mono_ns > 0 && h->start_mono_ns <= shm_now_mono(), "start mono");
	CHECK(h->start_wall_ns > 1600000000ull * 1000000000ull, "start wall clock");
	CHECK(shm_count(s, SHM_T_GPU) == 3 && shm_count(s, SHM_T_SYNTH) == 2 &&
	      shm_count(s, SHM_T_JOB) == 256 && shm_count(s, SHM_T_EVENT) == 1024, "counts");
	CHECK(s->size % 4096 == 0 && s->size == h->segment_size, "segment size");

	/* Readers map read-only: a write through their mapping faults. */
	CHECK(shm_open_ro(&r, myname, err, sizeof err) == 0, "open ro: %s", err);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);	/* a sanitizer's handler would exit instead */
		r.base[SHM_HEADER_SIZE] = 1;
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	      "a write through the reader's mapping did not fault");

	/* One live instance per name. */
	c = (struct shm_config){ .name = myname, .gpu_slots = 1, .synth_slots = 1 };
	pid = fork();
	if (pid == 0) {
		int rc = shm_create(&other, &c, err, sizeof err);
		_exit(rc == -EEXIST && strstr(err, "already running") ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a second supervisor took a live instance's name");

	/* A stale segment (its supervisor died without cleaning up) is replaced. */
	snprintf(name, sizeof name, "t-stale-%d", (int)getpid());
	c = (struct shm_config){ .name = name, .gpu_slots = 1, .synth_slots = 1 };
	pid = fork();
	if (pid == 0)
		_exit(shm_create(&other, &c, err, sizeof err) == 0 ? 0 : 1);	/* no destroy */
	CHECK(waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 0, "stale create");
	CHECK(exists(name), "stale segment exists");
	CHECK(shm_create(&other, &c, err, sizeof err) == 0, "stale segment not replaced: %s", err);
	CHECK(shm_hdr(&other)->supervisor_pid == (uint32_t)getpid(), "replaced segment is ours");
	shm_destroy(&other);

	/* Supervisor and job records round-trip. */
	struct shm_sup sup = { .state = SHM_SUP_RUNNING, .jobs_done = 7, .mem_budget = 1ull << 33 }, sup2;
	shm_write_sup(s, &sup);
	CHECK(shm_read_sup(&r, &sup2) == 0 && !memcmp(&sup, &sup2, sizeof sup), "sup round trip");
	struct shm_job j = { .id = 42, .kind = 3, .state = SHM_JOB_RUNNING, .log_size = 16, .nparts = 10 }, j2;
	snprintf(j.reason, sizeof j.reason, "none");
	j.part[9] = (struct shm_part){ .state = SHM_PART_PROVING, .attempts = 2, .gpu_slot = 1, .gpu_ns = 5 };
	CHECK(shm_write_job(s, 255, &j) == 0, "job write");
	CHECK(shm_write_job(s, 256, &j) == -ERANGE, "job index past the table");
	CHECK(shm_read_job(&r, 255, &j2) == 0 && !memcmp(&j, &j2, sizeof j), "job round trip");
	CHECK(shm_read_job(&r, 256, &j2) == -ERANGE, "job read past the table");
	struct shm_slot sl;
	CHECK(shm_read_slot(&r, SHM_T_GPU, 3, &sl) == -ERANGE, "slot read past the table");
	CHECK(shm_read_slot(&r, SHM_T_JOB, 0, &sl) == -EINVAL, "slot read of the job table");

	/* The event ring: sequence numbers, wrap, and what a reader missed. */
	CHECK(shm_event_head(&r) == 0, "no events yet");
	for (int i = 1; i <= 1500; i++) {
		struct shm_event ev = { .type = SHM_EV_INFO, .job_id = (uint64_t)i };
		snprintf(ev.msg, sizeof ev.msg, "event %d", i);
		CHECK(shm_post_event(s, &ev) == (uint64_t)i, "event seq");
	}
	struct shm_event ev;
	CHECK(shm_event_head(&r) == 1500, "head");
	CHECK(shm_read_event(&r, 1, &ev) == -ENOENT, "overwritten event still readable");
	CHECK(shm_read_event(&r, 476, &ev) == -ENOENT, "event 476 was overwritten");
	CHECK(shm_read_event(&r, 1501, &ev) == -ENOENT, "future event readable");
	for (uint64_t q = 477; q <= 1500; q++) {
		char want[32];
		snprintf(want, sizeof want, "event %llu", (unsigned long long)q);
		CHECK(shm_read_event(&r, q, &ev) == 0 && ev.seq == q && ev.job_id == q &&
		      !strcmp(ev.msg, want), "event %llu", (unsigned long long)q);
	}

	/* Health: running, then not responding, then restarted / not running. */
	uint64_t age;
	shm_heartbeat(s);
	CHECK(shm_health(&r, 5000000000ull, &age) == SHM_HEALTH_RUNNING, "running");
	usleep(20000);
	CHECK(shm_health(&r, 10000000ull, &age) == SHM_HEALTH_NOT_RESPONDING && age >= 10000000ull,
	      "stale heartbeat not noticed");
	struct shm_config same = { .name = myname, .gpu_slots = 1, .synth_slots = 1 };
	shm_destroy(s);
	CHECK(shm_health(&r, 5000000000ull, NULL) == SHM_HEALTH_NOT_RUNNING, "gone segment");
	CHECK(shm_create(s, &same, err, sizeof err) == 0, "re-create: %s", err);
	CHECK(shm_health(&r, 5000000000ull, NULL) == SHM_HEALTH_RESTARTED, "restart not noticed");
	CHECK(shm_open_ro(&other, myname, err, sizeof err) == 0 &&
	      memcmp(shm_hdr(&other)->boot_id, shm_hdr(&r)->boot_id, 16) != 0, "new boot id");
	shm_close(&other);
	shm_close(&r);

	/* Names. */
	const char *bad[] = { "", "a/b", ".hidden", "x y", "0123456789012345678901234567890123" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(shm_name_check(bad[i], err, sizeof err) == -EINVAL, "name '%s' accepted", bad[i]);
	CHECK(shm_name_check("rig-01_a.b", err, sizeof err) == 0, "good name refused");
	return 0;
}
