/*
 * fault_synth: each fault point of bin/synth with a representative action,
 * checked as fault_gpu checks gpuworker's:
 *
 *   start:exit=5      exit 5 before HELLO
 *   before:kill       SIGKILL with the request read, its begin unpublished
 *   during:exit=7     exit 7, the slot busy with that job (last consistent)
 *   after:abort       SIGABRT after synthesis: the PART_DATA header and every
 *                     row came, not the trailer (the frame 8 bytes short);
 *                     slot still busy
 *   frame:corrupt     a valid PART_DATA header over rows (all canonical) that
 *                     fail the trailer's checksum; the next one is sound
 *                     (COUNT 1)
 *   shm:stop          stopped halfway through the begin's write (latch odd,
 *                     readers see the previous record); killed there, repair
 *                     makes the record whole
 *   during:hang       no PART_DATA within 1 s, the process alive; synth has
 *                     one thread, so its heartbeat stops with it
 */
#include "synth/synth.h"
#include "tests/fault/common.h"

#define TF_K 10

static uint64_t tf_gen;

/* A SYNTH_REQ for job under a new generation (returned). */
static uint64_t send_req(struct t_child *c, uint64_t job)
{
	struct frame_synth_req req = { .seed_len = 2, .seed = { 0xfa, 0x17 } };
	struct frame_hdr h;

	frame_init(&h, FRAME_SYNTH_REQ, job, 1, 3, TF_K, ++tf_gen);
	frame_seal(&h, &req, sizeof req);
	CHECK(frame_send(c->in, &h, &req) == 0, "send SYNTH_REQ");
	return tf_gen;
}

static void test_start(void)
{
	struct t_child c;
	uint8_t b;

	tf_spawn(&c, "synth", "0", "synth.0:start:exit=5", 0);
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 5, "start:exit=5: status 0x%x", st);
	CHECK(read(c.out, &b, 1) == 0, "start:exit=5: it wrote before dying (HELLO?)");
	tf_fired(&c, "synth.0:start:exit=5", 0);
	tf_repair(SHM_T_SYNTH, st);
}

static void test_crashes(void)
{
	static const struct tf_crash cr[] = {
		{ "synth:before:kill", 2, SIGKILL, 0, 0 },
		{ "synth:during:exit=7", 3, 0, 7, 1 },
	};

	tf_crashes("synth", SHM_T_SYNTH, send_req, cr, sizeof cr / sizeof cr[0]);
}

/* Streamed, the synth's work is done with the rows written: it dies
 * before the trailer, the frame cut 8 bytes short (the supervisor pads
 * it with zeros for the gpuworker, whose check then fails). */
static void test_after(void)
{
	const char *rule = "any:after:abort";
	uint64_t len = frame_expected_len(FRAME_PART_DATA, TF_K) - FRAME_TRAILER_BYTES;
	struct t_child c;
	struct frame_hdr h;
	uint8_t *rows = malloc(len);

	CHECK(rows, "malloc");
	tf_spawn(&c, "synth", "0", rule, 0);
	tf_hello(&c);
	uint64_t gen = send_req(&c, 4);

	CHECK(t_readable(c.out, t_hang_ms(5000)), "after:abort: no PART_DATA within %u s", 5 * t_slow());
	CHECK(frame_read_full(c.out, &h, sizeof h) == 0 && h.type == FRAME_PART_DATA && h.job == 4,
	      "after:abort: no PART_DATA header");
	CHECK(frame_read_full(c.out, rows, len) == 0, "after:abort: the rows did not all come");
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "%s: status 0x%x", rule, st);
	tf_fired(&c, rule, 1);	/* and no trailer: EOF */
	uint64_t failed = tf_slot(SHM_T_SYNTH, 0).failed;

	tf_check_busy(SHM_T_SYNTH, 4, gen, 1);
	struct shm_slot v = tf_repair(SHM_T_SYNTH, st);

	CHECK(v.failed == failed + 1 && v.gen == gen, "%s: repair did not count the lost partition",
	      rule);
	free(rows);
}

static void test_frame(void)
{
	struct t_child c;
	struct frame_hdr h;
	uint8_t *p;

	tf_spawn(&c, "synth", "0", "synth:frame:corrupt", 0);
	tf_hello(&c);
	send_req(&c, 5);
	CHECK(!tf_recv_raw(c.out, &h, &p), "frame:corrupt: the checksum still holds");
	CHECK(h.type == FRAME_PART_DATA && h.job == 5, "frame:corrupt: got %s",
	      frame_type_name(h.type));
	/* Every element still canonical: only the checksum can tell (a
	 * gpuworker refuses the partition, rather than its supervisor). */
	for (uint64_t off = 0; off + FRAME_TRAILER_BYTES < h.payload_len; off += FR_BYTES) {
		fr_t e;

		CHECK(fr_from_bytes(&e, p + off) == 0, "frame:corrupt: element at %llu not canonical",
		      (unsigned long long)off);
	}
	free(p);
	CHECK(tf_recv_raw(c.out, &h, &p) && h.type == FRAME_PART_INFO, "its PART_INFO");
	free(p);
	send_req(&c, 6);
	CHECK(tf_recv_raw(c.out, &h, &p), "the next PART_DATA is corrupt too");
	CHECK(h.type == FRAME_PART_DATA && h.job == 6, "got %s", frame_type_name(h.type));
	free(p);
	CHECK(tf_recv_raw(c.out, &h, &p) && h.type == FRAME_PART_INFO, "its PART_INFO");
	free(p);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "frame: EOF status 0x%x", st);
	tf_fired(&c, "synth:frame:corrupt", 1);
}

/* Stopped in copy 0 of the begin's write: readers keep the old record. */
static void test_shm(void)
{
	struct t_child c;
	uint64_t gen, before = tf_slot(SHM_T_SYNTH, 0).gen;

	tf_spawn(&c, "synth", "0", "synth:shm:stop", 0);
	tf_hello(&c);
	gen = send_req(&c, 7);
	CHECK(tf_stopped(&c, t_hang_ms(5000)), "shm:stop: not stopped");
	CHECK(tf_seq(SHM_T_SYNTH, 0) % 2 == 1, "not stopped inside a status write");
	CHECK(tf_slot(SHM_T_SYNTH, 0).gen == before, "readers do not see the last record");
	kill(c.pid, SIGKILL);
	int st = t_wait(&c, t_hang_ms(5000));

	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "shm: status 0x%x", st);
	tf_fired(&c, "synth:shm:stop", 1);
	tf_check_busy(SHM_T_SYNTH, 7, gen, 0);
	struct shm_slot v = tf_repair(SHM_T_SYNTH, st);
	CHECK(v.gen == before, "repaired record is not the last consistent one");
}

static void test_hang(void)
{
	struct t_child c;
	uint64_t gen, beat;

	tf_spawn(&c, "synth", "0", "synth:during:hang", 0);
	tf_hello(&c);
	gen = send_req(&c, 8);
	/* Its begin published (with the begin's beat, its last before the
	 * fault point): the beat nothing may move. */
	beat = tf_wait_busy(SHM_T_SYNTH, 8, gen).heartbeat_mono_ns;
	CHECK(!t_readable(c.out, 1000), "during:hang: a frame came");
	CHECK(waitpid(c.pid, &(int){ 0 }, WNOHANG) == 0, "during:hang: it ended");
	tf_check_busy(SHM_T_SYNTH, 8, gen, 1);
	CHECK(tf_slot(SHM_T_SYNTH, 0).heartbeat_mono_ns == beat,
	      "one thread hangs, yet the heartbeat goes on");
	kill(c.pid, SIGTERM);
	int st = t_wait(&c, t_hang_ms(2000));

	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "hang: status 0x%x", st);
	tf_fired(&c, "synth:during:hang", 1);
}

int main(void)
{
	tf_setup("fsynth", 1, 1);
	test_start();
	test_crashes();
	test_after();
	test_frame();
	test_shm();
	test_hang();
	return 0;
}
