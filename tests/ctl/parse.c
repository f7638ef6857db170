/*
 * ctl_parse and ctl_format: every valid request form parses to what it
 * says; every malformed one is refused with a reason and leaves the
 * request untouched; format and parse are inverse on valid requests; and
 * random bytes never crash the parser, which either refuses them or
 * returns a request that formats back into a line it accepts.
 */
#include <errno.h>
#include <string.h>

#include "ctl/ctl.h"
#include "util/vocab.h"
#include "shm/layout.h"
#include "tests/helpers.h"

/* Field by field: padding bytes are not part of a request. */
static int req_eq(const struct ctl_req *a, const struct ctl_req *b)
{
	return a->op == b->op && a->kind == b->kind && a->seed_len == b->seed_len &&
	       !memcmp(a->seed, b->seed, a->seed_len) && a->log_size == b->log_size &&
	       a->partitions == b->partitions && a->job == b->job &&
	       a->slot_table == b->slot_table && a->slot == b->slot;
}

static struct ctl_req parse_ok(const char *line)
{
	struct ctl_req r;
	char err[256];
	int rc;

	memset(&r, 0xa5, sizeof r);
	rc = ctl_parse(line, strlen(line), &r, err, sizeof err);
	CHECK(rc == 0, "'%s' refused: %s", line, err);
	return r;
}

static void refuse_n(const char *line, size_t len, const char *want)
{
	struct ctl_req r, before;
	char err[256] = "";

	memset(&r, 0x5a, sizeof r);
	before = r;
	CHECK(ctl_parse(line, len, &r, err, sizeof err) == -EINVAL, "'%.*s' accepted", (int)len, line);
	CHECK(err[0] && strstr(err, want), "'%.*s': reason '%s' lacks '%s'", (int)len, line, err, want);
	CHECK(!memcmp(&r, &before, sizeof r), "refused '%.*s' changed the request", (int)len, line);
}

static void refuse(const char *line, const char *want)
{
	refuse_n(line, strlen(line), want);
}

static void test_valid(void)
{
	struct ctl_req r;

	CHECK(parse_ok("ping").op == CTL_PING, "ping");
	CHECK(parse_ok("ping\n").op == CTL_PING, "ping with newline");
	CHECK(parse_ok("hello").op == CTL_HELLO, "hello");
	CHECK(parse_ok("drain").op == CTL_DRAIN, "drain");
	CHECK(parse_ok("resume").op == CTL_RESUME, "resume");
	refuse("resume now", "resume takes no arguments");
	CHECK(parse_ok("stop\n").op == CTL_STOP, "stop");
	r = parse_ok("cancel 42");
	CHECK(r.op == CTL_CANCEL && r.job == 42, "cancel");
	r = parse_ok("cancel 18446744073709551615");
	CHECK(r.job == UINT64_MAX, "cancel max");
	r = parse_ok("retry 7");
	CHECK(r.op == CTL_RETRY && r.job == 7, "retry");
	r = parse_ok("submit porep");
	CHECK(r.op == CTL_SUBMIT && r.kind == VOCAB_KIND_POREP && !r.seed_len && !r.log_size &&
	      !r.partitions, "submit porep");
	r = parse_ok("submit winning-post seed=00ff k=27 partitions=64\n");
	CHECK(r.kind == VOCAB_KIND_WINNING_POST && r.seed_len == 2 && r.seed[0] == 0 && r.seed[1] == 0xff &&
	      r.log_size == 27 && r.partitions == 64, "submit full");
	r = parse_ok("submit window-post partitions=1 k=3 seed=AbCd");
	CHECK(r.kind == VOCAB_KIND_WINDOW_POST && r.partitions == 1 && r.log_size == 3 &&
	      r.seed[0] == 0xab && r.seed[1] == 0xcd, "options in any order, upper-case hex");
	r = parse_ok("submit snap-deals seed=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
	CHECK(r.kind == VOCAB_KIND_SNAP_DEALS && r.seed_len == 32 && r.seed[31] == 0x1f, "32-byte seed");
	r = parse_ok("worker enable gpu.0");
	CHECK(r.op == CTL_WORKER_ENABLE && r.slot_table == SHM_T_GPU && r.slot == 0, "worker enable");
	r = parse_ok("worker disable synth.13");
	CHECK(r.op == CTL_WORKER_DISABLE && r.slot_table == SHM_T_SYNTH && r.slot == 13, "worker disable");
}

static void test_refused(void)
{
	char big[CTL_MAX_LINE + 2];

	refuse("", "empty");
	refuse("\n", "empty");
	memset(big, 'a', sizeof big);
	memcpy(big, "submit porep", 12);
	refuse_n(big, CTL_MAX_LINE + 1, "longer than");
	big[CTL_MAX_LINE] = '\n';	/* 513 bytes with the newline: still too long */
	refuse_n(big, CTL_MAX_LINE + 1, "longer than");
	refuse("ping\r\n", "non-printable byte 0x0d");
	refuse("ping\t", "non-printable");
	refuse("sub\x80mit porep", "non-printable byte 0x80");
	refuse("ping\n\n", "non-printable byte 0x0a");
	refuse_n("sto\0p", 5, "NUL byte at offset 3");
	refuse_n("stop\0", 5, "NUL byte");
	refuse("launch", "unknown request 'launch'");
	refuse("PING", "unknown request");
	refuse("submit", "needs a kind");
	refuse("submit stark", "unknown kind 'stark'");
	refuse("submit porep seed=zz", "seed is not hex");
	refuse("submit porep seed=abc", "seed is not hex");
	refuse("submit porep seed=", "seed is not hex");
	refuse("submit porep seed=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
	       "seed is not hex");
	refuse("submit porep k=0", "k must be 3..27");
	refuse("submit porep k=2", "k must be 3..27");
	refuse("submit porep k=28", "k must be 3..27");
	refuse("submit porep k=014", "k must be");
	refuse("submit porep k=+4", "k must be");
	refuse("submit porep k=", "k must be");
	refuse("submit porep k=99999999999999999999999", "k must be");
	refuse("submit porep partitions=0", "partitions must be 1..64");
	refuse("submit porep partitions=65", "partitions must be 1..64");
	refuse("submit porep k=3 k=3", "duplicate option 'k'");
	refuse("submit porep seed=aa seed=bb", "duplicate option 'seed'");
	refuse("submit porep deadline=3", "unknown option 'deadline'");
	refuse("submit porep extra", "unexpected word 'extra'");
	refuse("ping now", "takes no arguments");
	refuse("hello there", "takes no arguments");
	refuse("stop ", "stray space");
	refuse("stop \n", "stray space");
	refuse(" stop", "stray space");
	refuse("submit  porep", "stray space");
	refuse("cancel", "usage: cancel JOB");
	refuse("cancel 0", "not a job id");
	refuse("cancel 18446744073709551616", "not a job id");
	refuse("cancel 1 2", "usage");
	refuse("cancel -1", "not a job id");
	refuse("retry", "usage: retry JOB");
	refuse("retry 0", "not a job id");
	refuse("retry 1 2", "usage");
	refuse("worker enable", "usage");
	refuse("worker start gpu.0", "neither enable nor disable");
	refuse("worker enable cpu.0", "not gpu.N or synth.N");
	refuse("worker enable gpu.", "not gpu.N");
	refuse("worker enable gpu.x", "not gpu.N");
	refuse("worker enable gpu.65536", "not gpu.N");
	refuse("worker enable gpu.0 now", "usage");
	refuse("a b c d e f g h i", "too many words");
}

/* format(parse(line)) == line for canonical lines. */
static void test_roundtrip(void)
{
	static const char *lines[] = {
		"ping\n", "hello\n", "drain\n", "resume\n", "stop\n", "cancel 7\n", "retry 7\n", "submit porep\n",
		"submit winning-post seed=00ff k=26 partitions=64\n",
		"submit snap-deals seed=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20\n",
		"submit window-post k=14\n", "worker enable gpu.3\n", "worker disable synth.0\n",
	};
	char buf[CTL_MAX_LINE];
	struct ctl_req r, bad = { .op = CTL_SUBMIT, .kind = 9 };

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		r = parse_ok(lines[i]);
		int n = ctl_format(&r, buf, sizeof buf);
		CHECK(n == (int)strlen(lines[i]) && !memcmp(buf, lines[i], (size_t)n),
		      "round trip of '%s' gave '%.*s'", lines[i], n < 0 ? 0 : n, buf);
	}
	r = parse_ok("submit porep k=3");
	CHECK(ctl_format(&r, buf, 10) == -1, "format into a short buffer");
	CHECK(ctl_format(&bad, buf, sizeof buf) == -1, "format of an unknown kind");
	bad.op = 0;
	CHECK(ctl_format(&bad, buf, sizeof buf) == -1, "format of op 0");
}

/* Random lines from a small alphabet of protocol pieces and raw bytes:
 * no crash, and every accepted line formats into a line that parses to
 * the same request. */
static void test_fuzz(void)
{
	static const char *pieces[] = {
		"submit", "porep", "winning-post", "snap-deals", "window-post", "seed=", "k=",
		"partitions=", "cancel", "worker", "enable", "disable", "gpu.", "synth.", "ping",
		"drain", "stop", " ", " ", "0", "1", "26", "64", "ab", "f", "\n", "=",
	};
	uint64_t s = 0x9e3779b97f4a7c15ull;
	char line[CTL_MAX_LINE + 64], buf[CTL_MAX_LINE], err[256];
	struct ctl_req r, r2;
	long ok = 0;

	for (int iter = 0; iter < T_SIZE(400000, 50000); iter++) {
		size_t len = 0, want = t_rand(&s) % (iter & 1 ? 24 : CTL_MAX_LINE + 40);
		while (len < want) {
			uint64_t x = t_rand(&s);
			const char *p = pieces[x % (sizeof pieces / sizeof pieces[0])];
			if ((x >> 32) % 5 == 0)
				line[len++] = (char)(x >> 40);
			else
				for (; *p && len < sizeof line; p++)
					line[len++] = *p;
		}
		if (ctl_parse(line, len, &r, err, sizeof err)) {
			CHECK(err[0], "refusal without a reason");
			continue;
		}
		ok++;
		int n = ctl_format(&r, buf, sizeof buf);
		CHECK(n > 0, "accepted '%.*s' but cannot format it", (int)len, line);
		CHECK(!ctl_parse(buf, (size_t)n, &r2, err, sizeof err), "reformatted '%s': %s", buf, err);
		CHECK(req_eq(&r, &r2), "round trip changed '%s'", buf);
	}
	printf("info: fuzz: 400000 random lines, %ld accepted, all reformat and reparse\n", ok);
}

int main(void)
{
	test_valid();
	test_refused();
	test_roundtrip();
	test_fuzz();
	return 0;
}
