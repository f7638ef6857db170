/*
 * Helpers for the fault tests, which play the supervisor's part as the
 * worker tests do, but start each worker with a PROVISOR_FAULT rule and
 * check where and how it failed: its wait status, its "fault: RULE fired"
 * line, and its slot (raw latch words included, as a dead writer leaves
 * them). Each test has its own segment and its own state file. Waits that
 * only bound a hang are scaled by t_slow() (tests/helpers.h).
 */
#ifndef TESTS_FAULT_COMMON_H
#define TESTS_FAULT_COMMON_H

#include <stdatomic.h>
#include <sys/resource.h>

#include "tests/workers/common.h"

static char tf_name[64];		/* the instance */
static struct shm_seg *tf_seg;
static char tf_state[128];		/* PROVISOR_FAULT_STATE of this test */

static void tf_cleanup(void)
{
	if (getpid() == t_seg_pid)
		unlink(tf_state);
}

/* The segment (gpu and synth slots) and a fresh state file path. The
 * workers inherit a zero core limit: their crashes here are on purpose. */
static inline void tf_setup(const char *tag, uint32_t gpu, uint32_t synth)
{
	struct rlimit nocore = { 0, 0 };

	setrlimit(RLIMIT_CORE, &nocore);
	tf_seg = t_seg_create(tag, gpu, synth);
	snprintf(tf_name, sizeof tf_name, "%s", shm_hdr(tf_seg)->name);
	snprintf(tf_state, sizeof tf_state, "%s/provisor-fault-%s-%d",
		 t_tmpdir(), tag, (int)getpid());
	unlink(tf_state);
	atexit(tf_cleanup);
	setenv("PROVISOR_FAULT_STATE", tf_state, 1);
}

/* Start bin/prog ("gpuworker", backend cpu, or "synth") on slot with
 * PROVISOR_FAULT=rule (NULL: unset). The state file starts empty unless
 * keep_state. */
static inline void tf_spawn(struct t_child *c, const char *prog, const char *slot,
			    const char *rule, int keep_state)
{
	char path[256];
	char *gpu_argv[] = { path, "--instance", tf_name, "--slot", (char *)slot,
			     "--gpu", "0", "--backend", "cpu", NULL };
	char *synth_argv[] = { path, "--instance", tf_name, "--slot", (char *)slot, NULL };

	if (!keep_state)
		unlink(tf_state);
	if (rule)
		setenv("PROVISOR_FAULT", rule, 1);
	else
		unsetenv("PROVISOR_FAULT");
	t_prog(path, sizeof path, prog);
	t_spawn(c, strcmp(prog, "synth") ? gpu_argv : synth_argv, 0);
	unsetenv("PROVISOR_FAULT");
}

/* The first frame must be HELLO, within 5 s (scaled). */
static inline void tf_hello(struct t_child *c)
{
	struct frame_hdr h;
	uint8_t *p;

	CHECK(t_readable(c->out, t_hang_ms(5000)), "no HELLO within %u s", 5 * t_slow());
	t_recv(c->out, &h, &p);
	CHECK(h.type == FRAME_HELLO, "first frame is %s", frame_type_name(h.type));
	free(p);
}

/* After the child ended: stdout at EOF (no frame was written), and its log
 * has exactly one "fault: RULE fired" line. */
static inline void tf_fired(struct t_child *c, const char *rule, int want_eof)
{
	char log[8192], line[256];
	uint8_t b;

	if (want_eof)
		CHECK(read(c->out, &b, 1) == 0, "%s: it wrote something after the fault", rule);
	t_read_log(c, log, sizeof log);
	snprintf(line, sizeof line, "fault: %s fired", rule);
	CHECK(t_count_lines(log, line) == 1, "%s: log has no single '%s':\n%s", rule, line, log);
	t_close_fds(c);
}

/* Wait up to ms for the child to stop (WUNTRACED): 1 stopped, 0 not. The
 * caller scales ms. */
static inline int tf_stopped(struct t_child *c, int ms)
{
	int st;

	for (int waited = 0; waited <= ms; waited += 5) {
		pid_t r = waitpid(c->pid, &st, WNOHANG | WUNTRACED);

		if (r == c->pid)
			return WIFSTOPPED(st);
		usleep(5000);
	}
	return 0;
}

static inline const struct shm_latch *tf_latch(enum shm_table_id t, uint32_t i)
{
	const struct shm_table *tb = &tf_seg->tab[t];

	return (const struct shm_latch *)(tf_seg->base + tb->offset + (uint64_t)i * tb->rec_size);
}

/* The slot's latch sequence: odd while (or after dying) inside copy 0. */
static inline uint64_t tf_seq(enum shm_table_id t, uint32_t i)
{
	return atomic_load(&tf_latch(t, i)->seq);
}

/* Both copies of the slot's record hold the same bytes. */
static inline int tf_copies_equal(enum shm_table_id t, uint32_t i)
{
	const uint64_t *w = (const uint64_t *)tf_latch(t, i)->w;
	size_t words = tf_seg->tab[t].payload_size / 8;

	return !memcmp(w, w + words, words * 8);
}

static inline struct shm_slot tf_slot(enum shm_table_id t, uint32_t i)
{
	struct shm_slot s;

	CHECK(shm_read_slot(tf_seg, t, i, &s) == 0, "slot %u unreadable", i);
	return s;
}

/* Until slot 0 of t is busy with job under gen (its begin published, the
 * begin's heartbeat with it), within 10 s (scaled): the record then. */
static inline struct shm_slot tf_wait_busy(enum shm_table_id t, uint64_t job, uint64_t gen)
{
	struct shm_slot s;

	for (uint64_t t0 = t_now_ns();; usleep(1000)) {
		s = tf_slot(t, 0);
		if (s.state == SHM_SLOT_BUSY && s.job_id == job && s.gen == gen)
			return s;
		CHECK(t_now_ns() - t0 < t_hang_ns(10000),
		      "slot %s job %llu gen %llu after %u s, want busy with job %llu gen %llu",
		      shm_slot_state_name(s.state), (unsigned long long)s.job_id,
		      (unsigned long long)s.gen, 10 * t_slow(), (unsigned long long)job,
		      (unsigned long long)gen);
	}
}

/* Until slot 0 of t has beaten at or after mono time at_ns, within 10 s
 * (scaled): 1, or 0 if it did not. */
static inline int tf_beat_by(enum shm_table_id t, uint64_t at_ns)
{
	for (uint64_t t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(10000); usleep(10000))
		if (tf_slot(t, 0).heartbeat_mono_ns >= at_ns)
			return 1;
	return 0;
}

/* The record as a dead writer left it must be the assignment of job (busy)
 * or, when busy is 0, not that job's. */
static inline void tf_check_busy(enum shm_table_id t, uint64_t job, uint64_t gen, int busy)
{
	struct shm_slot s = tf_slot(t, 0);

	if (busy)
		CHECK(s.state == SHM_SLOT_BUSY && s.job_id == job && s.gen == gen,
		      "slot %s job %llu gen %llu, want busy with job %llu gen %llu",
		      shm_slot_state_name(s.state), (unsigned long long)s.job_id,
		      (unsigned long long)s.gen, (unsigned long long)job, (unsigned long long)gen);
	else
		CHECK(s.state != SHM_SLOT_BUSY && s.gen < gen,
		      "slot %s gen %llu: the begin of gen %llu was published",
		      shm_slot_state_name(s.state), (unsigned long long)s.gen,
		      (unsigned long long)gen);
}

/* As the supervisor does after reaping: repair, then the record reads the
 * same every time, both copies agree, and it says how the worker ended. */
static inline struct shm_slot tf_repair(enum shm_table_id t, int st)
{
	uint32_t kind = WIFSIGNALED(st) ? SHM_EXIT_SIGNAL : SHM_EXIT_CODE;
	int32_t code = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
	struct shm_slot v;

	CHECK(shm_slot_repair(tf_seg, t, 0, kind, code, &v) == 0, "repair");
	CHECK(tf_seq(t, 0) % 2 == 0 && tf_copies_equal(t, 0), "repair left a torn record");
	for (int i = 0; i < 100; i++) {
		struct shm_slot r = tf_slot(t, 0);

		CHECK(!memcmp(&r, &v, sizeof r), "read after repair differs");
	}
	CHECK(v.state == SHM_SLOT_CRASHED && v.last_exit_kind == kind && v.last_exit_code == code,
	      "repaired record: %s exit %u/%d", shm_slot_state_name(v.state), v.last_exit_kind,
	      v.last_exit_code);
	return v;
}

/* Read one frame whose header must be valid; 1 when its payload checksum
 * (PART_DATA: its trailer) holds, 0 when not. The payload is malloc'd
 * into *p. */
static inline int tf_recv_raw(int fd, struct frame_hdr *h, uint8_t **p)
{
	char err[256];

	CHECK(t_readable(fd, t_hang_ms(5000)), "no frame within %u s", 5 * t_slow());
	CHECK(frame_read_full(fd, h, sizeof *h) == 0, "reading a frame header");
	CHECK(frame_check_hdr(h, VOCAB_LOG_MAX, err, sizeof err) == 0, "bad header: %s", err);
	*p = malloc(h->payload_len + 1);
	CHECK(*p && frame_read_full(fd, *p, h->payload_len) == 0, "reading a payload");
	return frame_payload_ok(h, *p);
}

/* Sends one piece of work for job to the worker, under a new generation
 * (returned). */
typedef uint64_t tf_send_fn(struct t_child *c, uint64_t job);

/* One fault that kills its worker: the rule, the job it fires on, how the
 * worker must end (by signal sig, or with exit code when sig is 0), and
 * whether the begin of that job was published before it. */
struct tf_crash {
	const char *rule;
	uint64_t job;
	int sig, code;
	int published;
};

/* Each crash in turn, on slot 0 of table t of a fresh bin/prog: it ends as
 * told, after writing nothing; the record is the one its publication
 * leaves; repair makes it whole and, when the begin was published, counts
 * the lost partition as failed. */
static inline void tf_crashes(const char *prog, enum shm_table_id t, tf_send_fn *send,
			      const struct tf_crash *cr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *rule = cr[i].rule;
		struct t_child c;

		tf_spawn(&c, prog, "0", rule, 0);
		tf_hello(&c);
		uint64_t gen = send(&c, cr[i].job);
		int st = t_wait(&c, t_hang_ms(5000));

		CHECK(st >= 0, "%s: still running after %u s", rule, 5 * t_slow());
		tf_fired(&c, rule, 1);
		if (cr[i].sig)
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == cr[i].sig, "%s: status 0x%x", rule, st);
		else
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == cr[i].code, "%s: status 0x%x", rule, st);
		uint64_t failed = tf_slot(t, 0).failed;

		tf_check_busy(t, cr[i].job, gen, cr[i].published);
		struct shm_slot v = tf_repair(t, st);

		if (cr[i].published)
			CHECK(v.failed == failed + 1 && v.gen == gen,
			      "%s: repair did not count the lost partition", rule);
		else
			CHECK(v.failed == failed, "%s: repair counted a partition never begun", rule);
	}
}

#endif
