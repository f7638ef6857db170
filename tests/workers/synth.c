/*
 * workers_synth: bin/synth driven the way the supervisor drives it. HELLO
 * first; each SYNTH_REQ answered by a PART_DATA streamed as proto/frame.h
 * lays it out (chunks of FRAME_PART_ROWS rows, a, b, c of each, then the
 * XXH3-64 trailer; the header's checksum 0), byte for byte synth's own rows
 * for that identity (one chunk for k < 16, two at k = 17), so a*b = c; the
 * slot counts each partition under its generation; a stale generation is
 * answered FAIL; a reader that leaves the pipe full for seconds finds the
 * synth blocked but busy and beating (the heartbeat moves again and again,
 * never half the supervisor's heartbeat_timeout old); EOF ends it with 0;
 * a garbage header ends it non-zero with one log line. VERIFY_REQ: a
 * stored H checked (ok, wrong, unread).
 *
 * Waits that only bound a hang are scaled by t_slow() (tests/helpers.h).
 *
 * WORKERS_SYNTH_K=K runs one partition of 2^K rows instead, read as a
 * stream, and prints the synth's peak resident memory (VmHWM).
 */
#include <sys/ioctl.h>

#include <sys/socket.h>
#include <sys/stat.h>

#include "format/pfile.h"
#include "gpuworker/hterm.h"
#include "proto/fdchan.h"
#include "synth/synth.h"
#include "tests/workers/common.h"

static char t_name[64];

/* The supervisor's default heartbeat_timeout (conf/conf.c): a busy worker
 * silent this long is killed as hung. */
#define T_HEARTBEAT_TIMEOUT_NS 5000000000ull

static void spawn_synth(struct t_child *c, const char *slot)
{
	char prog[256];
	char *argv[] = { prog, "--instance", t_name, "--slot", (char *)slot, NULL };

	t_prog(prog, sizeof prog, "synth");
	t_spawn(c, argv, 0);
}

static void send_req(int fd, uint64_t job, uint64_t gen, const struct synth_id *id)
{
	struct frame_synth_req req = { .seed_len = id->seed_len };
	struct frame_hdr h;

	memcpy(req.seed, id->seed, sizeof req.seed);
	frame_init(&h, FRAME_SYNTH_REQ, job, id->partition, 3, (uint16_t)id->k, gen);
	frame_seal(&h, &req, sizeof req);
	CHECK(frame_send(fd, &h, &req) == 0, "send SYNTH_REQ");
}

/* The PART_DATA payload of id as the protocol describes it, built here
 * from a local synthesis by concatenation (not with proto's layout
 * helpers): for each chunk of min(2^k, 2^16) rows its a, then b, then c,
 * canonical little-endian; then the XXH3-64 of all that, little-endian. */
static uint8_t *expected_payload(const struct synth_id *id, size_t *len)
{
	size_t n = (size_t)1 << id->k, rows = n < 65536 ? n : 65536, o = 0;
	fr_t *v = malloc(3 * n * sizeof(fr_t));
	uint8_t *p = malloc(3 * n * 32 + 8);
	uint64_t sum;

	CHECK(v && p, "malloc");
	CHECK(synth_partition(id, v, v + n, v + 2 * n) == 0, "synth_partition");
	for (size_t first = 0; first < n; first += rows)
		for (size_t vec = 0; vec < 3; vec++)
			for (size_t i = first; i < first + rows; i++, o += 32)
				fr_to_bytes(p + o, &v[vec * n + i]);
	CHECK_EQ_U64(o, 3 * n * 32);
	sum = frame_checksum(p, o);
	for (int i = 0; i < 8; i++)
		p[o + i] = (uint8_t)(sum >> (8 * i));
	*len = o + 8;
	free(v);
	return p;
}

/* The PART_DATA of id: header fields, then the payload byte for byte
 * against expected_payload, then a*b = c on its rows decoded through
 * proto's layout (frame_part_off). */
static void check_part(const struct frame_hdr *h, const uint8_t *p, uint64_t job,
		       uint64_t gen, const struct synth_id *id)
{
	size_t n = (size_t)1 << id->k, len;
	uint8_t *want = expected_payload(id, &len);
	fr_t *got = malloc(3 * n * sizeof(fr_t));

	CHECK(got, "malloc");
	CHECK(h->type == FRAME_PART_DATA, "got %s", frame_type_name(h->type));
	CHECK_EQ_U64(h->job, job);
	CHECK_EQ_U64(h->partition, id->partition);
	CHECK_EQ_U64(h->log_size, id->k);
	CHECK_EQ_U64(h->gen, gen);
	CHECK_EQ_U64(h->kind, 3);
	CHECK_EQ_U64(h->checksum, 0);	/* it is the trailer */
	CHECK_EQ_U64(h->work_ns, 0);	/* the header leaves before any row is made */
	CHECK_EQ_U64(h->payload_len, len);
	for (size_t i = 0; i < len; i++)
		CHECK(p[i] == want[i], "k=%u: payload byte %zu of %zu is 0x%02x, expected 0x%02x%s",
		      id->k, i, len, p[i], want[i], i >= len - 8 ? " (trailer)" : "");
	for (unsigned vec = 0; vec < 3; vec++)
		for (size_t i = 0; i < n; i++)
			CHECK(fr_from_bytes(&got[vec * n + i],
					    p + frame_part_off((uint16_t)id->k, vec, i)) == 0,
			      "%c[%zu] not canonical", "abc"[vec], i);
	CHECK(synth_check(got, got + n, got + 2 * n, n, NULL) == 0, "a*b != c");
	free(want);
	free(got);
}

/* The PART_INFO that follows id's PART_DATA (h, p): the public inputs as
 * the rows hold them (a[3R+1], a[3R+2]) and as the chain computes them. */
static void check_info(int fd, const struct frame_hdr *h, const uint8_t *p, const struct synth_id *id)
{
	size_t in = 3 * synth_rounds(id->k) + 1;
	const struct frame_part_info *pi;
	struct frame_hdr ih;
	uint8_t *ip, enc[2][32];
	fr_t x[2];

	t_recv(fd, &ih, &ip);
	CHECK(ih.type == FRAME_PART_INFO, "after PART_DATA: %s", frame_type_name(ih.type));
	CHECK(ih.job == h->job && ih.partition == h->partition && ih.gen == h->gen, "PART_INFO names another");
	pi = (const struct frame_part_info *)ip;
	CHECK(!memcmp(pi->x0, p + frame_part_off((uint16_t)id->k, 0, in), 32), "x0 is not a[3R+1]");
	CHECK(!memcmp(pi->xout, p + frame_part_off((uint16_t)id->k, 0, in + 1), 32), "xout is not a[3R+2]");
	CHECK(synth_public_inputs(id, x) == 0, "public inputs");
	fr_to_bytes(enc[0], &x[0]);
	fr_to_bytes(enc[1], &x[1]);
	CHECK(!memcmp(pi->x0, enc[0], 32) && !memcmp(pi->xout, enc[1], 32), "not the chain's x_0, x_out");
	free(ip);
}

/* The slot's record once the end of gen is published (it follows the
 * trailer's write); a hang bound of 2 s (scaled). */
static struct shm_slot wait_end(struct shm_seg *seg, uint32_t slot, uint64_t gen)
{
	struct shm_slot s;

	for (uint64_t t0 = t_now_ns(); t_now_ns() - t0 < t_hang_ns(2000); usleep(1000)) {
		CHECK(shm_read_slot(seg, SHM_T_SYNTH, slot, &s) == 0, "read slot");
		if (s.end_gen >= gen)
			break;
	}
	CHECK_EQ_U64(s.end_gen, gen);
	return s;
}

static void test_requests(struct shm_seg *seg)
{
	static const struct { const char *seed; uint32_t part, k; } cases[] = {
		{ "010203", 0, 10 },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 5, 12 },
		{ "ab", 3, 14 },
		{ "5eed", 2, 17 },	/* two chunks */
	};
	struct t_child c;
	struct frame_hdr h;
	struct shm_slot s;
	uint8_t *p;
	int st;

	spawn_synth(&c, "1");
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_HELLO, "first frame is %s", frame_type_name(h.type));
	CHECK_EQ_U64(((struct frame_hello *)p)->pid, c.pid);
	printf("hello: %s\n", ((struct frame_hello *)p)->desc);
	free(p);
	CHECK(shm_read_slot(seg, SHM_T_SYNTH, 1, &s) == 0, "read slot");
	CHECK(s.state == SHM_SLOT_IDLE && s.pid == (uint32_t)c.pid, "slot state %u pid %u",
	      s.state, s.pid);
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct synth_id id = { .partition = cases[i].part, .k = cases[i].k };
		uint64_t gen = 10 + 5 * i, t0 = t_now_ns();

		CHECK(synth_parse_seed(&id, cases[i].seed) == 0, "seed");
		send_req(c.in, 100 + i, gen, &id);
		t_recv(c.out, &h, &p);
		printf("info: synth k=%u: %.1f ms request to trailer\n", id.k,
		       (t_now_ns() - t0) / 1e6);
		check_part(&h, p, 100 + i, gen, &id);
		check_info(c.out, &h, p, &id);
		free(p);
		s = wait_end(seg, 1, gen);
		CHECK_EQ_U64(s.done, i + 1);
		CHECK_EQ_U64(s.gen, gen);
		CHECK_EQ_U64(s.end_gen, gen);
		CHECK_EQ_U64(s.job_id, 100 + i);
		CHECK(s.state == SHM_SLOT_IDLE, "slot not idle after its end");
	}
	/* A generation the slot has seen: refused with FAIL, nothing counted. */
	struct synth_id id = { .partition = 1, .k = 10 };
	CHECK(synth_parse_seed(&id, "77") == 0, "seed");
	send_req(c.in, 200, 10, &id);
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_FAIL && strstr((char *)p, "not newer"), "stale gen: %s %s",
	      frame_type_name(h.type), (char *)p);
	free(p);
	CHECK(shm_read_slot(seg, SHM_T_SYNTH, 1, &s) == 0, "read slot");
	CHECK(s.done == 4 && s.failed == 0, "done %llu failed %llu",
	      (unsigned long long)s.done, (unsigned long long)s.failed);
	/* EOF: a clean exit. */
	close(c.in);
	c.in = -1;
	st = t_wait(&c, t_hang_ms(5000));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "EOF: status 0x%x", st);
	t_close_fds(&c);
}

/* VERIFY_REQ: the synth reads H from the job's result file, sent to it
 * read-only on its files channel (--files-fd) as the supervisor does, and
 * answers VERIFIED: ok for the H of hterm_cpu; wrong for one changed
 * coefficient (its digest right), and for bytes that do not hash to the
 * digest; unread (ENOENT) for a job whose file it was not sent. */
static int t_chan = -1, t_dfd = -1;

static void verify_req(struct t_child *c, uint64_t job, uint64_t gen, const struct synth_id *id,
		       const uint8_t digest[32], struct frame_verified *v)
{
	struct frame_verify_req req = { .seed_len = id->seed_len };
	struct frame_hdr h;
	char name[64];
	uint8_t *p;
	int fd;

	snprintf(name, sizeof name, "%llu/result.partial", (unsigned long long)job);
	fd = openat(t_dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		CHECK(fdchan_send(t_chan, job, fd) == 0, "send the file of job %llu", (unsigned long long)job);
		close(fd);
	}

	memcpy(req.seed, id->seed, sizeof req.seed);
	memcpy(req.digest, digest, 32);
	frame_init(&h, FRAME_VERIFY_REQ, job, id->partition, 3, (uint16_t)id->k, gen);
	frame_seal(&h, &req, sizeof req);
	CHECK(frame_send(c->in, &h, &req) == 0, "send VERIFY_REQ");
	t_recv(c->out, &h, &p);
	CHECK(h.type == FRAME_VERIFIED && h.gen == gen && h.job == job &&
	      h.partition == id->partition && h.payload_len == sizeof *v,
	      "answer %s gen %llu", frame_type_name(h.type), (unsigned long long)h.gen);
	memcpy(v, p, sizeof *v);
	free(p);
}

/* Encode h into raw (n elements), write it at partition id's region of
 * dfd's JOB/result.partial and give its digest. */
static void store_h(int dfd, const struct synth_id *id, const fr_t *h, uint8_t *raw, uint8_t d[32])
{
	size_t n = (size_t)1 << id->k;
	struct pfile_digest dg;
	int fd = openat(dfd, "77/result.partial", O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	for (size_t i = 0; i < n; i++)
		fr_to_bytes(raw + i * FR_BYTES, &h[i]);
	CHECK(fd >= 0 && pwrite(fd, raw, n * FR_BYTES, (off_t)pfile_result2_part_off(id->k, id->partition)) ==
	      (ssize_t)(n * FR_BYTES), "write H");
	close(fd);
	pfile_digest_init(&dg);
	pfile_digest_update(&dg, raw, n * FR_BYTES);
	pfile_digest_final(&dg, d);
}

static void test_verify(void)
{
	struct synth_id id = { .partition = 2, .k = 10 };
	size_t n = (size_t)1 << id.k;
	fr_t *a = malloc(3 * n * sizeof *a), *b = a + n, *cc = b + n;
	uint8_t *raw = malloc(n * FR_BYTES), d[32];
	char dir[256], prog[256], fdarg[16];
	struct synth_stream st;
	struct frame_verified v;
	struct t_child c;
	struct frame_hdr h;
	uint8_t *p;
	int dfd, stt;

	CHECK(a && raw && synth_parse_seed(&id, "c0ffee") == 0, "setup");
	snprintf(dir, sizeof dir, "%s/wsynth-jobs-%d", t_tmpdir(), (int)getpid());
	CHECK(mkdir(dir, 0700) == 0 && (dfd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0 &&
	      mkdirat(dfd, "77", 0700) == 0, "make %s", dir);
	synth_stream_init(&st, &id);
	synth_stream_rows(&st, a, b, cc, n);
	CHECK(hterm_cpu(a, b, cc, id.k) == 0, "hterm_cpu");	/* H in a */
	store_h(dfd, &id, a, raw, d);

	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0 && fcntl(sv[0], F_SETFD, FD_CLOEXEC) == 0,
	      "socketpair");
	snprintf(fdarg, sizeof fdarg, "%d", sv[1]);	/* not close-on-exec: inherited */
	t_prog(prog, sizeof prog, "synth");
	char *argv[] = { prog, "--instance", t_name, "--slot", "1", "--files-fd", fdarg, NULL };
	t_spawn(&c, argv, 0);
	close(sv[1]);
	t_chan = sv[0];
	t_dfd = dfd;
	t_recv(c.out, &h, &p);
	CHECK(h.type == FRAME_HELLO, "first frame is %s", frame_type_name(h.type));
	free(p);

	verify_req(&c, 77, 50, &id, d, &v);
	CHECK(v.verdict == FRAME_VERDICT_OK, "right H: verdict %u %s", v.verdict, v.why);
	uint8_t bad[32];
	memcpy(bad, d, 32);
	bad[5] ^= 1;
	verify_req(&c, 77, 51, &id, bad, &v);
	CHECK(v.verdict == FRAME_VERDICT_WRONG && strstr(v.why, "digest"), "wrong digest: %u %s",
	      v.verdict, v.why);
	fr_add(&a[3], &a[3], &FR_ONE);	/* one coefficient off, stored with its own digest */
	store_h(dfd, &id, a, raw, d);
	verify_req(&c, 77, 52, &id, d, &v);
	CHECK(v.verdict == FRAME_VERDICT_WRONG && strstr(v.why, "not the quotient"), "wrong H: %u %s",
	      v.verdict, v.why);
	printf("info: VERIFIED wrong: %s\n", v.why);
	verify_req(&c, 78, 53, &id, d, &v);
	CHECK(v.verdict == FRAME_VERDICT_UNREAD && v.err == ENOENT, "no file: %u %d %s", v.verdict,
	      v.err, v.why);
	close(c.in);
	c.in = -1;
	stt = t_wait(&c, t_hang_ms(5000));
	CHECK(stt >= 0 && WIFEXITED(stt) && WEXITSTATUS(stt) == 0, "EOF: status 0x%x", stt);
	t_close_fds(&c);
	close(t_chan);
	t_chan = -1;
	unlinkat(dfd, "77/result.partial", 0);
	unlinkat(dfd, "77", AT_REMOVEDIR);
	close(dfd);
	rmdir(dir);
	free(a);
	free(raw);
}

/* The peak resident memory of a live process, in KiB (VmHWM). */
static long vm_hwm_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	CHECK(f, "open %s", path);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	CHECK(kib > 0, "no VmHWM in %s", path);
	return kib;
}

/* A reader that leaves the pipe full (the supervisor waiting for a
 * gpuworker with room) for at least 2 s and until the heartbeat has moved
 * T_BEATS times: the synth is blocked in its write, its slot busy with the
 * partition, its heartbeat going on, never half of heartbeat_timeout old
 * (the supervisor kills a busy worker silent for heartbeat_timeout). Then
 * the reader catches up: the whole frame, and the end. The partition
 * (k=18, 17 under a sanitizer) is many times the pipe. */
#define T_BEATS 8
static void test_slow_reader(struct shm_seg *seg)
{
	struct synth_id id = { .partition = 9, .k = T_SIZE(18, 17) };
	struct t_child c;
	struct frame_hdr h;
	struct shm_slot s;
	uint64_t t0, last = 0, worst = 0, held;
	int cap, queued = 0, full, beats = 0, st;
	uint8_t *p;

	CHECK(synth_parse_seed(&id, "510e") == 0, "seed");
	spawn_synth(&c, "0");
	t_recv(c.out, &h, &p);
	free(p);
	cap = fcntl(c.out, F_GETPIPE_SZ);
	CHECK(cap > 0, "F_GETPIPE_SZ: %s", strerror(errno));
	send_req(c.in, 300, 40, &id);
	/* Full: its 16 page buffers taken (the header's page holds 64 bytes). */
	for (t0 = t_now_ns(); queued < cap - 4096 && t_now_ns() - t0 < t_hang_ns(5000); usleep(1000))
		CHECK(ioctl(c.out, FIONREAD, &queued) == 0, "FIONREAD: %s", strerror(errno));
	CHECK(queued >= cap - 4096, "the pipe holds %d of %d bytes after %u s", queued, cap,
	      5 * t_slow());
	full = queued;
	/* beats counts the heartbeat values seen (the first included); the
	 * bound of 2 heartbeat timeouts (scaled) only stops a synth that never
	 * beats. */
	for (t0 = t_now_ns(); (beats < T_BEATS || t_now_ns() - t0 < 2000000000ull) &&
	     t_now_ns() - t0 < 2 * T_HEARTBEAT_TIMEOUT_NS * t_slow(); usleep(10000)) {
		/* now before the read: a pause between the two can only make
		 * the beat read look younger, never older */
		uint64_t now = shm_now_mono();

		CHECK(shm_read_slot(seg, SHM_T_SYNTH, 0, &s) == 0, "read slot");
		CHECK(s.state == SHM_SLOT_BUSY && s.gen == 40 && s.job_id == 300,
		      "blocked: slot %s gen %llu job %llu", shm_slot_state_name(s.state),
		      (unsigned long long)s.gen, (unsigned long long)s.job_id);
		if (s.heartbeat_mono_ns != last) {
			beats++;
			last = s.heartbeat_mono_ns;
		}
		if (now > s.heartbeat_mono_ns && now - s.heartbeat_mono_ns > worst)
			worst = now - s.heartbeat_mono_ns;
	}
	held = t_now_ns() - t0;
	CHECK(ioctl(c.out, FIONREAD, &queued) == 0 && queued == full, "the pipe did not stay full");
	CHECK(beats >= T_BEATS && worst < T_HEARTBEAT_TIMEOUT_NS / 2,
	      "pipe full for %.1f s: %d heartbeat values seen (want %d), one %.0f ms old "
	      "(heartbeat_timeout %.0f ms)", held / 1e9, beats, T_BEATS, worst / 1e6,
	      T_HEARTBEAT_TIMEOUT_NS / 1e6);
	printf("info: pipe full for %.1f s: the synth blocked, busy, %d heartbeats seen, "
	       "none older than %.0f ms\n", held / 1e9, beats, worst / 1e6);
	t_recv(c.out, &h, &p);
	check_part(&h, p, 300, 40, &id);
	check_info(c.out, &h, p, &id);
	free(p);
	s = wait_end(seg, 0, 40);
	CHECK(s.state == SHM_SLOT_IDLE && s.end_gen == 40 && s.done == 1,
	      "after the trailer: slot %s end_gen %llu done %llu", shm_slot_state_name(s.state),
	      (unsigned long long)s.end_gen, (unsigned long long)s.done);
	printf("info: synth k=%u VmHWM %ld KiB\n", id.k, vm_hwm_kib(c.pid));
	close(c.in);
	c.in = -1;
	st = t_wait(&c, t_hang_ms(5000));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "EOF: status 0x%x", st);
	t_close_fds(&c);
}

/* WORKERS_SYNTH_K: one partition of 2^k rows, read as a stream (checksum
 * streamed, nothing kept), then the synth's peak resident memory. */
static void measure(uint32_t k)
{
	struct synth_id id = { .partition = 1, .k = k };
	struct t_child c;
	struct frame_hdr h;
	struct frame_sum sum;
	uint8_t *p, *buf = malloc(1 << 20), trailer[8];
	uint64_t t0, rows;
	int st;

	CHECK(buf && synth_parse_seed(&id, "4d454d") == 0, "setup");
	spawn_synth(&c, "0");
	t_recv(c.out, &h, &p);
	free(p);
	t0 = t_now_ns();
	send_req(c.in, 400, 50, &id);
	CHECK(frame_read_full(c.out, &h, sizeof h) == 0 && h.type == FRAME_PART_DATA,
	      "no PART_DATA header");
	rows = h.payload_len - 8;
	CHECK(frame_sum_init(&sum) == 0, "frame_sum_init");
	for (uint64_t off = 0, len; off < rows; off += len) {
		len = rows - off < (1 << 20) ? rows - off : (1 << 20);
		CHECK(frame_read_full(c.out, buf, len) == 0, "reading the rows");
		frame_sum_update(&sum, buf, len);
	}
	CHECK(frame_read_full(c.out, trailer, 8) == 0, "reading the trailer");
	uint64_t want = frame_sum_final(&sum), got = 0;

	for (int i = 0; i < 8; i++)
		got |= (uint64_t)trailer[i] << (8 * i);
	CHECK(got == want, "trailer %016llx, the rows' checksum %016llx", (unsigned long long)got,
	      (unsigned long long)want);
	printf("info: synth k=%u: %.1f MiB streamed in %.2f s; VmHWM %ld KiB "
	       "(the whole partition is %llu KiB)\n", k, h.payload_len / 1048576.0,
	       (t_now_ns() - t0) / 1e9, vm_hwm_kib(c.pid), (unsigned long long)(rows >> 10));
	close(c.in);
	c.in = -1;
	st = t_wait(&c, t_hang_ms(5000));
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "EOF: status 0x%x", st);
	t_close_fds(&c);
	free(buf);
}

/* Garbage where a header should be: exit 2, one line that says why. */
static void test_garbage(void)
{
	struct t_child c;
	struct frame_hdr h;
	uint8_t junk[FRAME_HDR_SIZE], *p;
	uint64_t seed = 5;
	char log[4096];
	int st;

	spawn_synth(&c, "0");
	t_recv(c.out, &h, &p);
	free(p);
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)t_rand(&seed);
	CHECK(frame_write_full(c.in, junk, sizeof junk) == 0, "write junk");
	st = t_wait(&c, t_hang_ms(5000));
	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "garbage: status 0x%x", st);
	CHECK(t_count_lines(log, "synth[0]: ") == 1 &&
	      t_count_lines(log, "synth[0]: malformed frame from the supervisor: bad frame magic"),
	      "log: %s", log);
	printf("garbage header: %s", log);
	t_close_fds(&c);
}

int main(void)
{
	struct shm_seg *seg = t_seg_create("wsynth", 1, 2);

	snprintf(t_name, sizeof t_name, "%s", shm_hdr(seg)->name);
	if (sodium_init() < 0)
		T_FAIL("sodium_init");
	if (getenv("WORKERS_SYNTH_K")) {
		measure((uint32_t)atoi(getenv("WORKERS_SYNTH_K")));
		return 0;
	}
	test_requests(seg);
	test_verify();
	test_slow_reader(seg);
	test_garbage();
	return 0;
}
