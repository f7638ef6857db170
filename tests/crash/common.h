/*
 * Helpers for the crash tests: a supervisor with a configuration file of
 * the test's choosing, and the checks every recovery ends with.
 */
#ifndef TESTS_CRASH_COMMON_H
#define TESTS_CRASH_COMMON_H

#include "format/pfile.h"
#include "tests/pipeline/harness.h"

static char crash_conf[256];

static void crash_conf_rm(void)
{
	if (crash_conf[0])
		unlink(crash_conf);
}

/* Write a configuration file; returns its path (for --config). */
static inline const char *crash_config(const char *text)
{
	snprintf(crash_conf, sizeof crash_conf, "%s/provisor-test-conf-%d.ini", t_tmpdir(),
		 (int)getpid());
	FILE *f = fopen(crash_conf, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", crash_conf);
	atexit(crash_conf_rm);
	return crash_conf;
}

/* The pid of the worker in a slot, waiting until it is in one of the
 * wanted states (busy for mid-partition kills). */
static inline pid_t crash_wait_state(struct sv *v, int table, uint32_t slot, uint32_t state,
				     int timeout_ms, struct shm_slot *out)
{
	for (int i = 0; i < timeout_ms; i++) {
		if (shm_read_slot(&v->seg, table, slot, out) == 0 && out->state == state)
			return (pid_t)out->pid;
		usleep(1000);
	}
	SV_FAIL("slot %s.%u never became %s", table == SHM_T_GPU ? "gpu" : "synth", slot,
		shm_slot_state_name(state));
}

/* Wait for a job; it must be done and its result must verify. */
static inline void crash_job_ok(struct sv *v, uint64_t id, int timeout_s)
{
	struct shm_job j;

	sv_wait(v, id, timeout_s, &j);
	if (j.state != SHM_JOB_DONE)
		SV_FAIL("job %llu ended in state %u: %s", (unsigned long long)id, j.state, j.reason);
	CHECK(sv_verify(v, id) == 0, "job %llu's result does not verify", (unsigned long long)id);
}

/* Find the newest event of a type for a slot; 0 when none. */
static inline int crash_event(struct sv *v, uint32_t type, int table, uint32_t slot,
			      struct shm_event *out)
{
	uint64_t head = shm_event_head(&v->seg);

	for (uint64_t q = head; q > 0 && head - q < 1024; q--)
		if (shm_read_event(&v->seg, q, out) == 0 && out->type == type &&
		    (int)out->table == table && out->slot == slot)
			return 1;
	return 0;
}

/* Waits until want entries of the digest table of a job's file (path,
 * of kind, k and parts) are written: the supervisor writes a
 * partition's entry after it shows the partition done (an io_uring
 * write: one that a SIGKILL cancels before it is done loses that
 * partition, which a restart then proves again, rightly), so a test that
 * kills it to see stored partitions kept waits for these first. */
static inline void crash_wait_table(const char *path, uint32_t kind, uint32_t k, uint32_t parts, int want)
{
	uint8_t t[64 * 32], zero[32] = { 0 };
	int n = -1;

	CHECK(parts <= 64, "parts");
	for (int i = 0; i < 1000 * (int)t_slow() && n < want; i++) {
		int fd = open(path, O_RDONLY);
		n = 0;
		if (fd >= 0 && pread(fd, t, parts * 32, (off_t)pfile_res_table_off(kind, k, parts)) == (ssize_t)(parts * 32))
			for (uint32_t p = 0; p < parts; p++)
				n += memcmp(t + p * 32, zero, 32) != 0;
		if (fd >= 0)
			close(fd);
		if (n < want)
			usleep(10000);
	}
	CHECK(n == want, "%s: %d digests written, not %d", path, n, want);
}

static char crash_fault_state[256];

static void crash_fault_rm(void)
{
	if (crash_fault_state[0])
		unlink(crash_fault_state);
}

/* Arm a fault in the workers the next supervisor starts (fault/fault.h);
 * the firing count lives in a temp file removed at exit. */
static inline void crash_fault(const char *rule)
{
	snprintf(crash_fault_state, sizeof crash_fault_state, "%s/provisor-test-fault-%d",
		 t_tmpdir(), (int)getpid());
	unlink(crash_fault_state);
	setenv("PROVISOR_FAULT", rule, 1);
	setenv("PROVISOR_FAULT_STATE", crash_fault_state, 1);
	atexit(crash_fault_rm);
}

/* The newest crash event of a slot must mention what. */
static inline void crash_event_says(struct sv *v, int table, uint32_t slot, const char *what)
{
	struct shm_event ev;

	CHECK(crash_event(v, SHM_EV_CRASH, table, slot, &ev), "no crash event for the slot");
	CHECK(strstr(ev.msg, what), "crash event '%s' does not say '%s'", ev.msg, what);
	printf("info: %s\n", ev.msg);
}

static inline void crash_stop(struct sv *v)
{
	char reply[128];
	int status;

	CHECK(sv_req(v, "stop\n", reply, sizeof reply) == 0, "stop: %s", reply);
	status = sv_reap(v, 30);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "supervisor exit status %d", status);
}

#endif
