/*
 * proto_frame: the frame codec. Every type seals and checks; each kind of
 * corruption is refused with its own reason; the streamed checksum equals
 * the one-shot one whatever the chunking; PART_DATA's chunked layout and
 * trailer; the whole-read helper tells a clean EOF from a truncated frame.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "proto/frame.h"
#include "tests/helpers.h"

/* A sealed, well-formed header of type t at k (payload contents do not
 * matter to the header check, only its length). */
static void sealed(struct frame_hdr *h, uint16_t t, uint16_t k, const uint8_t *buf)
{
	uint64_t len = t == FRAME_FAIL ? 17 : frame_expected_len(t, k);

	frame_init(h, t, 0x1122334455667788ull, 7, 3, k, 42);
	frame_seal(h, buf, len);
}

/* Check that h is refused and the reason contains what. */
static void refused(const struct frame_hdr *h, const char *what)
{
	char err[256] = "";

	CHECK(frame_check_hdr(h, VOCAB_LOG_MAX, err, sizeof err) == -EBADMSG,
	      "accepted a header that should fail with \"%s\"", what);
	CHECK(strstr(err, what) != NULL, "reason \"%s\" does not say \"%s\"", err, what);
	printf("refused: %s\n", err);
}

static void test_roundtrip(const uint8_t *buf)
{
	for (uint16_t t = 1; t < FRAME_NTYPES; t++) {
		for (uint16_t k = VOCAB_LOG_MIN; k <= 12; k += 12 - VOCAB_LOG_MIN) {
			struct frame_hdr h;
			char err[256];

			sealed(&h, t, k, buf);
			CHECK(frame_check_hdr(&h, VOCAB_LOG_MAX, err, sizeof err) == 0,
			      "%s k=%u: %s", frame_type_name(t), k, err);
			CHECK_EQ_U64(h.checksum, frame_checksum(buf, h.payload_len));
			CHECK_EQ_U64(h.job, 0x1122334455667788ull);
			CHECK_EQ_U64(h.gen, 42);
		}
	}
	/* HELLO and FAIL need no partition size. */
	struct frame_hdr h;
	char err[256];
	sealed(&h, FRAME_HELLO, 0, buf);
	CHECK(frame_check_hdr(&h, VOCAB_LOG_MAX, err, sizeof err) == 0, "HELLO k=0: %s", err);
	CHECK_EQ_U64(frame_expected_len(FRAME_PART_DATA, 10), 3 * 1024 * 32 + FRAME_TRAILER_BYTES);
	/* k = 27: 12 GiB of rows, a length past 32 bits */
	CHECK_EQ_U64(frame_expected_len(FRAME_PART_DATA, 27), (3ull << 27) * 32 + FRAME_TRAILER_BYTES);
	CHECK_EQ_U64(frame_expected_len(FRAME_H_DONE, 10), sizeof(struct frame_h_done));
	CHECK_EQ_U64(frame_expected_len(FRAME_FAIL, 10), 0);
}

static void test_corruptions(const uint8_t *buf)
{
	struct frame_hdr h, g;

	sealed(&h, FRAME_PART_DATA, 10, buf);
	g = h; g.magic ^= 1; frame_seal_hdr(&g); refused(&g, "magic");
	g = h; g.version = FRAME_VERSION + 1; frame_seal_hdr(&g); refused(&g, "version");
	g = h; g.version = FRAME_VERSION - 1; frame_seal_hdr(&g); refused(&g, "version");
	/* A change anywhere in bytes 0..59 without resealing. */
	for (size_t off = 8; off < 60; off += 4) {
		g = h;
		((uint8_t *)&g)[off] ^= 0x10;
		refused(&g, "header check");
	}
	g = h; g.hdr_check ^= 1; refused(&g, "header check");
	g = h; g.type = 0; frame_seal_hdr(&g); refused(&g, "unknown frame type 0");
	g = h; g.type = FRAME_NTYPES; frame_seal_hdr(&g); refused(&g, "unknown frame type");
	g = h; g.log_size = 0; frame_seal_hdr(&g); refused(&g, "out of range");
	g = h; g.log_size = VOCAB_LOG_MIN - 1; frame_seal_hdr(&g); refused(&g, "out of range 3..");
	g = h; g.log_size = VOCAB_LOG_MAX + 1; frame_seal_hdr(&g); refused(&g, "out of range");
	/* k above the receiver's own limit. */
	char err[256];
	CHECK(frame_check_hdr(&h, 9, err, sizeof err) == -EBADMSG, "k=10 > max 9 accepted");
	CHECK(strstr(err, "out of range 3..9"), "%s", err);
	g = h; g.payload_len += 32; frame_seal_hdr(&g); refused(&g, "expected 98312");
	g = h; g.payload_len = 0; frame_seal_hdr(&g); refused(&g, "payload of 0 bytes");
	/* Right length for another k or another type. */
	g = h; g.log_size = 11; frame_seal_hdr(&g); refused(&g, "expected 196616");
	g = h; g.type = FRAME_H_DONE; frame_seal_hdr(&g); refused(&g, "H_DONE frame");
	sealed(&h, FRAME_HELLO, 0, buf);
	g = h; g.payload_len = 127; frame_seal_hdr(&g); refused(&g, "HELLO frame");
	sealed(&h, FRAME_SYNTH_REQ, 10, buf);
	g = h; g.payload_len = 32; frame_seal_hdr(&g); refused(&g, "SYNTH_REQ frame");
	sealed(&h, FRAME_FAIL, 10, buf);
	g = h; g.payload_len = FRAME_FAIL_MAX + 1; frame_seal_hdr(&g); refused(&g, "FAIL frame");
	g = h; g.payload_len = 0; frame_seal_hdr(&g); refused(&g, "FAIL frame");
	g = h; g.payload_len = FRAME_FAIL_MAX; frame_seal_hdr(&g);
	CHECK(frame_check_hdr(&g, VOCAB_LOG_MAX, err, sizeof err) == 0, "FAIL of 256: %s", err);
	/* a FAIL's class rides in reserved: each known one passes, the next is refused */
	g = h; g.reserved = FRAME_FAIL_INTERNAL; frame_seal_hdr(&g);
	CHECK(frame_check_hdr(&g, VOCAB_LOG_MAX, err, sizeof err) == 0, "FAIL of class internal: %s", err);
	CHECK(!strcmp(frame_fail_class_name(FRAME_FAIL_DEVICE_LOST), "device lost"), "class name");
	g = h; g.reserved = FRAME_FAIL_NCLASSES; frame_seal_hdr(&g); refused(&g, "FAIL frame: unknown class");
	/* A changed payload shows in the checksum, which the header carries. */
	sealed(&h, FRAME_H_DONE, 6, buf);
	uint8_t copy[2048];
	memcpy(copy, buf, sizeof copy);
	copy[10] ^= 1;
	CHECK(frame_checksum(copy, h.payload_len) != h.checksum, "payload flip not seen");
}

static void test_streaming(const uint8_t *buf, size_t n)
{
	uint64_t one = frame_checksum(buf, n), seed = 99;
	struct frame_sum s;

	for (int round = 0; round < 50; round++) {
		size_t off = 0;

		CHECK(frame_sum_init(&s) == 0, "frame_sum_init");
		while (off < n) {
			size_t step = 1 + t_rand(&seed) % (round < 25 ? 300 : 70000);

			if (step > n - off)
				step = n - off;
			frame_sum_update(&s, buf + off, step);
			off += step;
		}
		CHECK_EQ_U64(frame_sum_final(&s), one);
		CHECK(s.state == NULL, "state not freed");
	}
	CHECK(frame_sum_init(&s) == 0, "init");
	CHECK_EQ_U64(frame_sum_final(&s), frame_checksum("", 0));
}

/* PART_DATA's layout: chunks of min(2^k, 2^16) rows, a then b then c of
 * each; frame_part_off maps every (vector, row) to its own element slot,
 * all of them; the trailer is the rows' XXH3, checked by frame_payload_ok. */
static void test_part_layout(const uint8_t *buf)
{
	static const uint16_t ks[] = { 1, 5, 15, 16, 17, 18 };
	static uint8_t seen[3 << 18];
	static uint8_t part[3 * 1024 * 32 + FRAME_TRAILER_BYTES];
	struct frame_hdr h;

	for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
		uint16_t k = ks[t];
		uint64_t n = (uint64_t)1 << k;

		CHECK_EQ_U64(frame_part_chunk_rows(k), n < 65536 ? n : 65536);
		memset(seen, 0, 3 * n);
		for (unsigned v = 0; v < 3; v++)
			for (uint64_t i = 0; i < n; i++) {
				uint64_t off = frame_part_off(k, v, i);

				CHECK(off % 32 == 0 && off / 32 < 3 * n, "k=%u %c[%llu] at %llu", k,
				      "abc"[v], (unsigned long long)i, (unsigned long long)off);
				CHECK(!seen[off / 32]++, "k=%u: two elements at %llu", k,
				      (unsigned long long)off);
			}
	}
	CHECK_EQ_U64(frame_part_off(10, 1, 0), 1024 * 32);
	CHECK_EQ_U64(frame_part_off(10, 2, 1023), (3 * 1024 - 1) * 32);
	CHECK_EQ_U64(frame_part_off(17, 2, 65535), (3 * 65536 - 1) * 32);
	CHECK_EQ_U64(frame_part_off(17, 0, 65536), 3 * 65536 * 32);
	CHECK_EQ_U64(frame_part_off(17, 1, 65537), (4 * 65536 + 1) * 32);

	memcpy(part, buf, sizeof part);
	frame_part_seal(part, 10);
	frame_init(&h, FRAME_PART_DATA, 1, 0, 3, 10, 5);
	h.payload_len = frame_expected_len(FRAME_PART_DATA, 10);
	frame_seal_hdr(&h);
	CHECK_EQ_U64(h.payload_len, sizeof part);
	uint64_t sum = frame_checksum(part, sizeof part - 8), trailer = 0;
	for (int i = 0; i < 8; i++)
		trailer |= (uint64_t)part[sizeof part - 8 + i] << (8 * i);
	CHECK_EQ_U64(trailer, sum);
	CHECK(frame_payload_ok(&h, part), "sealed PART_DATA refused");
	part[100] ^= 1;
	CHECK(!frame_payload_ok(&h, part), "a flipped row byte passes");
	part[100] ^= 1;
	part[sizeof part - 1] ^= 0x80;
	CHECK(!frame_payload_ok(&h, part), "a flipped trailer byte passes");
	memset(part + sizeof part / 2, 0, sizeof part - sizeof part / 2);	/* a zero-padded tail */
	CHECK(!frame_payload_ok(&h, part), "a zero-padded tail passes");
	/* Other types: the header's checksum. */
	sealed(&h, FRAME_HELLO, 0, buf);
	CHECK(frame_payload_ok(&h, buf), "sealed HELLO refused");
	h.checksum ^= 1;
	CHECK(!frame_payload_ok(&h, buf), "HELLO with a wrong checksum passes");
}

static void test_read_full(void)
{
	int p[2];
	uint8_t b[8];

	CHECK(pipe(p) == 0, "pipe");
	CHECK(write(p[1], "abc", 3) == 3, "write");
	close(p[1]);
	CHECK(frame_read_full(p[0], b, 3) == 0, "whole read");
	CHECK(frame_read_full(p[0], b, 3) == 1, "clean EOF");
	close(p[0]);
	CHECK(pipe(p) == 0, "pipe");
	CHECK(write(p[1], "ab", 2) == 2, "write");
	close(p[1]);
	CHECK(frame_read_full(p[0], b, 3) == -EPIPE, "EOF mid-read");
	close(p[0]);
}

int main(void)
{
	static uint8_t buf[3 << 20];
	uint64_t seed = 1;

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)t_rand(&seed);
	test_roundtrip(buf);
	test_corruptions(buf);
	test_streaming(buf, sizeof buf);
	test_streaming(buf, 1000);
	test_part_layout(buf);
	test_read_full();
	printf("info: frame codec: %d types, corruptions refused with reasons\n",
	       FRAME_NTYPES - 1);
	return 0;
}
