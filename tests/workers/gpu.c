/*
 * workers_gpu: bin/gpuworker (backend cpu) driven the way the supervisor
 * drives it.
 *
 * - A stream of partitions written back to back: the results come in
 *   order, each an H_DONE whose digest is that of the H the worker wrote
 *   into its region of the job's result file (STATE/jobs/JOB/result.partial
 *   sent on --files-fd), which equals hterm_cpu's H and verifies; the worker
 *   reads at most two partitions ahead of what it has begun (each write
 *   returns only once the slot's generation shows the partition two back
 *   began); a sampler reading the segment in a tight loop sees the slot
 *   busy with every partition's own job and partition, never with another,
 *   and never busy after the last end; done counts them all; EOF ends the
 *   worker with 0 after its last result.
 * - An unsatisfied system is answered FAIL and the worker carries on;
 *   SIGTERM ends it promptly with 0.
 * - A payload that fails its trailer's checksum (a flipped byte in a chunk,
 *   a wrong trailer, a zero-padded tail) gets that partition a FAIL; the
 *   worker carries on.
 * - A result file that is not there gets an H_DONE with the error (ENOENT
 *   at open) and no digest; the worker carries on.
 * - Abandon on request (proto/frame.h: a real-time signal queued with a generation):
 *   a received partition waiting behind the running one is answered FAIL
 *   FRAME_FAIL_PREEMPTED at once, the running one (k=18, 17 under a
 *   sanitizer) at the H-term's next safe point, cut short: FAIL
 *   FRAME_FAIL_PREEMPTED, never its H_DONE; the slot counts both
 *   preempted (neither done nor failed) and goes idle; a request for a
 *   generation it does not hold changes nothing; it carries on. How long
 *   the abandon took, against the partition's whole H-term, is printed.
 * - A non-canonical element or a bad header ends it with 2 and one
 *   log line; --backend cuda without a device ends it with 3, after its
 *   HELLO (CUDA starts after HELLO).
 *
 * WORKERS_GPU_K=16 runs the stream at another size (for measurements).
 *
 * Waits that only bound a hang are scaled by t_slow() (tests/helpers.h).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "format/pfile.h"
#include "gpuworker/hterm.h"
#include "proto/fdchan.h"
#include "synth/synth.h"
#include "verify/verify.h"
#include "tests/workers/common.h"

#define T_NPARTS 6

static char t_name[64];
static struct shm_seg *t_sg;
static char t_jobs[256];	/* a temp STATE/jobs */
static int t_chan = -1;		/* our end of the running worker's files channel */

/* Send job's result file (if there is one) on the files channel, as the
 * supervisor does before the partition's frame. */
static void send_file(uint64_t job)
{
	char path[512];
	int fd;

	snprintf(path, sizeof path, "%s/%llu/result.partial", t_jobs, (unsigned long long)job);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || t_chan < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	(void)fdchan_send(t_chan, job, fd);	/* the last worker may be gone: then nobody needs it */
	close(fd);
}

/* One partition as the supervisor would send it, and what must come back. */
struct t_part {
	struct synth_id id;
	struct frame_hdr hdr;	/* sealed PART_DATA */
	uint8_t *payload;	/* chunks of a, b, c encoded, then the trailer */
	fr_t *h;		/* expected H (Montgomery) */
	uint64_t gen_at_write;	/* slot generation when its write returned */
	uint64_t hterm_ns;	/* this process's hterm_cpu of it, for info */
};

/* A gpuworker with a files channel, sent the files of every job made so
 * far (make_part sends the later ones). */
static void spawn_gpu(struct t_child *c, const char *slot, const char *backend, int nice_inc)
{
	char prog[256], fdarg[16];
	char *argv[] = { prog, "--instance", t_name, "--slot", (char *)slot,
			 "--gpu", "0", "--backend", (char *)backend, "--files-fd", fdarg,
			 NULL };
	int sv[2];
	DIR *d;
	struct dirent *e;

	if (t_chan >= 0)
		close(t_chan);
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "socketpair");
	CHECK(fcntl(sv[0], F_SETFD, FD_CLOEXEC) == 0, "cloexec");	/* sv[1]: inherited */
	snprintf(fdarg, sizeof fdarg, "%d", sv[1]);
	t_prog(prog, sizeof prog, "gpuworker");
	t_spawn(c, argv, nice_inc);
	close(sv[1]);
	t_chan = sv[0];
	CHECK((d = opendir(t_jobs)) != NULL, "opendir %s", t_jobs);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			send_file(strtoull(e->d_name, NULL, 10));
	closedir(d);
}

/* A PART_DATA header as a synth sends it: the payload's length, checksum
 * 0 (it is the payload's trailer). */
static void part_hdr(struct frame_hdr *h, uint64_t job, uint32_t p, uint16_t kind, uint32_t k,
		     uint64_t gen)
{
	frame_init(h, FRAME_PART_DATA, job, p, kind, (uint16_t)k, gen);
	h->payload_len = frame_expected_len(FRAME_PART_DATA, (uint16_t)k);
	frame_seal_hdr(h);
}

/* Synthesize (seed, p, k) into a PART_DATA (a, b, c laid out in chunks,
 * then the trailer) and its expected H. */
static void make_part(struct t_part *tp, const char *seed, uint32_t p, uint32_t k,
		      uint64_t job, uint64_t gen)
{
	size_t n = (size_t)1 << k;
	fr_t *v = malloc(3 * n * sizeof(fr_t));

	memset(&tp->id, 0, sizeof tp->id);
	tp->id.partition = p;
	tp->id.k = k;
	CHECK(v && synth_parse_seed(&tp->id, seed) == 0, "setup");
	CHECK(synth_partition(&tp->id, v, v + n, v + 2 * n) == 0, "synth_partition");
	part_hdr(&tp->hdr, job, p, VOCAB_KIND_POREP, k, gen);
	tp->payload = malloc(tp->hdr.payload_len);
	CHECK(tp->payload, "malloc");
	for (unsigned vec = 0; vec < 3; vec++)
		for (size_t i = 0; i < n; i++)
			fr_to_bytes(tp->payload + frame_part_off((uint16_t)k, vec, i), &v[vec * n + i]);
	frame_part_seal(tp->payload, (uint16_t)k);
	uint64_t t0 = t_now_ns();
	CHECK(hterm_cpu(v, v + n, v + 2 * n, k) == 0, "hterm_cpu");
	tp->hterm_ns = t_now_ns() - t0;
	tp->h = v;	/* H is in a, the first n elements */
	/* The job's result file, as the supervisor allocates it: room for
	 * partitions 0..p at least. */
	char path[512];
	struct stat st;
	int fd;
	snprintf(path, sizeof path, "%s/%llu", t_jobs, (unsigned long long)job);
	CHECK(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s", path);
	snprintf(path, sizeof path, "%s/%llu/result.partial", t_jobs, (unsigned long long)job);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && fstat(fd, &st) == 0, "open %s", path);
	if ((uint64_t)st.st_size < pfile_result2_size(k, p + 1))
		CHECK(ftruncate(fd, (off_t)pfile_result2_size(k, p + 1)) == 0, "ftruncate");
	close(fd);
	send_file(job);	/* to a worker already running */
}

static void free_part(struct t_part *tp)
{
	free(tp->payload);
	free(tp->h);
}

/* An H_DONE for tp: header; the digest is that of the bytes in tp's
 * region of its job's result file, which are hterm_cpu's H; verify
 * accepts them. */
static void check_result(int fd, const struct t_part *tp)
{
	size_t n = (size_t)1 << tp->id.k;
	struct frame_hdr h;
	struct frame_h_done d;
	struct pfile_digest dg;
	uint8_t *p, *raw = malloc(n * 32), sum[32];
	fr_t *H = malloc(n * sizeof(fr_t));
	char why[256], path[512];
	int rf;

	t_recv(fd, &h, &p);
	CHECK(h.type == FRAME_H_DONE, "got %s: %s", frame_type_name(h.type),
	      h.type == FRAME_FAIL ? (char *)p : "");
	CHECK_EQ_U64(h.job, tp->hdr.job);
	CHECK_EQ_U64(h.partition, tp->hdr.partition);
	CHECK_EQ_U64(h.gen, tp->hdr.gen);
	CHECK_EQ_U64(h.log_size, tp->id.k);
	memcpy(&d, p, sizeof d);
	CHECK(d.err == 0 && d.op == FRAME_STORE_OK, "storing failed: %s at step %u",
	      strerror(d.err), d.op);
	snprintf(path, sizeof path, "%s/%llu/result.partial", t_jobs, (unsigned long long)h.job);
	rf = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(rf >= 0 && raw && pread(rf, raw, n * 32, (off_t)pfile_result2_part_off(tp->id.k,
		      h.partition)) == (ssize_t)(n * 32), "read the region of %s", path);
	close(rf);
	pfile_digest_init(&dg);
	pfile_digest_update(&dg, raw, n * 32);
	pfile_digest_final(&dg, sum);
	CHECK(!memcmp(sum, d.digest, 32), "the digest is not that of the bytes written");
	for (size_t i = 0; i < n; i++) {
		CHECK(fr_from_bytes(&H[i], raw + 32 * i) == 0, "H[%zu] not canonical", i);
		CHECK(fr_equal(&H[i], &tp->h[i]), "H[%zu] differs from hterm_cpu's", i);
	}
	free(raw);
	CHECK(verify_partition(&tp->id, H, why, sizeof why) == 0, "verify: %s", why);
	printf("result: job %llu partition %u k=%u: H-term %.1f ms (work_ns)\n",
	       (unsigned long long)h.job, h.partition, tp->id.k, h.work_ns / 1e6);
	free(H);
	free(p);
}

/* ---- the stream ---- */

struct t_stream {
	struct t_part parts[T_NPARTS];
	int in;			/* the worker's stdin */
	atomic_int stop;	/* sampler: results all read */
	int seen[T_NPARTS];	/* sampler: seen busy with parts[i] */
	uint64_t samples;
};

/* Write every partition back to back, then EOF. A write returns once the
 * worker has read (nearly) all of it, so the worker has taken the frame
 * before: its generation two back must have begun by then. */
static void *writer(void *arg)
{
	struct t_stream *s = arg;

	for (int i = 0; i < T_NPARTS; i++) {
		struct t_part *tp = &s->parts[i];
		struct shm_slot sl;

		CHECK(frame_send(s->in, &tp->hdr, tp->payload) == 0, "send PART_DATA %d", i);
		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 0, &sl) == 0, "read slot");
		tp->gen_at_write = sl.gen;
	}
	close(s->in);
	return NULL;
}

/* Read the slot in a tight loop: busy always names the partition of its
 * generation; generations and counters never go back; never busy once
 * the last generation has ended. */
static void *sampler(void *arg)
{
	struct t_stream *s = arg;
	uint64_t last = s->parts[T_NPARTS - 1].hdr.gen, pgen = 0, pdone = 0;

	while (!atomic_load(&s->stop)) {
		struct shm_slot sl;
		int i;

		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 0, &sl) == 0, "read slot");
		s->samples++;
		CHECK(sl.gen >= pgen && sl.done >= pdone, "slot went back");
		pgen = sl.gen;
		pdone = sl.done;
		if (sl.end_gen == last)
			CHECK(sl.state != SHM_SLOT_BUSY, "busy after the last end");
		if (sl.state != SHM_SLOT_BUSY)
			continue;
		for (i = 0; i < T_NPARTS && s->parts[i].hdr.gen != sl.gen; i++)
			;
		CHECK(i < T_NPARTS, "busy with generation %llu, never sent",
		      (unsigned long long)sl.gen);
		CHECK(sl.job_id == s->parts[i].hdr.job && sl.partition == s->parts[i].hdr.partition,
		      "busy gen %llu with job %llu partition %u, sent job %llu partition %u",
		      (unsigned long long)sl.gen, (unsigned long long)sl.job_id, sl.partition,
		      (unsigned long long)s->parts[i].hdr.job, s->parts[i].hdr.partition);
		s->seen[i] = 1;
	}
	return NULL;
}

static void test_stream(void)
{
	static struct t_stream s;
	const char *ks = getenv("WORKERS_GPU_K");
	uint32_t k = ks ? (uint32_t)atoi(ks) : 0;
	pthread_t tw, ts;
	struct t_child c;
	struct frame_hdr h;
	struct shm_slot sl;
	uint64_t t0;
	uint8_t *p;
	int st;

	for (int i = 0; i < T_NPARTS; i++)
		make_part(&s.parts[i], "c0ffee", (uint32_t)i, k ? k : 14,
			  700 + (uint64_t)i / 2, 3 + 2 * (uint64_t)i);
	/* The sampler must see every partition, each some tens of ms long, on a
	 * machine shared with other work: a single-threaded H-term at a lower
	 * priority leaves it a core. A measurement run (WORKERS_GPU_K) runs
	 * the worker as the supervisor would. */
	if (!k)
		setenv("PROVISOR_HTERM_THREADS", "1", 1);
	spawn_gpu(&c, "0", "cpu", k ? 0 : 10);
	unsetenv("PROVISOR_HTERM_THREADS");
	t0 = t_now_ns();
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_HELLO && ((struct frame_hello *)p)->backend == 1, "HELLO");
	printf("hello: %s\n", ((struct frame_hello *)p)->desc);
	free(p);
	s.in = c.in;
	c.in = -1;	/* the writer closes it */
	CHECK(pthread_create(&ts, NULL, sampler, &s) == 0, "sampler");
	CHECK(pthread_create(&tw, NULL, writer, &s) == 0, "writer");
	for (int i = 0; i < T_NPARTS; i++)
		check_result(c.out, &s.parts[i]);
	st = t_wait(&c, t_hang_ms(10000));
	atomic_store(&s.stop, 1);
	pthread_join(tw, NULL);
	pthread_join(ts, NULL);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		static char log[1 << 16];

		t_read_log(&c, log, sizeof log);
		T_FAIL("EOF: status 0x%x, log:\n%s", st, log);
	}
	for (int i = 2; i < T_NPARTS; i++)
		CHECK(s.parts[i].gen_at_write >= s.parts[i - 2].hdr.gen,
		      "partition %d fully written before partition %d began: read too far ahead", i, i - 2);
	for (int i = 0; i < T_NPARTS; i++)
		CHECK(s.seen[i], "partition %d never seen busy (%llu samples)", i,
		      (unsigned long long)s.samples);
	CHECK(shm_read_slot(t_sg, SHM_T_GPU, 0, &sl) == 0, "read slot");
	CHECK(sl.state == SHM_SLOT_IDLE, "slot state %s after the last end",
	      shm_slot_state_name(sl.state));
	CHECK_EQ_U64(sl.done, T_NPARTS);
	CHECK_EQ_U64(sl.failed, 0);
	CHECK_EQ_U64(sl.gen, s.parts[T_NPARTS - 1].hdr.gen);
	CHECK_EQ_U64(sl.end_gen, sl.gen);
	CHECK_EQ_U64(sl.backend, 1);
	printf("info: stream of %d partitions at k=%u%s: %.0f ms, every one seen busy, "
	       "%llu samples\n", T_NPARTS, s.parts[0].id.k, k ? "" : " (1 thread, nice 10)",
	       (t_now_ns() - t0) / 1e6, (unsigned long long)s.samples);
	t_close_fds(&c);
	for (int i = 0; i < T_NPARTS; i++)
		free_part(&s.parts[i]);
}

/* ---- failures ---- */

/* Random canonical rows: a[i]*b[i] != c[i], so H's top coefficient is not
 * zero. */
static void make_unsat(struct t_part *tp, uint32_t k, uint64_t gen)
{
	size_t len = 3 * ((size_t)32 << k);
	uint64_t seed = 12345;

	memset(tp, 0, sizeof *tp);
	part_hdr(&tp->hdr, 900, 0, VOCAB_KIND_SNAP_DEALS, k, gen);
	tp->payload = malloc(tp->hdr.payload_len);
	CHECK(tp->payload, "malloc");
	for (size_t i = 0; i < len; i++)
		tp->payload[i] = (uint8_t)t_rand(&seed);
	for (size_t i = 31; i < len; i += 32)
		tp->payload[i] &= 0x3f;	/* below r's top byte 0x73 */
	frame_part_seal(tp->payload, (uint16_t)k);
}

static void test_unsat_and_term(void)
{
	struct t_part bad, good, big;
	struct t_child c;
	struct frame_hdr h;
	struct shm_slot sl;
	uint8_t *p;
	uint64_t t0;
	int st;

	make_unsat(&bad, 10, 1);
	make_part(&good, "beef", 2, 11, 901, 2);
	make_part(&big, "beef", 3, 14, 902, 3);
	spawn_gpu(&c, "1", "cpu", 0);
	t_recv(c.out, &h, &p);
	free(p);
	CHECK(frame_send(c.in, &bad.hdr, bad.payload) == 0, "send");
	CHECK(frame_send(c.in, &good.hdr, good.payload) == 0, "send");
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_FAIL && h.job == 900 && h.gen == 1 && strstr((char *)p, "unsatisfied"),
	      "unsatisfied: %s \"%s\"", frame_type_name(h.type), (char *)p);
	printf("unsatisfied: FAIL \"%s\"\n", (char *)p);
	free(p);
	check_result(c.out, &good);
	/* The end follows the result's write: give it a moment. */
	for (t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(2000); usleep(1000)) {
		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
		if (sl.end_gen == 2)
			break;
	}
	CHECK(sl.done == 1 && sl.failed == 1, "done %llu failed %llu",
	      (unsigned long long)sl.done, (unsigned long long)sl.failed);
	/* SIGTERM while it has work: a prompt exit 0. */
	CHECK(frame_send(c.in, &big.hdr, big.payload) == 0, "send");
	for (t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(2000); ) {
		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
		if (sl.gen == 3)
			break;
	}
	t0 = t_now_ns();
	kill(c.pid, SIGTERM);
	st = t_wait(&c, t_hang_ms(2000));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "SIGTERM: status 0x%x", st);
	printf("info: SIGTERM to exit: %.1f ms\n", (t_now_ns() - t0) / 1e6);
	t_close_fds(&c);
	free_part(&bad);
	free_part(&good);
	free_part(&big);
}

static void abandon(pid_t pid, uint64_t gen)
{
	union sigval v = { .sival_ptr = (void *)(uintptr_t)gen };

	CHECK(sigqueue(pid, FRAME_ABANDON_SIGNAL, v) == 0, "sigqueue");
}

static void expect_preempted(int fd, uint64_t gen)
{
	struct frame_hdr h;
	uint8_t *p;

	t_recv(fd, &h, &p);
	CHECK(h.type == FRAME_FAIL && h.gen == gen && h.payload_len == strlen(FRAME_FAIL_PREEMPTED) &&
	      !memcmp(p, FRAME_FAIL_PREEMPTED, h.payload_len), "gen %llu: %s gen %llu \"%.*s\"",
	      (unsigned long long)gen, frame_type_name(h.type), (unsigned long long)h.gen,
	      (int)h.payload_len, (char *)p);
	free(p);
}

static void test_abandon(void)
{
	struct t_part big, small, after;
	struct t_child c;
	struct frame_hdr h;
	struct shm_slot sl, before;
	uint8_t *p;
	uint64_t t0;
	uint32_t k_big = T_SIZE(18, 17);	/* long enough to be running at the abandon */

	make_part(&big, "ab1e", 0, k_big, 960, 1011);
	make_part(&small, "ab1e", 1, 12, 960, 1012);
	make_part(&after, "ab1e", 2, 12, 960, 1013);
	spawn_gpu(&c, "1", "cpu", 0);
	t_recv(c.out, &h, &p);
	free(p);
	CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &before) == 0, "read slot");
	CHECK(frame_send(c.in, &big.hdr, big.payload) == 0, "send");
	for (t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(5000); usleep(200)) {
		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
		if (sl.gen == 1011 && sl.state == SHM_SLOT_BUSY)
			break;
	}
	CHECK(sl.gen == 1011 && sl.state == SHM_SLOT_BUSY, "the big partition did not begin");
	CHECK(frame_send(c.in, &small.hdr, small.payload) == 0, "send");
	usleep(20000);	/* received: it waits behind the running one */
	t0 = t_now_ns();
	abandon(c.pid, 1099);	/* not held: ignored */
	abandon(c.pid, 1012);
	expect_preempted(c.out, 1012);
	printf("info: a received partition abandoned in %.1f ms\n", (t_now_ns() - t0) / 1e6);
	t0 = t_now_ns();
	abandon(c.pid, 1011);
	/* Cut short: FAIL PREEMPTED, not the H_DONE a finished one sends, and
	 * (below) counted preempted, neither done nor failed. */
	expect_preempted(c.out, 1011);
	printf("info: the running one (k=%u, an H-term of %.0f ms here) abandoned in %.1f ms\n",
	       k_big, big.hterm_ns / 1e6, (t_now_ns() - t0) / 1e6);
	for (t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(2000); usleep(1000)) {
		CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
		if (sl.preempted == before.preempted + 2 && sl.state == SHM_SLOT_IDLE)
			break;
	}
	CHECK(sl.preempted == before.preempted + 2 && sl.state == SHM_SLOT_IDLE &&
	      sl.done == before.done && sl.failed == before.failed,
	      "slot: preempted %llu (was %llu), state %u, done %llu, failed %llu",
	      (unsigned long long)sl.preempted, (unsigned long long)before.preempted, sl.state,
	      (unsigned long long)sl.done, (unsigned long long)sl.failed);
	/* It carries on. */
	CHECK(frame_send(c.in, &after.hdr, after.payload) == 0, "send");
	check_result(c.out, &after);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, t_hang_ms(5000));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "EOF: status 0x%x", st);
	t_close_fds(&c);
	free_part(&big);
	free_part(&small);
	free_part(&after);
}

/* Send tp to a fresh worker: it must exit 2 with one log line saying
 * what. */
static void expect_refused(const struct t_part *tp, const char *what)
{
	struct t_child c;
	struct frame_hdr h;
	uint8_t *p;
	char log[4096];
	int st;

	spawn_gpu(&c, "1", "cpu", 0);
	t_recv(c.out, &h, &p);
	free(p);
	frame_send(c.in, &tp->hdr, tp->payload);	/* EPIPE if it already left */
	st = t_wait(&c, t_hang_ms(5000));
	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status 0x%x", what, st);
	CHECK(t_count_lines(log, "gpuworker[1]: ") == 1 && t_count_lines(log, what) == 1,
	      "log for \"%s\":\n%s", what, log);
	printf("refused: %s", strstr(log, "gpuworker[1]: "));
	t_close_fds(&c);
}

/* Sound headers over payloads that fail the trailer's checksum: a byte
 * flipped in the second of two chunks (still canonical), a wrong trailer,
 * and a tail of zeros (as when the supervisor pads the relay of a synth
 * that died mid-way). Each partition gets a FAIL "payload checksum
 * mismatch"; the worker carries on with the next (of two chunks, proved
 * right), and exits 0 at EOF. */
static void test_checksum_refused(void)
{
	struct t_part bad[3], good;
	struct t_child c;
	struct frame_hdr h;
	uint8_t *p;
	char log[4096];
	int st;

	for (int i = 0; i < 3; i++)
		make_part(&bad[i], "0bad", 1, i ? 10 : 17, 950 + (uint64_t)i, 100 + (uint64_t)i);
	make_part(&good, "0bad", 2, 17, 953, 103);
	bad[0].payload[frame_part_off(17, 1, 70000)] ^= 1;	/* b[70000]'s low byte */
	bad[1].payload[bad[1].hdr.payload_len - 3] ^= 0x10;	/* the trailer */
	memset(bad[2].payload + bad[2].hdr.payload_len / 2, 0,
	       bad[2].hdr.payload_len - bad[2].hdr.payload_len / 2);	/* zero-padded tail */
	spawn_gpu(&c, "1", "cpu", 0);
	t_recv(c.out, &h, &p);
	free(p);
	for (int i = 0; i < 3; i++)
		CHECK(frame_send(c.in, &bad[i].hdr, bad[i].payload) == 0, "send");
	CHECK(frame_send(c.in, &good.hdr, good.payload) == 0, "send");
	for (int i = 0; i < 3; i++) {
		t_recv(c.out, &h, &p);
		CHECK(h.type == FRAME_FAIL && h.job == bad[i].hdr.job && h.gen == bad[i].hdr.gen &&
		      !strcmp((char *)p, FRAME_FAIL_CHECKSUM),
		      "bad %d: %s \"%s\"", i, frame_type_name(h.type), (char *)p);
		free(p);
	}
	check_result(c.out, &good);
	close(c.in);
	c.in = -1;
	st = t_wait(&c, t_hang_ms(5000));
	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit after EOF: 0x%x\n%s", st, log);
	CHECK(t_count_lines(log, "payload checksum mismatch") == 3, "log:\n%s", log);
	printf("refused by checksum (a flipped byte, a wrong trailer, a zero tail), then carried "
	       "on: %s", strstr(log, "gpuworker[1]: "));
	t_close_fds(&c);
	for (int i = 0; i < 3; i++)
		free_part(&bad[i]);
	free_part(&good);
}

static void test_bad_input(void)
{
	struct t_part tp;
	struct shm_slot sl;
	uint64_t gen0;

	CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
	gen0 = sl.gen;
	make_part(&tp, "0bad", 1, 10, 950, 1000);
	memset(tp.payload + 32 * ((1024 + 5)), 0xff, 32);	/* b[5] */
	frame_part_seal(tp.payload, 10);
	expect_refused(&tp, "element b[5] at payload offset 32928 is not canonical");
	tp.hdr.magic = 0;
	expect_refused(&tp, "bad frame magic");
	free_part(&tp);
	/* In the second chunk: c[65543] follows a, b of that chunk. */
	make_part(&tp, "0bad", 1, 17, 951, 1001);
	memset(tp.payload + 32 * (3 * 65536 + 2 * 65536 + 7), 0xff, 32);
	frame_part_seal(tp.payload, 17);
	expect_refused(&tp, "element c[65543] at payload offset 10485984 is not canonical");
	free_part(&tp);
	/* Nothing began: the refused partitions never showed as work. */
	CHECK(shm_read_slot(t_sg, SHM_T_GPU, 1, &sl) == 0, "read slot");
	CHECK(sl.gen == gen0, "slot generation %llu, was %llu", (unsigned long long)sl.gen,
	      (unsigned long long)gen0);
}

static void test_cuda_absent(void)
{
	struct t_child c;
	char log[4096], why[256];
	int st;

	if (hterm_cuda_devices(why, sizeof why) > 0) {
		printf("info: a CUDA device answers here: --backend cuda exit 3 not tested\n");
		return;
	}
	spawn_gpu(&c, "1", "cuda", 0);
	/* HELLO first, before any CUDA call: a device slow to initialise
	 * does not miss HELLO's deadline (the slot beats meanwhile). */
	struct frame_hdr h;
	uint8_t *p;
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_HELLO && ((struct frame_hello *)p)->backend == 2,
	      "no HELLO (backend cuda, as asked) before the device was looked for");
	free(p);
	st = t_wait(&c, t_hang_ms(10000));
	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "cuda: status 0x%x", st);
	CHECK(t_count_lines(log, "gpuworker[1]: backend cuda asked for, but no CUDA device") == 1,
	      "log:\n%s", log);
	printf("cuda absent: %s", log);
	t_close_fds(&c);
}

/* The job's result file is not there (the supervisor's state directory
 * lost it): H_DONE says so, with no digest; the next partition is stored. */
static void test_store_failed(void)
{
	struct t_part tp, good;
	struct t_child c;
	struct frame_hdr h;
	struct frame_h_done d;
	char path[512], log[1 << 14];
	uint8_t *p;
	int st;

	make_part(&tp, "5707ed", 0, 10, 960, 2000);
	make_part(&good, "5707ed", 1, 10, 961, 2001);
	snprintf(path, sizeof path, "%s/960/result.partial", t_jobs);
	CHECK(unlink(path) == 0, "unlink %s", path);
	spawn_gpu(&c, "1", "cpu", 0);
	t_recv(c.out, &h, &p);
	free(p);
	CHECK(frame_send(c.in, &tp.hdr, tp.payload) == 0, "send");
	CHECK(frame_send(c.in, &good.hdr, good.payload) == 0, "send");
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_H_DONE && h.job == 960 && h.gen == 2000, "got %s for job %llu",
	      frame_type_name(h.type), (unsigned long long)h.job);
	memcpy(&d, p, sizeof d);
	free(p);
	CHECK(d.err == ENOENT && d.op == FRAME_STORE_OPEN, "err %d op %u", d.err, d.op);
	for (int i = 0; i < 32; i++)
		CHECK(d.digest[i] == 0, "a digest for H that was not stored");
	printf("store failed: H_DONE err %s at open\n", strerror(d.err));
	check_result(c.out, &good);
	close(c.in);
	c.in = -1;
	st = t_wait(&c, t_hang_ms(5000));
	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit 0x%x: %s", st, log);
	CHECK(t_count_lines(log, "job 960 partition 0: storing H in its result file failed") == 1,
	      "log:\n%s", log);
	t_close_fds(&c);
	free_part(&tp);
	free_part(&good);
}

static void rm_jobs(void)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t_jobs);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", t_jobs);
}

int main(void)
{
	/* A refused worker leaves before we finish writing to it. */
	signal(SIGPIPE, SIG_IGN);
	t_sg = t_seg_create("wgpu", 2, 1);
	snprintf(t_name, sizeof t_name, "%s", shm_hdr(t_sg)->name);
	snprintf(t_jobs, sizeof t_jobs, "%s/wgpu-jobs.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(t_jobs), "mkdtemp %s", t_jobs);
	atexit(rm_jobs);
	if (sodium_init() < 0)
		T_FAIL("sodium_init");
	test_stream();
	test_unsat_and_term();
	test_checksum_refused();
	test_abandon();
	test_store_failed();
	test_bad_input();
	test_cuda_absent();
	return 0;
}
