/*
 * fault_gpu: each fault point of bin/gpuworker (backend cpu) with a
 * representative action, checked where the supervisor would look: the
 * wait status, the frames that came (or did not), and the slot record,
 * including the record a writer killed inside a status write leaves and
 * what shm_slot_repair makes of it.
 *
 *   start:exit        exit 4 before HELLO
 *   before:abort      SIGABRT with the partition taken, its begin unpublished
 *   during:exit=7     exit 7, the slot busy with that job (last consistent)
 *   after:segv        SIGSEGV after the work, no result, the slot still busy
 *   frame:corrupt     a valid H_DONE header over a payload that fails its
 *                     checksum; the next result is sound (COUNT 1)
 *   shm:kill          SIGKILL halfway through the begin's write: the latch
 *                     left odd, readers see the previous record, repair
 *                     makes it whole
 *   during:hang       no result within 1 s, heartbeats go on; SIGTERM ends it
 *   during:stop       stopped (WUNTRACED), heartbeats too; SIGCONT and the
 *                     result comes
 *   during:hold       no result within 1 s, busy, heartbeats go on; asked
 *                     to abandon another generation it still holds; asked
 *                     for its own, it answers FAIL "pre-empted" and proves
 *                     the next partition as usual (COUNT 1)
 */
#include <signal.h>

#include "format/pfile.h"
#include "synth/synth.h"
#include "tests/fault/common.h"

#define TF_K 8

static uint8_t *tf_payload;	/* one partition's PART_DATA payload, reused */
static uint64_t tf_gen;		/* generations only grow on the slot */

static void make_payload(void)
{
	size_t n = (size_t)1 << TF_K;
	struct synth_id id = { .partition = 0, .k = TF_K };
	fr_t *v = malloc(3 * n * sizeof(fr_t));

	tf_payload = malloc(frame_expected_len(FRAME_PART_DATA, TF_K));
	CHECK(v && tf_payload && synth_parse_seed(&id, "fa0170") == 0, "setup");
	CHECK(synth_partition(&id, v, v + n, v + 2 * n) == 0, "synth_partition");
	for (unsigned vec = 0; vec < 3; vec++)
		for (size_t i = 0; i < n; i++)
			fr_to_bytes(tf_payload + frame_part_off(TF_K, vec, i), &v[vec * n + i]);
	frame_part_seal(tf_payload, TF_K);
	free(v);
}

/* Send the partition as job's, under a new generation (returned). */
static uint64_t send_part(struct t_child *c, uint64_t job)
{
	struct frame_hdr h;

	frame_init(&h, FRAME_PART_DATA, job, 0, VOCAB_KIND_POREP, TF_K, ++tf_gen);
	h.payload_len = frame_expected_len(FRAME_PART_DATA, TF_K);	/* checksum: the trailer */
	frame_seal_hdr(&h);
	CHECK(frame_send(c->in, &h, tf_payload) == 0, "send PART_DATA");
	return tf_gen;
}

static void expect_result(struct t_child *c, uint64_t job)
{
	struct frame_hdr h;
	uint8_t *p;

	CHECK(tf_recv_raw(c->out, &h, &p), "job %llu: checksum fails", (unsigned long long)job);
	CHECK(h.type == FRAME_H_DONE && h.job == job, "got %s for job %llu",
	      frame_type_name(h.type), (unsigned long long)h.job);
	free(p);
}

static void test_start(void)
{
	struct t_child c;
	uint8_t b;

	tf_spawn(&c, "gpuworker", "0", "gpu:start:exit", 0);
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 4, "start:exit: status 0x%x", st);
	CHECK(read(c.out, &b, 1) == 0, "start:exit: it wrote before dying (HELLO?)");
	CHECK(tf_slot(SHM_T_GPU, 0).pid == (uint32_t)c.pid, "it never attached");
	tf_fired(&c, "gpu:start:exit", 0);
	tf_repair(SHM_T_GPU, st);
}

static void test_crashes(void)
{
	static const struct tf_crash cr[] = {
		{ "gpu.0:before:abort", 2, SIGABRT, 0, 0 },
		{ "gpu:during:exit=7", 3, 0, 7, 1 },
		{ "any:after:segv", 4, SIGSEGV, 0, 1 },
	};

	tf_crashes("gpuworker", SHM_T_GPU, send_part, cr, sizeof cr / sizeof cr[0]);
}

/* The first result corrupted after its seal, the second sound. */
static void test_frame(void)
{
	struct t_child c;
	struct frame_hdr h;
	uint8_t *p;

	tf_spawn(&c, "gpuworker", "0", "gpu:frame:corrupt", 0);
	tf_hello(&c);
	send_part(&c, 5);
	CHECK(!tf_recv_raw(c.out, &h, &p), "frame:corrupt: the checksum still holds");
	CHECK(h.type == FRAME_H_DONE && h.job == 5, "frame:corrupt: got %s",
	      frame_type_name(h.type));
	free(p);
	send_part(&c, 6);
	expect_result(&c, 6);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "frame: EOF status 0x%x", st);
	tf_fired(&c, "gpu:frame:corrupt", 1);
}

/* Killed in copy 0 of the begin's write: odd sequence, old record. */
static void test_shm(void)
{
	struct t_child c;
	uint64_t before = tf_slot(SHM_T_GPU, 0).gen;

	tf_spawn(&c, "gpuworker", "0", "gpu.0:shm:kill", 0);
	tf_hello(&c);
	uint64_t gen = send_part(&c, 7);
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0, "shm:kill: still running after %u s", 5 * t_slow());
	tf_fired(&c, "gpu.0:shm:kill", 1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "shm:kill: status 0x%x", st);
	CHECK(tf_seq(SHM_T_GPU, 0) % 2 == 1, "not killed inside a status write");
	CHECK(tf_slot(SHM_T_GPU, 0).gen == before, "readers do not see the last record");
	tf_check_busy(SHM_T_GPU, 7, gen, 0);
	struct shm_slot v = tf_repair(SHM_T_GPU, st);
	CHECK(v.gen == before, "repaired record is not the last consistent one");
}

static void test_hang(void)
{
	struct t_child c;
	uint64_t gen, beat;

	tf_spawn(&c, "gpuworker", "0", "gpu:during:hang", 0);
	tf_hello(&c);
	gen = send_part(&c, 8);
	/* From its begin on (published with a beat), two more beats (every
	 * 250 ms) must come while no result does. */
	beat = tf_wait_busy(SHM_T_GPU, 8, gen).heartbeat_mono_ns;
	CHECK(!t_readable(c.out, 1000), "during:hang: a frame came");
	tf_check_busy(SHM_T_GPU, 8, gen, 1);
	CHECK(tf_beat_by(SHM_T_GPU, beat + 500000000ull), "during:hang: the heartbeat stopped");
	kill(c.pid, SIGTERM);
	int st = t_wait(&c, t_hang_ms(2000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "hang: SIGTERM status 0x%x", st);
	tf_fired(&c, "gpu:during:hang", 1);
}

static void test_stop(void)
{
	struct t_child c;
	uint64_t gen, beat;

	tf_spawn(&c, "gpuworker", "0", "gpu:during:stop", 0);
	tf_hello(&c);
	gen = send_part(&c, 9);
	CHECK(tf_stopped(&c, t_hang_ms(5000)), "during:stop: not stopped");
	tf_check_busy(SHM_T_GPU, 9, gen, 1);
	beat = tf_slot(SHM_T_GPU, 0).heartbeat_mono_ns;
	usleep(600000);
	CHECK(tf_slot(SHM_T_GPU, 0).heartbeat_mono_ns == beat, "stopped, yet it beats");
	kill(c.pid, SIGCONT);
	expect_result(&c, 9);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "stop: EOF status 0x%x", st);
	tf_fired(&c, "gpu:during:stop", 1);
}

static void test_hold(void)
{
	struct t_child c;
	struct frame_hdr h;
	union sigval v;
	uint64_t gen, beat;
	uint8_t *p;

	tf_spawn(&c, "gpuworker", "0", "gpu:during:hold", 0);
	tf_hello(&c);
	gen = send_part(&c, 10);
	beat = tf_wait_busy(SHM_T_GPU, 10, gen).heartbeat_mono_ns;	/* as in test_hang */
	v.sival_ptr = (void *)(uintptr_t)(gen + 100);	/* not its own: it holds on */
	CHECK(sigqueue(c.pid, FRAME_ABANDON_SIGNAL, v) == 0, "sigqueue");
	CHECK(!t_readable(c.out, 1000), "during:hold: a frame came");
	tf_check_busy(SHM_T_GPU, 10, gen, 1);
	CHECK(tf_beat_by(SHM_T_GPU, beat + 500000000ull), "during:hold: the heartbeat stopped");
	v.sival_ptr = (void *)(uintptr_t)gen;
	CHECK(sigqueue(c.pid, FRAME_ABANDON_SIGNAL, v) == 0, "sigqueue");
	CHECK(tf_recv_raw(c.out, &h, &p), "hold: the answer's checksum fails");
	CHECK(h.type == FRAME_FAIL && h.gen == gen && h.payload_len == strlen(FRAME_FAIL_PREEMPTED) &&
	      !memcmp(p, FRAME_FAIL_PREEMPTED, h.payload_len), "hold: %s gen %llu \"%.*s\"",
	      frame_type_name(h.type), (unsigned long long)h.gen, (int)h.payload_len, (char *)p);
	free(p);
	send_part(&c, 11);
	expect_result(&c, 11);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "hold: EOF status 0x%x", st);
	tf_fired(&c, "gpu:during:hold", 1);
}

int main(void)
{
	tf_setup("fgpu", 1, 1);
	make_payload();
	test_start();
	test_crashes();
	test_frame();
	test_shm();
	test_hang();
	test_stop();
	test_hold();
	return 0;
}
