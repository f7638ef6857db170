/*
 * workers_synth: bin/synth driven the way the supervisor drives it. HELLO
 * first; each SYNTH_REQ answered by a PART_DATA whose checksum holds and
 * whose elements are synth's own rows for that identity (so a*b = c); the
 * slot counts each partition under its generation; a stale generation is
 * answered FAIL; EOF ends it with 0; a garbage header ends it non-zero
 * with one log line.
 */
#include "synth/synth.h"
#include "tests/workers/common.h"

static char t_name[64];

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

/* The PART_DATA of id: header fields, then every element against a local
 * synthesis, then a*b = c on the decoded rows. */
static void check_part(const struct frame_hdr *h, const uint8_t *p, uint64_t job,
		       uint64_t gen, const struct synth_id *id)
{
	size_t n = (size_t)1 << id->k;
	fr_t *want = malloc(3 * n * sizeof(fr_t)), *got = malloc(3 * n * sizeof(fr_t));

	CHECK(want && got, "malloc");
	CHECK(h->type == FRAME_PART_DATA, "got %s", frame_type_name(h->type));
	CHECK_EQ_U64(h->job, job);
	CHECK_EQ_U64(h->partition, id->partition);
	CHECK_EQ_U64(h->log_size, id->k);
	CHECK_EQ_U64(h->gen, gen);
	CHECK_EQ_U64(h->kind, 3);
	CHECK(h->work_ns > 0, "work_ns not set");
	CHECK(synth_partition(id, want, want + n, want + 2 * n) == 0, "synth_partition");
	for (size_t i = 0; i < 3 * n; i++) {
		CHECK(fr_from_bytes(&got[i], p + 32 * i) == 0, "element %zu not canonical", i);
		CHECK(fr_equal(&got[i], &want[i]), "element %zu differs from synth's", i);
	}
	CHECK(synth_check(got, got + n, got + 2 * n, n, NULL) == 0, "a*b != c");
	free(want);
	free(got);
}

static void test_requests(struct shm_seg *seg)
{
	static const struct { const char *seed; uint32_t part, k; } cases[] = {
		{ "010203", 0, 10 },
		{ "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 5, 12 },
		{ "ab", 3, 14 },
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
	for (unsigned i = 0; i < 3; i++) {
		struct synth_id id = { .partition = cases[i].part, .k = cases[i].k };
		uint64_t gen = 10 + 5 * i, t0 = t_now_ns();

		CHECK(synth_parse_seed(&id, cases[i].seed) == 0, "seed");
		send_req(c.in, 100 + i, gen, &id);
		t_recv(c.out, &h, &p);
		printf("info: synth k=%u: %.1f ms synthesis, %.1f ms request to reply\n", id.k,
		       h.work_ns / 1e6, (t_now_ns() - t0) / 1e6);
		check_part(&h, p, 100 + i, gen, &id);
		free(p);
		CHECK(shm_read_slot(seg, SHM_T_SYNTH, 1, &s) == 0, "read slot");
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
	CHECK(s.done == 3 && s.failed == 0, "done %llu failed %llu",
	      (unsigned long long)s.done, (unsigned long long)s.failed);
	/* EOF: a clean exit. */
	close(c.in);
	c.in = -1;
	st = t_wait(&c, 5000);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "EOF: status 0x%x", st);
	t_close_fds(&c);
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
	st = t_wait(&c, 5000);
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
	test_requests(seg);
	test_garbage();
	return 0;
}
