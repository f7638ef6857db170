/*
 * verify: check a partition's H against the partition itself, in O(n).
 *
 * Given the identity (seed, partition, k) and H's n = 2^k coefficients,
 * re-synthesize a, b, c and check at one Fiat-Shamir point r that
 *   A(r) * B(r) - C(r) == H(r) * Z(r),   Z(x) = x^n - 1,
 * where A, B, C interpolate a, b, c on the domain of size n (the one
 * field/ntt.h uses). A wrong H makes both sides differ as polynomials of
 * degree < 2n, so they agree at a random r with probability < 2n / |Fr|
 * (Schwartz-Zippel). r is a hash of the identity and of every H byte, so
 * H cannot be chosen after r. H[n-1] must also be zero, as it is for a
 * satisfied system.
 */
#ifndef VERIFY_VERIFY_H
#define VERIFY_VERIFY_H

#include <stddef.h>

#include "field/fr.h"
#include "synth/synth.h"

/* Returns 0 when h is the H of partition id; -EBADMSG with the reason in
 * why when it is not; -EINVAL (bad id) or -ENOMEM with why filled too. */
int verify_partition(const struct synth_id *id, const fr_t *h, char *why, size_t whylen);

/* The same with H read, not held: rd(arg, off, buf, len) fills buf with
 * len bytes of H's canonical encodings from byte off (0, or -errno), in
 * two passes of VERIFY_STREAM_CHUNK bytes at most (the challenge and the
 * digest, then H(r)); the check holds that one chunk and the row chunks,
 * a few MiB at any k. digest gets BLAKE2b-256 of all H's bytes as the
 * first pass read them (for the caller to hold to the digest it expects;
 * filled even on a refusal). 0; -EBADMSG with the reason in why (wrong,
 * not canonical, or changed between the passes); -errno of a failed read
 * (why: "reading H: ..."); -EINVAL or -ENOMEM. */
#define VERIFY_STREAM_CHUNK (4u << 20)
int verify_partition_stream(const struct synth_id *id, int (*rd)(void *arg, uint64_t off, void *buf, size_t len),
			    void *arg, uint8_t digest[32], char *why, size_t whylen);
/* The same where H follows other bytes in one digested region (a proofs+H
 * file's region: the proof file, then H, format/pfile.h): digest gets
 * BLAKE2b-256 of prefix (prefix_len bytes) followed by all H's bytes, so
 * the region is read once for both its digest and the check. The
 * Fiat-Shamir point still depends on the identity and H alone. */
int verify_partition_stream_after(const struct synth_id *id, const void *prefix, size_t prefix_len,
				  int (*rd)(void *arg, uint64_t off, void *buf, size_t len), void *arg,
				  uint8_t digest[32], char *why, size_t whylen);

/* A function verify_partition and verify_point call every 2^16 elements
 * or so, for a caller that must show it is alive meanwhile (the synth
 * worker beats its heartbeat: at 2^24 and more a check takes longer than
 * the heartbeat timeout). NULL, the default: none. Process-wide. */
void verify_set_progress(void (*fn)(void));

/* The Fiat-Shamir point for (id, h): never a point of the domain. */
void verify_point(const struct synth_id *id, const fr_t *h, fr_t *r);

/* The generator of the domain of size 2^k (1 <= k <= 32). */
void verify_domain_gen(fr_t *w, unsigned k);

#endif
