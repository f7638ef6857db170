/*
 * A reader stopped with SIGSTOP in the middle of a read (test fault point)
 * must not hold up a writer: writers never wait for readers. With the
 * reader stopped inside its read, the writer completes every one of its
 * begin/end updates (a writer that waited on the reader would never finish
 * the first), and a fresh read sees the last of them. Then the reader is
 * continued and must finish with a consistent record or an unreadable
 * mark, never a torn one. The writer's rate with the stopped reader and
 * alone, and their ratio, are printed (info: timing only, not asserted).
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/shm/common.h"

#define UPDATES T_SIZE(400000, 100000)	/* per measurement */
#define RUNS 5

static int reader_stop = 0;

static void stop_in_read(int where)
{
	if (where == SHM_FAULT_READ && reader_stop) {
		reader_stop = 0;
		raise(SIGSTOP);
	}
}

static uint64_t gen;

/* UPDATES / 2 begin/end pairs; ns per update. */
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

/* The state of process pid from /proc/pid/stat ('T' stopped). */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	CHECK(f, "open %s", path);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	CHECK(p && p[1] == ' ', "cannot parse %s", path);
	return p[2];
}

int main(void)
{
	struct shm_seg *s = t_seg_create("stopread", 1, 1);
	struct shm_slot_writer w;
	struct shm_slot v;
	double alone[RUNS], stopped[RUNS];
	uint64_t gen0;
	int status;

	CHECK(shm_slot_attach(&w, s, SHM_T_GPU, 0) == 0, "attach");
	shm_slot_ready(&w, 1);

	pid_t pid = fork();

	CHECK(pid >= 0, "fork");
	if (pid == 0) {
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

	/* Every update completes while the reader stays stopped mid-read. */
	gen0 = gen;
	for (int r = 0; r < RUNS; r++)
		stopped[r] = writer_ns_per_update(&w);
	CHECK_EQ_U64(gen - gen0, (uint64_t)RUNS * (UPDATES / 2));
	CHECK(proc_state(pid) == 'T', "the reader is no longer stopped (state %c)", proc_state(pid));
	CHECK(shm_read_slot(s, SHM_T_GPU, 0, &v) == 0, "read beside the stopped reader");
	CHECK(v.gen == gen && v.job_id == gen && v.end_gen == gen && v.state == SHM_SLOT_IDLE &&
	      v.done == gen, "beside the stopped reader: gen %llu end %llu done %llu, wrote %llu",
	      (unsigned long long)v.gen, (unsigned long long)v.end_gen, (unsigned long long)v.done,
	      (unsigned long long)gen);
	printf("info: %d updates completed with a reader stopped mid-read; a fresh read sees "
	       "the last\n", RUNS * (UPDATES / 2) * 2);

	kill(pid, SIGCONT);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "reader died");
	CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 10,
	      "the continued reader returned a torn record");
	printf("info: continued reader: %s\n", WEXITSTATUS(status) ? "unreadable (explicit mark)" : "consistent record");

	for (int r = 0; r < RUNS; r++)
		alone[r] = writer_ns_per_update(&w);
	qsort(alone, RUNS, sizeof alone[0], cmp);
	qsort(stopped, RUNS, sizeof stopped[0], cmp);
	printf("info: writer %.1f ns/update alone, %.1f ns/update with a reader stopped mid-read: "
	       "ratio %.2f\n", alone[RUNS / 2], stopped[RUNS / 2], stopped[RUNS / 2] / alone[RUNS / 2]);
	return 0;
}
