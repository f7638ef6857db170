/*
 * curve/point_tmpl.h: the Jacobian arithmetic of one short Weierstrass
 * group with a = 0, written once for G1 (over Fp) and G2 (over Fp2).
 * curve/point.c includes it once per group, between curve/tmpl_g1.h (or
 * tmpl_g2.h), which names the group's types and functions, and
 * curve/tmpl_end.h. It calls curve_wnaf() and curve_wnaf_width(), defined
 * in point.c before the inclusion.
 *
 * The formulas are the EFD's for a = 0 Jacobian coordinates: doubling
 * dbl-2009-l, addition add-2007-bl, mixed addition madd-2007-bl; the
 * cases those formulas get wrong (an input at infinity, equal or opposite
 * inputs) are handled before or inside them, so every addition here is
 * complete. Nothing is constant-time: no input of this code is secret.
 *
 * No include guard: it is included once per group.
 */

void P_(set_inf)(P_T *out)
{
	out->x = F_ONE;
	out->y = F_ONE;
	out->z = F_ZERO;
}

void P_(from_affine)(P_T *out, const A_T *a)
{
	if (a->inf) {
		P_(set_inf)(out);
		return;
	}
	out->x = a->x;
	out->y = a->y;
	out->z = F_ONE;
}

/* (X, Y) * (1/Z^2, 1/Z^3) for a known zinv = 1/Z. */
static void P_(scale_to_affine)(A_T *out, const P_T *a, const F_T *zinv)
{
	F_T t;

	F_(sqr)(&t, zinv);
	F_(mul)(&out->x, &a->x, &t);
	F_(mul)(&t, &t, zinv);
	F_(mul)(&out->y, &a->y, &t);
	out->inf = 0;
}

void P_(to_affine)(A_T *out, const P_T *a)
{
	F_T zinv;

	if (F_(inv)(&zinv, &a->z) != 0) {
		*out = (A_T){ .inf = 1 };
		return;
	}
	P_(scale_to_affine)(out, a, &zinv);
}

int P_(batch_to_affine)(A_T *out, const P_T *a, size_t n)
{
	if (n == 0)
		return 0;
	F_T *zinv = malloc(n * sizeof *zinv);
	if (!zinv)
		return -1;
	for (size_t i = 0; i < n; i++)
		zinv[i] = a[i].z;
	if (F_(batch_inv)(zinv, zinv, n) != 0) {
		free(zinv);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (F_(is_zero)(&a[i].z))
			out[i] = (A_T){ .inf = 1 };
		else
			P_(scale_to_affine)(&out[i], &a[i], &zinv[i]);
	}
	free(zinv);
	return 0;
}

int P_(is_inf)(const P_T *a)
{
	return F_(is_zero)(&a->z);
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3. */
int P_(equal)(const P_T *a, const P_T *b)
{
	int ia = P_(is_inf)(a), ib = P_(is_inf)(b);
	F_T z1z1, z2z2, u1, u2, s1, s2;

	if (ia || ib)
		return ia && ib;
	F_(sqr)(&z1z1, &a->z);
	F_(sqr)(&z2z2, &b->z);
	F_(mul)(&u1, &a->x, &z2z2);
	F_(mul)(&u2, &b->x, &z1z1);
	if (!F_(equal)(&u1, &u2))
		return 0;
	F_(mul)(&s1, &a->y, &b->z);
	F_(mul)(&s1, &s1, &z2z2);
	F_(mul)(&s2, &b->y, &a->z);
	F_(mul)(&s2, &s2, &z1z1);
	return F_(equal)(&s1, &s2);
}

int P_(affine_equal)(const A_T *a, const A_T *b)
{
	if (a->inf || b->inf)
		return a->inf && b->inf;
	return F_(equal)(&a->x, &b->x) && F_(equal)(&a->y, &b->y);
}

void P_(neg)(P_T *out, const P_T *a)
{
	out->x = a->x;
	F_(neg)(&out->y, &a->y);
	out->z = a->z;
}

void P_(affine_neg)(A_T *out, const A_T *a)
{
	out->x = a->x;
	F_(neg)(&out->y, &a->y);
	out->inf = a->inf;
}

/* dbl-2009-l: 2M + 5S. Infinity (Z = 0) stays infinity. */
void P_(double)(P_T *out, const P_T *a)
{
	F_T A, B, C, D, E, F, t;
	P_T o;

	F_(sqr)(&A, &a->x);
	F_(sqr)(&B, &a->y);
	F_(sqr)(&C, &B);
	F_(add)(&D, &a->x, &B);
	F_(sqr)(&D, &D);
	F_(sub)(&D, &D, &A);
	F_(sub)(&D, &D, &C);
	F_(double)(&D, &D);		/* D = 2((X + B)^2 - A - C) */
	F_(double)(&E, &A);
	F_(add)(&E, &E, &A);		/* E = 3A */
	F_(sqr)(&F, &E);
	F_(double)(&t, &D);
	F_(sub)(&o.x, &F, &t);		/* X3 = F - 2D */
	F_(sub)(&t, &D, &o.x);
	F_(mul)(&o.y, &E, &t);
	F_(double)(&C, &C);
	F_(double)(&C, &C);
	F_(double)(&C, &C);
	F_(sub)(&o.y, &o.y, &C);	/* Y3 = E (D - X3) - 8C */
	F_(mul)(&o.z, &a->y, &a->z);
	F_(double)(&o.z, &o.z);		/* Z3 = 2 Y1 Z1 */
	*out = o;
}

/*
 * The part add-2007-bl and madd-2007-bl share, from u1 = X1 Z2^2,
 * u2 = X2 Z1^2, s1 = Y1 Z2^3, s2 = Y2 Z1^3 and zz = Z1 Z2 (Z1 for the
 * mixed form, where Z2 = 1). H = u2 - u1 = 0 means the same x: then the
 * inputs are equal (double a) or opposite (infinity), which the formulas
 * would both turn into Z3 = 0. Both formulas give Z3 = 2 Z1 Z2 H.
 */
static void P_(add_tail)(P_T *out, const P_T *a, const F_T *u1, const F_T *u2,
			 const F_T *s1, const F_T *s2, const F_T *zz)
{
	F_T h, i, j, r, v, t;
	P_T o;

	F_(sub)(&h, u2, u1);
	F_(sub)(&r, s2, s1);
	if (F_(is_zero)(&h)) {
		if (F_(is_zero)(&r))
			P_(double)(out, a);
		else
			P_(set_inf)(out);
		return;
	}
	F_(double)(&r, &r);		/* r = 2 (s2 - s1) */
	F_(double)(&i, &h);
	F_(sqr)(&i, &i);		/* I = (2H)^2 */
	F_(mul)(&j, &h, &i);		/* J = H I */
	F_(mul)(&v, u1, &i);		/* V = u1 I */
	F_(sqr)(&o.x, &r);
	F_(sub)(&o.x, &o.x, &j);
	F_(double)(&t, &v);
	F_(sub)(&o.x, &o.x, &t);	/* X3 = r^2 - J - 2V */
	F_(sub)(&t, &v, &o.x);
	F_(mul)(&o.y, &r, &t);
	F_(mul)(&t, s1, &j);
	F_(double)(&t, &t);
	F_(sub)(&o.y, &o.y, &t);	/* Y3 = r (V - X3) - 2 s1 J */
	F_(mul)(&o.z, zz, &h);
	F_(double)(&o.z, &o.z);		/* Z3 = 2 Z1 Z2 H */
	*out = o;
}

/* 11M + 4S. */
void P_(add)(P_T *out, const P_T *a, const P_T *b)
{
	F_T z1z1, z2z2, u1, u2, s1, s2, zz;

	if (P_(is_inf)(a)) {
		*out = *b;
		return;
	}
	if (P_(is_inf)(b)) {
		*out = *a;
		return;
	}
	F_(sqr)(&z1z1, &a->z);
	F_(sqr)(&z2z2, &b->z);
	F_(mul)(&u1, &a->x, &z2z2);
	F_(mul)(&u2, &b->x, &z1z1);
	F_(mul)(&s1, &a->y, &b->z);
	F_(mul)(&s1, &s1, &z2z2);
	F_(mul)(&s2, &b->y, &a->z);
	F_(mul)(&s2, &s2, &z1z1);
	F_(mul)(&zz, &a->z, &b->z);
	P_(add_tail)(out, a, &u1, &u2, &s1, &s2, &zz);
}

/* 8M + 3S. */
void P_(add_affine)(P_T *out, const P_T *a, const A_T *b)
{
	F_T z1z1, u2, s2;

	if (b->inf) {
		*out = *a;
		return;
	}
	if (P_(is_inf)(a)) {
		P_(from_affine)(out, b);
		return;
	}
	F_(sqr)(&z1z1, &a->z);
	F_(mul)(&u2, &b->x, &z1z1);
	F_(mul)(&s2, &b->y, &a->z);
	F_(mul)(&s2, &s2, &z1z1);
	P_(add_tail)(out, a, &a->x, &u2, &a->y, &s2, &a->z);
}

/*
 * Left-to-right wNAF: odd multiples a, 3a, ..., (2^(w-1) - 1)a in a
 * Jacobian table (normalising them would cost an inversion, more than
 * the additions it saves), then one doubling per bit and one addition
 * per nonzero digit (about bits / (w + 1) of them).
 */
void P_(mul_limbs)(P_T *out, const P_T *a, const uint64_t *s, size_t n)
{
	int8_t digit[CURVE_WNAF_DIGITS];
	P_T tab[1 << (CURVE_WNAF_MAX_W - 2)], two, acc, t;

	while (n > 0 && s[n - 1] == 0)
		n--;
	if (n > CURVE_WNAF_LIMBS) {
		/* Longer than any scalar this code meets: s = hi 2^(64 k) + lo. */
		size_t k = n - CURVE_WNAF_LIMBS;
		P_(mul_limbs)(&acc, a, s + k, CURVE_WNAF_LIMBS);
		for (size_t i = 0; i < 64 * k; i++)
			P_(double)(&acc, &acc);
		P_(mul_limbs)(&t, a, s, k);
		P_(add)(out, &acc, &t);
		return;
	}
	unsigned w = curve_wnaf_width(n);
	size_t top = curve_wnaf(digit, s, n, w);

	tab[0] = *a;
	P_(double)(&two, a);
	for (size_t i = 1; i < (size_t)1 << (w - 2); i++)
		P_(add)(&tab[i], &tab[i - 1], &two);
	P_(set_inf)(&acc);
	for (size_t i = top; i-- > 0;) {
		P_(double)(&acc, &acc);
		int d = digit[i];
		if (d > 0) {
			P_(add)(&acc, &acc, &tab[(d - 1) / 2]);
		} else if (d < 0) {
			P_(neg)(&t, &tab[(-d - 1) / 2]);
			P_(add)(&acc, &acc, &t);
		}
	}
	*out = acc;
}

void P_(mul)(P_T *out, const P_T *a, const fr_t *s)
{
	uint64_t v[4];

	fr_to_limbs(v, s);
	P_(mul_limbs)(out, a, v, 4);
}

/* y^2 = x^3 + b. */
int P_(affine_on_curve)(const A_T *a)
{
	F_T l, r;

	if (a->inf)
		return 1;
	F_(sqr)(&l, &a->y);
	F_(sqr)(&r, &a->x);
	F_(mul)(&r, &r, &a->x);
	F_(add)(&r, &r, &P_B);
	return F_(equal)(&l, &r);
}
