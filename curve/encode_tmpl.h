/*
 * curve/encode_tmpl.h: the ZCash encodings of one group, written once for
 * G1 and G2. curve/encode.c includes it once per group, between
 * curve/tmpl_g1.h (or tmpl_g2.h) and curve/tmpl_end.h, after defining
 * enc_flags(), enc_fail() and the coordinate byte I/O E_(to_be),
 * E_(from_be).
 * No include guard: it is included once per group.
 */

void P_(compress)(uint8_t out[E_FB], const A_T *a)
{
	if (a->inf) {
		memset(out, 0, E_FB);
		out[0] = ENC_COMPRESSED | ENC_INFINITY;
		return;
	}
	E_(to_be)(out, &a->x);
	out[0] |= ENC_COMPRESSED | (F_(lexlarger)(&a->y) ? ENC_SORT : 0);
}

void P_(serialize)(uint8_t out[2 * E_FB], const A_T *a)
{
	if (a->inf) {
		memset(out, 0, 2 * E_FB);
		out[0] = ENC_INFINITY;
		return;
	}
	E_(to_be)(out, &a->x);
	E_(to_be)(out + E_FB, &a->y);
}

/* x from the first E_FB bytes, the flag bits masked off: 0, or -1. */
static int P_(read_x)(F_T *x, const uint8_t *in)
{
	uint8_t b[E_FB];

	memcpy(b, in, E_FB);
	b[0] &= ENC_BODY;
	return E_(from_be)(x, b);
}

int P_(decompress)(A_T *out, const uint8_t in[E_FB], char *why, size_t whylen)
{
	A_T a = { .inf = 0 };
	F_T y2;
	int sort, k = enc_flags(in, E_FB, 1, &sort, E_NAME, why, whylen);

	if (k != 0) {
		if (k > 0)
			*out = (A_T){ .inf = 1 };
		return k > 0 ? 0 : -1;
	}
	if (P_(read_x)(&a.x, in) != 0)
		return enc_fail(why, whylen, "%s: x coordinate not below p (non-canonical)", E_NAME);
	F_(sqr)(&y2, &a.x);
	F_(mul)(&y2, &y2, &a.x);
	F_(add)(&y2, &y2, &P_B);
	if (F_(sqrt)(&a.y, &y2) != 0)
		return enc_fail(why, whylen, "%s: x coordinate of no point on the curve (x^3 + b is not a square)", E_NAME);
	if (F_(lexlarger)(&a.y) != sort)
		F_(neg)(&a.y, &a.y);
	if (!P_(affine_in_subgroup)(&a))
		return enc_fail(why, whylen, "%s: point not in the prime-order subgroup", E_NAME);
	*out = a;
	return 0;
}

static int P_(deserialize_check)(A_T *out, const uint8_t in[2 * E_FB], int subgroup,
				 char *why, size_t whylen)
{
	A_T a = { .inf = 0 };
	int sort, k = enc_flags(in, 2 * E_FB, 0, &sort, E_NAME, why, whylen);

	if (k != 0) {
		if (k > 0)
			*out = (A_T){ .inf = 1 };
		return k > 0 ? 0 : -1;
	}
	if (P_(read_x)(&a.x, in) != 0)
		return enc_fail(why, whylen, "%s: x coordinate not below p (non-canonical)", E_NAME);
	if (E_(from_be)(&a.y, in + E_FB) != 0)
		return enc_fail(why, whylen, "%s: y coordinate not below p (non-canonical)", E_NAME);
	if (!P_(affine_on_curve)(&a))
		return enc_fail(why, whylen, "%s: point not on the curve", E_NAME);
	if (subgroup && !P_(affine_in_subgroup)(&a))
		return enc_fail(why, whylen, "%s: point not in the prime-order subgroup", E_NAME);
	*out = a;
	return 0;
}

int P_(deserialize)(A_T *out, const uint8_t in[2 * E_FB], char *why, size_t whylen)
{
	return P_(deserialize_check)(out, in, 1, why, whylen);
}

int P_(deserialize_unchecked)(A_T *out, const uint8_t in[2 * E_FB], char *why, size_t whylen)
{
	return P_(deserialize_check)(out, in, 0, why, whylen);
}
