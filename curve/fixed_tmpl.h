/*
 * curve/fixed_tmpl.h: the per-group half of curve/fixed.c (see there for
 * the method), written once for G1 and G2. fixed.c includes it once per
 * group, between curve/tmpl_g1.h (or tmpl_g2.h) and curve/tmpl_end.h.
 * No include guard: it is included once per group.
 */

/* Row r of the table: d 2^(w r) B for d = 1 .. rowlen, by repeated mixed
 * addition of 2^(w r) B (the first of them a doubling, which the complete
 * addition handles), then one normalisation. */
static int P_(fb_row)(struct fb_job *j, size_t r, void *scratch)
{
	const A_T *b = (const A_T *)j->bases + r;
	P_T *jac = scratch;

	P_(from_affine)(&jac[0], b);
	for (size_t d = 1; d < j->rowlen; d++)
		P_(add_affine)(&jac[d], &jac[d - 1], b);
	return P_(batch_to_affine)((A_T *)j->table + r * j->rowlen, jac, j->rowlen);
}

/* The entry for digit d != 0 of window win: |d| 2^(w win) B. */
static const A_T *P_(fb_at)(const struct fb_job *j, unsigned win, int32_t d)
{
	return (const A_T *)j->table + win * j->rowlen + (size_t)(d < 0 ? -d : d) - 1;
}

/* e = d 2^(w win) B. */
static void P_(fb_entry)(A_T *e, const struct fb_job *j, unsigned win, int32_t d)
{
	*e = *P_(fb_at)(j, win, d);
	if (d < 0)
		F_(neg)(&e->y, &e->y);
}

/* acc += t where the two share x: a doubling or a cancellation, which the
 * affine formula cannot do. Rare (see fixed.c); done the slow way. */
static void P_(fb_same_x)(A_T *acc, const A_T *t)
{
	P_T p;

	P_(from_affine)(&p, acc);
	P_(add_affine)(&p, &p, t);
	P_(to_affine)(acc, &p);
}

/*
 * Scalars [FB_CHUNK c, FB_CHUNK (c + 1)): their sums built in place in the
 * output, affine, one window at a time for all of them, so that the
 * window's additions share one inversion:
 *   lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2,
 *   y3 = lambda (x1 - x3) - y1.
 */
static int P_(fb_chunk)(struct fb_job *j, size_t c, void *scratch)
{
	size_t first = c * FB_CHUNK, cnt = j->n - first < FB_CHUNK ? j->n - first : FB_CHUNK;
	A_T *acc = (A_T *)j->out + first;
	F_T *den = scratch, lambda, t;
	uint32_t *pend = (uint32_t *)(den + FB_CHUNK);
	int32_t *dig = (int32_t *)(pend + FB_CHUNK);
	A_T e;

	for (size_t i = 0; i < cnt; i++) {
		fb_digits(dig + i * j->nwin, &j->s[first + i], j->w, j->nwin);
		acc[i] = (A_T){ .inf = 1 };
	}
	for (unsigned win = 0; win < j->nwin; win++) {
		size_t np = 0;
		for (size_t i = 0; i < cnt; i++) {
			int32_t d = dig[i * j->nwin + win];
			/* the table is megabytes read at random: fetch ahead */
			if (i + FB_PREFETCH < cnt && dig[(i + FB_PREFETCH) * j->nwin + win] != 0) {
				const A_T *f = P_(fb_at)(j, win, dig[(i + FB_PREFETCH) * j->nwin + win]);
				__builtin_prefetch(f);
				__builtin_prefetch((const char *)(f + 1) - 1);
			}
			if (d == 0)
				continue;
			P_(fb_entry)(&e, j, win, d);
			if (e.inf) {		/* B of small order */
				continue;
			} else if (acc[i].inf) {
				acc[i] = e;
			} else if (F_(equal)(&acc[i].x, &e.x)) {
				P_(fb_same_x)(&acc[i], &e);
			} else {
				F_(sub)(&den[np], &e.x, &acc[i].x);
				pend[np++] = (uint32_t)i;
			}
		}
		if (F_(batch_inv)(den, den, np) != 0)
			return -1;
		for (size_t k = 0; k < np; k++) {
			A_T *a = &acc[pend[k]];
			P_(fb_entry)(&e, j, win, dig[pend[k] * j->nwin + win]);
			F_(sub)(&lambda, &e.y, &a->y);
			F_(mul)(&lambda, &lambda, &den[k]);
			F_(sqr)(&t, &lambda);
			F_(sub)(&t, &t, &a->x);
			F_(sub)(&t, &t, &e.x);		/* x3 */
			F_(sub)(&e.x, &a->x, &t);
			a->x = t;
			F_(mul)(&e.x, &e.x, &lambda);
			F_(sub)(&a->y, &e.x, &a->y);	/* y3 */
		}
	}
	return 0;
}

int P_(fixed_base_batch)(A_T *out, const A_T *base, const fr_t *s, size_t n, unsigned threads)
{
	struct fb_job j = { .s = s, .out = out, .n = n, .threads = threads };
	P_T cur, *bjac = NULL;
	int rc = -1;

	if (n == 0)
		return 0;
	fb_setup(&j, sizeof(A_T));
	j.table = malloc(j.nwin * j.rowlen * sizeof(A_T));
	j.bases = malloc(j.nwin * sizeof(A_T));
	bjac = malloc(j.nwin * sizeof *bjac);
	if (!j.table || !j.bases || !bjac)
		goto out;

	/* 2^(w r) B for every row: FB_SCALAR_BITS doublings, one inversion */
	P_(from_affine)(&cur, base);
	for (unsigned r = 0; r < j.nwin; r++) {
		bjac[r] = cur;
		for (unsigned k = 0; k < j.w; k++)
			P_(double)(&cur, &cur);
	}
	if (P_(batch_to_affine)(j.bases, bjac, j.nwin) != 0)
		goto out;

	if (fb_run(&j, P_(fb_row), j.nwin, j.rowlen * sizeof(P_T)) != 0)
		goto out;
	rc = fb_run(&j, P_(fb_chunk), (n + FB_CHUNK - 1) / FB_CHUNK,
		    FB_CHUNK * (sizeof(F_T) + sizeof(uint32_t) + j.nwin * sizeof(int32_t)));
out:
	free(bjac);
	free(j.bases);
	free(j.table);
	return rc;
}
