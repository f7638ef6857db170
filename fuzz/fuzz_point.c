/*
 * fuzz_point: the G1 and G2 point decoders (curve/curve.h). The first
 * byte picks the decoder (G1 or G2, compressed or uncompressed, checked or
 * on-curve only); the rest is the encoding, zero-padded to its length.
 * Whatever a checked decoder accepts must be on the curve and in the
 * subgroup, and must encode back to the very same bytes (one encoding per
 * point: the decoders refuse every other); a refusal must leave a reason.
 */
#include <string.h>

#include "curve/curve.h"
#include "fuzz/fuzz.h"

FUZZ_ENTRY(point)
{
	uint8_t in[G2_UNCOMPRESSED] = { 0 }, out[G2_UNCOMPRESSED];
	char err[256];
	g1_affine_t p1;
	g2_affine_t p2;
	unsigned sel;
	size_t len;
	int rc;

	if (size < 1)
		return 0;
	sel = data[0] % 6;
	len = sel == 0 ? G1_COMPRESSED : sel == 1 || sel == 4 ? G1_UNCOMPRESSED
	    : sel == 2 ? G2_COMPRESSED : G2_UNCOMPRESSED;
	memcpy(in, data + 1, size - 1 < len ? size - 1 : len);
	fuzz_err_fill(err, sizeof err);
	switch (sel) {
	case 0:
	case 1:
	case 4:
		rc = sel == 0 ? g1_decompress(&p1, in, err, sizeof err)
		   : sel == 1 ? g1_deserialize(&p1, in, err, sizeof err)
			      : g1_deserialize_unchecked(&p1, in, err, sizeof err);
		if (rc) {
			fuzz_check_err(err, sizeof err);
			return 0;
		}
		FUZZ_ASSERT(g1_affine_on_curve(&p1));
		FUZZ_ASSERT(sel == 4 || g1_affine_in_subgroup(&p1));
		if (sel == 0)
			g1_compress(out, &p1);
		else
			g1_serialize(out, &p1);
		break;
	default:
		rc = sel == 2 ? g2_decompress(&p2, in, err, sizeof err)
		   : sel == 3 ? g2_deserialize(&p2, in, err, sizeof err)
			      : g2_deserialize_unchecked(&p2, in, err, sizeof err);
		if (rc) {
			fuzz_check_err(err, sizeof err);
			return 0;
		}
		FUZZ_ASSERT(g2_affine_on_curve(&p2));
		FUZZ_ASSERT(sel == 5 || g2_affine_in_subgroup(&p2));
		if (sel == 2)
			g2_compress(out, &p2);
		else
			g2_serialize(out, &p2);
	}
	FUZZ_ASSERT(!memcmp(out, in, len));
	return 0;
}
