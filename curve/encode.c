/*
 * curve/encode: the ZCash serialization of G1 and G2 points (see
 * curve/curve.h, and zkcrypto/bls12_381's notes/serialization.rs, which
 * blst, bellperson, gnark and @noble/curves follow).
 *
 * The first byte carries three flags: 0x80 compressed, 0x40 the point at
 * infinity, 0x20 (compressed only) y is the lexicographically larger of
 * the two roots. Infinity is the flag(s) and nothing else: every other bit
 * zero. The decoders accept exactly what the encoders write; anything else
 * is refused with one line saying why. The per-group code is written once
 * in curve/encode_tmpl.h and instantiated here for G1 and G2.
 */
#include "curve/curve.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ENC_COMPRESSED 0x80
#define ENC_INFINITY 0x40
#define ENC_SORT 0x20
#define ENC_BODY 0x1f	/* the first byte's bits below the flags */

static int enc_fail(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int enc_fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen > 0) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * The flags of a len-byte encoding that should be compressed or not.
 * Returns 1 for a well-formed point at infinity, 0 for a finite point
 * (*sort set from the sort flag), -1 with the reason in why.
 */
static int enc_flags(const uint8_t *in, size_t len, int compressed, int *sort,
		     const char *name, char *why, size_t whylen)
{
	int c = (in[0] & ENC_COMPRESSED) != 0;
	int inf = (in[0] & ENC_INFINITY) != 0;
	int s = (in[0] & ENC_SORT) != 0;

	if (c != compressed)
		return enc_fail(why, whylen, compressed
				? "%s: compressed encoding without the compression flag (0x80)"
				: "%s: uncompressed encoding with the compression flag (0x80) set", name);
	if (s && !compressed)
		return enc_fail(why, whylen, "%s: sort flag (0x20) set on an uncompressed encoding", name);
	if (inf) {
		if (s)
			return enc_fail(why, whylen, "%s: infinity flag (0x40) with the sort flag (0x20) set", name);
		int nonzero = in[0] & ENC_BODY;
		for (size_t i = 1; i < len; i++)
			nonzero |= in[i];
		if (nonzero)
			return enc_fail(why, whylen, "%s: infinity flag (0x40) with nonzero coordinate bytes", name);
		return 1;
	}
	*sort = s;
	return 0;
}

/* Field elements as bytes: Fp big-endian, Fp2 as c1 then c0. */
static void enc_fp_to_be(uint8_t *out, const fp_t *a)
{
	fp_to_bytes_be(out, a);
}

static int enc_fp_from_be(fp_t *out, const uint8_t *in)
{
	return fp_from_bytes_be(out, in);
}

static void enc_fp2_to_be(uint8_t *out, const fp2_t *a)
{
	fp_to_bytes_be(out, &a->c1);
	fp_to_bytes_be(out + FP_BYTES, &a->c0);
}

static int enc_fp2_from_be(fp2_t *out, const uint8_t *in)
{
	fp2_t t;

	if (fp_from_bytes_be(&t.c1, in) != 0 || fp_from_bytes_be(&t.c0, in + FP_BYTES) != 0)
		return -1;
	*out = t;
	return 0;
}

#include "curve/tmpl_g1.h"
#include "curve/encode_tmpl.h"
#include "curve/tmpl_end.h"

#include "curve/tmpl_g2.h"
#include "curve/encode_tmpl.h"
#include "curve/tmpl_end.h"
