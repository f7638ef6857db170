/*
 * A reader stopped with SIGSTOP in the middle of a read (test fault point)
 * must not slow a writer: writers never wait for readers. Measures the
 * writer's update rate with the stopped reader and then alone, and
 * prints the ratio of medians. Then the reader is continued and must
 * finish with a consistent record or an unreadable mark, never a torn one.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/shm/common.h"

#define UPDATES 400000

static int reader_stop = 0;

static void stop_in_read(int where)
{
	if (where == SHM_FAULT_READ && reader_stop) {
		reader_stop = 0;
		raise(SIGSTOP);
	}
}

static uint64_t gen;

static double writer_ns_per_update(struct shm_slot_writer *w)
{
	uint64_t t0 = t_now_ns();

	for (int i = 0; i < UPDATES / 2; i++) {
		struct shm_assign a = { .job_id = ++gen, .partition = (uint32_t)(gen % 64) };
		if (shm_slot_begin(w, gen, &a) < 0 || shm_slot_end(w, gen, 1) != 1)
			T_FAIL("begin/end refused");
	}
	return (double)(t_now_ns() - t0) / UPDATES;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One round: a reader forked and stopped inside its read; the writer's
 * rate with it stopped, then (once it is continued and has finished)
 * alone. Returns the ratio of the medians. */
static double one_round(struct shm_seg *s, struct shm_slot_writer *w)
{
	double alone[5], stopped[5];
	int status;
	pid_t pid = fork();

	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct shm_slot v;
		shm_latch_fault = stop_in_read;
		reader_stop = 1;
		int rc = shm_read_slot(s, SHM_T_GPU, 0, &v);	/* stops inside */
		if (rc == -EAGAIN)
			_exit(10);	/* explicit unreadable mark */
		if (rc != 0 || v.gen != v.job_id || (v.state != SHM_SLOT_IDLE && v.state != SHM_SLOT_BUSY))
			_exit(1);	/* torn */
		_exit(0);
	}
	CHECK(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status), "reader did not stop");

	for (int r = 0; r < 5; r++)
		stopped[r] = writer_ns_per_update(w);
	kill(pid, SIGCONT);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "reader died");
	CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 10,
	      "the continued reader returned a torn record");
	printf("info: continued reader: %s\n", WEXITSTATUS(status) ? "unreadable (explicit mark)" : "consistent record");
	for (int r = 0; r < 5; r++)
		alone[r] = writer_ns_per_update(w);
	qsort(alone, 5, sizeof alone[0], cmp);
	qsort(stopped, 5, sizeof stopped[0], cmp);
	double ratio = stopped[2] / alone[2];
	printf("info: writer %.1f ns/update alone, %.1f ns/update with a reader stopped mid-read: ratio %.2f\n",
	       alone[2], stopped[2], ratio);
	return ratio;
}

int main(void)
{
	struct shm_seg *s = t_seg_create("stopread", 1, 1);
	struct shm_slot_writer w;

	CHECK(shm_slot_attach(&w, s, SHM_T_GPU, 0) == 0, "attach");
	shm_slot_ready(&w, 1);

	/* A writer that waited on the stopped reader would never finish a
	 * round; one merely slowed would be slowed in every round. Another
	 * process taking the CPU slows only one, so the best of three is
	 * what is compared. */
	double best = one_round(s, &w);
	for (int r = 1; r < 3 && best >= 2.0; r++) {
		double ratio = one_round(s, &w);
		if (ratio < best)
			best = ratio;
	}
	CHECK(best < 2.0, "a stopped reader slowed the writer %.2fx", best);
	return 0;
}
