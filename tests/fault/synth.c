/*
 * fault_synth: each fault point of bin/synth with a representative action,
 * checked as fault_gpu checks gpuworker's:
 *
 *   start:exit=5      exit 5 before HELLO
 *   before:kill       SIGKILL with the request read, its begin unpublished
 *   during:exit=7     exit 7, the slot busy with that job (last consistent)
 *   after:abort       SIGABRT after synthesis: no PART_DATA, slot still busy
 *   frame:corrupt     a valid PART_DATA header over a payload that fails its
 *                     checksum; the next one is sound (COUNT 1)
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
	int st = t_wait(&c, 5000);

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
		{ "any:after:abort", 4, SIGABRT, 0, 1 },
	};

	tf_crashes("synth", SHM_T_SYNTH, send_req, cr, sizeof cr / sizeof cr[0]);
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
	free(p);
	send_req(&c, 6);
	CHECK(tf_recv_raw(c.out, &h, &p), "the next PART_DATA is corrupt too");
	CHECK(h.type == FRAME_PART_DATA && h.job == 6, "got %s", frame_type_name(h.type));
	free(p);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, 5000);

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
	CHECK(tf_stopped(&c, 5000), "shm:stop: not stopped");
	CHECK(tf_seq(SHM_T_SYNTH, 0) % 2 == 1, "not stopped inside a status write");
	CHECK(tf_slot(SHM_T_SYNTH, 0).gen == before, "readers do not see the last record");
	kill(c.pid, SIGKILL);
	int st = t_wait(&c, 5000);

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
	usleep(100000);
	beat = tf_slot(SHM_T_SYNTH, 0).heartbeat_mono_ns;
	CHECK(!t_readable(c.out, 1000), "during:hang: a frame came");
	CHECK(waitpid(c.pid, &(int){ 0 }, WNOHANG) == 0, "during:hang: it ended");
	tf_check_busy(SHM_T_SYNTH, 8, gen, 1);
	CHECK(tf_slot(SHM_T_SYNTH, 0).heartbeat_mono_ns == beat,
	      "one thread hangs, yet the heartbeat goes on");
	kill(c.pid, SIGTERM);
	int st = t_wait(&c, 2000);

	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "hang: status 0x%x", st);
	tf_fired(&c, "synth:during:hang", 1);
}

int main(void)
{
	tf_setup("fsynth", 1, 1);
	test_start();
	test_crashes();
	test_frame();
	test_shm();
	test_hang();
	return 0;
}
