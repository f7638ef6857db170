/*
 * The race from the design brief: a worker holding two partitions begins
 * the second before the end of the first is published.
 *   begin(g1, job A p0), begin(g2, job B p3), end(g1) -> still busy on B p3
 *   end(g2) -> idle; busy time covers both partitions; both counted.
 * Also: generations only grow (a stale begin is refused, across a restart
 * of the worker too), and an end for a generation never begun is refused.
 */
#include <errno.h>
#include <unistd.h>

#include "tests/shm/common.h"

static void read_slot(struct shm_seg *s, struct shm_slot *v)
{
	CHECK(shm_read_slot(s, SHM_T_GPU, 0, v) == 0, "read");
}

static void nap_ms(unsigned ms)
{
	usleep(ms * 1000);
}

int main(void)
{
	struct shm_seg *s = t_seg_create("race", 1, 1);
	struct shm_slot_writer w;
	struct shm_slot v;
	struct shm_assign a = { .job_id = 0xA, .partition = 0, .kind = 1 };
	struct shm_assign b = { .job_id = 0xB, .partition = 3, .kind = 2 };
	uint64_t t0, t1;

	CHECK(shm_slot_attach(&w, s, SHM_T_GPU, 0) == 0, "attach");
	read_slot(s, &v);
	CHECK(v.state == SHM_SLOT_STARTING && v.pid == (uint32_t)getpid(), "attach publishes starting");
	shm_slot_ready(&w, 1);
	read_slot(s, &v);
	CHECK(v.state == SHM_SLOT_IDLE && v.backend == 1, "ready publishes idle");

	t0 = t_now_ns();
	CHECK(shm_slot_begin(&w, 1, &a) == 0, "begin g1");
	nap_ms(30);
	CHECK(shm_slot_begin(&w, 2, &b) == 0, "begin g2");
	nap_ms(30);
	CHECK(shm_slot_end(&w, 1, 1) == 0, "end(g1) must not clear busy");
	read_slot(s, &v);
	CHECK(v.state == SHM_SLOT_BUSY, "after end(g1) the slot is %s, not busy",
	      shm_slot_state_name(v.state));
	CHECK(v.job_id == 0xB && v.partition == 3 && v.kind == 2 && v.gen == 2,
	      "after end(g1) the slot shows job %llx p%u, not job B p3",
	      (unsigned long long)v.job_id, v.partition);
	CHECK_EQ_U64(v.done, 1);
	CHECK_EQ_U64(v.busy_ns, 0);	/* the spell is still open */
	nap_ms(30);
	CHECK(shm_slot_end(&w, 2, 1) == 1, "end(g2) clears busy");
	t1 = t_now_ns();
	read_slot(s, &v);
	CHECK(v.state == SHM_SLOT_IDLE, "after end(g2): %s", shm_slot_state_name(v.state));
	CHECK_EQ_U64(v.done, 2);
	CHECK_EQ_U64(v.failed, 0);
	CHECK(v.busy_ns >= 90 * 1000000ull && v.busy_ns <= t1 - t0,
	      "busy time %llu ns should cover both partitions (>= 90 ms, <= %llu)",
	      (unsigned long long)v.busy_ns, (unsigned long long)(t1 - t0));
	printf("info: busy %.1f ms over a %.1f ms double-partition spell\n",
	       (double)v.busy_ns / 1e6, (double)(t1 - t0) / 1e6);

	/* The generation rule. */
	CHECK(shm_slot_begin(&w, 2, &a) == -ESTALE, "a reused generation is refused");
	CHECK(shm_slot_begin(&w, 1, &a) == -ESTALE, "an older generation is refused");
	CHECK(shm_slot_end(&w, 7, 1) == -EINVAL, "end of a generation never begun");
	read_slot(s, &v);
	CHECK(v.state == SHM_SLOT_IDLE && v.done == 2, "refused calls changed nothing");

	/* A failed partition counts as failed, not done. */
	CHECK(shm_slot_begin(&w, 3, &a) == 0, "begin g3");
	CHECK(shm_slot_end(&w, 3, 0) == 1, "end g3 failed");
	read_slot(s, &v);
	CHECK(v.done == 2 && v.failed == 1, "failure counted as failure");

	/* A restarted worker continues the slot's generations and counters. */
	struct shm_slot_writer w2;
	CHECK(shm_slot_repair(s, SHM_T_GPU, 0, SHM_EXIT_SIGNAL, 9, &v) == 0, "repair");
	CHECK(v.state == SHM_SLOT_CRASHED && v.last_exit_code == 9, "repair marks crashed");
	CHECK(shm_slot_attach(&w2, s, SHM_T_GPU, 0) == 0, "re-attach");
	CHECK(shm_slot_begin(&w2, 3, &a) == -ESTALE, "generations grow across a restart");
	CHECK(shm_slot_begin(&w2, 4, &a) == 0, "newer generation accepted after restart");
	read_slot(s, &v);
	CHECK(v.done == 2 && v.failed == 1 && v.state == SHM_SLOT_BUSY, "counters carried over");
	return 0;
}
