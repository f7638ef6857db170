/*
 * fuzz_frame: the frame header check (proto/frame.h). The first 64 bytes
 * are a header (zero-padded when shorter), the rest a payload. Each input
 * is checked twice: as sent, and with hdr_check resealed, so the fuzzer
 * reaches the type, k and length rules without having to forge XXH3. An
 * accepted header must satisfy what frame_check_hdr promises; the payload's
 * checksum is computed at once and streamed in pieces, which must agree;
 * PART_DATA's chunked layout and trailer keep their promises.
 */
#include <errno.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "proto/frame.h"

static void fuzz_frame_check(struct frame_hdr *h, unsigned max_log)
{
	char err[128];
	int rc;

	fuzz_err_fill(err, sizeof err);
	rc = frame_check_hdr(h, max_log, err, sizeof err);
	FUZZ_ASSERT(frame_type_name(h->type) != NULL);
	if (rc) {
		FUZZ_ASSERT(rc == -EBADMSG);
		fuzz_check_err(err, sizeof err);
		return;
	}
	if (max_log > VOCAB_LOG_MAX)
		max_log = VOCAB_LOG_MAX;
	FUZZ_ASSERT(h->magic == FRAME_MAGIC && h->version == FRAME_VERSION);
	FUZZ_ASSERT(h->type >= FRAME_HELLO && h->type < FRAME_NTYPES);
	FUZZ_ASSERT(h->log_size <= max_log);
	if (h->type == FRAME_FAIL) {
		FUZZ_ASSERT(h->payload_len >= 1 && h->payload_len <= FRAME_FAIL_MAX);
	} else {
		FUZZ_ASSERT(h->payload_len == frame_expected_len(h->type, h->log_size));
		FUZZ_ASSERT(h->payload_len > 0);
	}
	if (h->type == FRAME_SYNTH_REQ || h->type == FRAME_PART_DATA || h->type == FRAME_H_DONE)
		FUZZ_ASSERT(h->log_size >= 1);
}

static void fuzz_frame_payload(struct frame_hdr *h, const uint8_t *p, size_t n)
{
	uint64_t sum = frame_checksum(p, n), streamed;
	struct frame_sum s;
	size_t cut1 = n ? p[0] % (n + 1) : 0, cut2 = cut1 + (n - cut1) / 2;

	FUZZ_ASSERT(frame_sum_init(&s) == 0);
	frame_sum_update(&s, p, cut1);
	frame_sum_update(&s, p + cut1, cut2 - cut1);
	frame_sum_update(&s, p + cut2, n - cut2);
	streamed = frame_sum_final(&s);
	FUZZ_ASSERT(streamed == sum);

	/* A sender sealing this payload makes a header whose check passes
	 * whenever the length is one its type allows. */
	frame_seal(h, p, n);
	FUZZ_ASSERT(h->checksum == sum && h->payload_len == n);
	fuzz_frame_check(h, VOCAB_LOG_MAX);
}

/* PART_DATA's layout (frame_part_off) puts the input's (vector, row) on an
 * element of the rows whose chunk, vector and row are the ones asked for;
 * a payload of the right length taken from the input passes its trailer
 * check once sealed (frame_part_seal), and fails it with one byte flipped. */
static void fuzz_frame_part(const uint8_t *p, size_t n)
{
	uint16_t k = (uint16_t)(1 + (n ? p[0] : 0) % 20);
	uint64_t rows_all = (uint64_t)1 << k, rows = frame_part_chunk_rows(k);
	uint64_t len = frame_expected_len(FRAME_PART_DATA, k), x = 0;
	static uint8_t copy[4096];
	struct frame_hdr h;

	for (size_t i = 1; i < n && i < 9; i++)
		x |= (uint64_t)p[i] << (8 * (i - 1));
	unsigned vec = (unsigned)(x % 3);
	uint64_t row = (x / 3) % rows_all, off = frame_part_off(k, vec, row);
	uint64_t el = off / 32, chunk = el / (3 * rows);

	FUZZ_ASSERT(off % 32 == 0 && off + 32 + FRAME_TRAILER_BYTES <= len);
	FUZZ_ASSERT(chunk == row / rows && (el % (3 * rows)) / rows == vec &&
		    el % rows == row % rows);
	if (len > n || len > sizeof copy)
		return;
	memcpy(copy, p, len);
	frame_part_seal(copy, k);
	frame_init(&h, FRAME_PART_DATA, 1, 0, 3, k, 1);
	h.payload_len = len;
	FUZZ_ASSERT(frame_payload_ok(&h, copy));
	copy[x % len] ^= (uint8_t)(1u << (x % 8));
	FUZZ_ASSERT(!frame_payload_ok(&h, copy));
}

FUZZ_ENTRY(frame)
{
	struct frame_hdr h;
	size_t hl = size < FRAME_HDR_SIZE ? size : FRAME_HDR_SIZE;
	unsigned max_log = size ? data[size - 1] % 40 : VOCAB_LOG_MAX;

	memset(&h, 0, sizeof h);
	memcpy(&h, data, hl);
	fuzz_frame_check(&h, VOCAB_LOG_MAX);
	fuzz_frame_check(&h, max_log);
	frame_seal_hdr(&h);
	fuzz_frame_check(&h, VOCAB_LOG_MAX);
	fuzz_frame_check(&h, max_log);
	fuzz_frame_payload(&h, data + hl, size - hl);
	fuzz_frame_part(data, size);
	return 0;
}
