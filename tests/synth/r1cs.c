/*
 * The circuit as an R1CS (synth_r1cs_foreach, synth_witness): for
 * k = 3..12 its combinations evaluated at the witness are the streamed
 * rows bit for bit and every row holds; every witness variable is defined
 * by exactly one row's C; the witness and public inputs read back from the
 * rows equal those computed from the identity; two partitions of one k
 * have one R1CS (the foreach cannot see an identity: its type says so)
 * and different x_0; a digest of the k = 6 R1CS is pinned (the Python
 * model in docs/circuit.md computes it), as are the sizes.
 */
#include <errno.h>
#include <sodium.h>

#include "synth/synth.h"
#include "tests/helpers.h"
#include "util/util.h"

/* The foreach takes a k, a callback and its argument: no identity. */
typedef int (*t_row_fn)(void *, size_t, const struct synth_lc *, const struct synth_lc *,
			const struct synth_lc *);
_Static_assert(__builtin_types_compatible_p(__typeof__(&synth_r1cs_foreach),
					    int (*)(unsigned, t_row_fn, void *)),
	       "synth_r1cs_foreach must take k alone, never an identity");

struct t_eval {
	size_t n, nvars, next;
	const fr_t *z, *a, *b, *c;
	unsigned *defs;		/* per variable: rows whose C is that variable alone */
};

static fr_t t_lc_eval(const struct t_eval *e, const struct synth_lc *lc, size_t row)
{
	fr_t s = FR_ZERO, t;

	CHECK(lc->n <= 2, "row %zu: %u terms", row, lc->n);
	for (unsigned i = 0; i < lc->n; i++) {
		CHECK(lc->t[i].var < e->nvars, "row %zu: variable %u of %zu", row, lc->t[i].var, e->nvars);
		fr_mul(&t, &e->z[lc->t[i].var], &lc->t[i].coeff);
		fr_add(&s, &s, &t);
	}
	return s;
}

static int t_same(const fr_t *x, const fr_t *y)
{
	uint8_t bx[FR_BYTES], by[FR_BYTES];

	fr_to_bytes(bx, x);
	fr_to_bytes(by, y);
	return !memcmp(bx, by, FR_BYTES);
}

static int t_eval_row(void *arg, size_t row, const struct synth_lc *a, const struct synth_lc *b,
		      const struct synth_lc *c)
{
	struct t_eval *e = arg;
	fr_t va = t_lc_eval(e, a, row), vb = t_lc_eval(e, b, row), vc = t_lc_eval(e, c, row), p;

	CHECK(row == e->next++ && row < e->n, "row %zu out of order (expected %zu)", row, e->next - 1);
	CHECK(t_same(&va, &e->a[row]) && t_same(&vb, &e->b[row]) && t_same(&vc, &e->c[row]),
	      "row %zu: the combinations at the witness are not the streamed row", row);
	fr_mul(&p, &va, &vb);
	CHECK(fr_equal(&p, &vc), "row %zu: A*B != C at the witness", row);
	if (c->n == 1 && fr_equal(&c->t[0].coeff, &FR_ONE))
		e->defs[c->t[0].var]++;
	return 0;
}

static struct synth_id t_id(const char *hex, uint32_t part, uint32_t k)
{
	struct synth_id id;

	memset(&id, 0, sizeof id);
	CHECK(synth_parse_seed(&id, hex) == 0, "seed %s", hex);
	id.partition = part;
	id.k = k;
	return id;
}

static void t_against_rows(void)
{
	uint64_t rng = 0xc1c;

	for (uint32_t k = SYNTH_LOG_MIN; k <= 12; k++) {
		size_t n = (size_t)1 << k, nv = synth_nvars(k), R = synth_rounds(k);
		struct synth_id id = t_id("0badc0de", (uint32_t)t_rand(&rng), k);
		fr_t *rows = malloc(3 * n * sizeof *rows), *z = malloc(nv * sizeof *z);
		fr_t *z2 = malloc(nv * sizeof *z2), x[2], xr[2];
		unsigned *defs = calloc(nv, sizeof *defs);
		struct t_eval e = { .n = n, .nvars = nv, .z = z, .a = rows, .b = rows + n,
				    .c = rows + 2 * n, .defs = defs };

		CHECK(rows && z && z2 && defs, "malloc");
		CHECK(R == (n - 3) / 3 && nv == 3 * R + 2, "k=%u: R %zu, nvars %zu", k, R, nv);
		CHECK(synth_partition(&id, rows, rows + n, rows + 2 * n) == 0, "k=%u synth", k);
		CHECK(synth_witness(&id, z) == 0, "k=%u witness", k);
		CHECK(fr_equal(&z[0], &FR_ONE), "k=%u: z[0] is not one", k);
		CHECK(synth_r1cs_foreach(k, t_eval_row, &e) == 0 && e.next == n,
		      "k=%u: foreach gave %zu rows", k, e.next);
		/* Each variable but one and x_0 is the output of exactly one row. */
		for (size_t v = 0; v < nv; v++)
			CHECK(defs[v] == (v >= 2), "k=%u: variable %zu defined by %u rows", k, v, defs[v]);

		synth_witness_from_rows(k, rows, rows + 2 * n, z2);
		CHECK(!memcmp(z, z2, nv * sizeof *z), "k=%u: witness from rows differs", k);
		CHECK(synth_public_inputs(&id, x) == 0, "k=%u public inputs", k);
		synth_public_inputs_from_rows(k, rows, xr);
		CHECK(fr_equal(&x[0], &z[1]) && fr_equal(&x[1], &z[2]) && fr_equal(&xr[0], &z[1]) &&
		      fr_equal(&xr[1], &z[2]), "k=%u: public inputs are not z[1], z[2]", k);
		free(rows);
		free(z);
		free(z2);
		free(defs);
	}
}

/* BLAKE2b-256 of the R1CS as docs/circuit.md's model serializes it: per
 * row, per A, B, C: LE32(terms), then per term LE32(var) || coeff. */
static int t_hash_row(void *arg, size_t row, const struct synth_lc *a, const struct synth_lc *b,
		      const struct synth_lc *c)
{
	const struct synth_lc *lcs[3] = { a, b, c };
	uint8_t buf[4 + FR_BYTES];

	(void)row;
	for (int m = 0; m < 3; m++) {
		util_le32_put(buf, lcs[m]->n);
		crypto_generichash_update(arg, buf, 4);
		for (unsigned i = 0; i < lcs[m]->n; i++) {
			util_le32_put(buf, lcs[m]->t[i].var);
			fr_to_bytes(buf + 4, &lcs[m]->t[i].coeff);
			crypto_generichash_update(arg, buf, sizeof buf);
		}
	}
	return 0;
}

static void t_r1cs_hex(unsigned k, char hex[65])
{
	crypto_generichash_state st;
	uint8_t d[32];

	crypto_generichash_init(&st, NULL, 0, 32);
	CHECK(synth_r1cs_foreach(k, t_hash_row, &st) == 0, "k=%u foreach", k);
	crypto_generichash_final(&st, d, 32);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* One k, one R1CS: two partitions' witnesses both satisfy it (checked
 * above for one partition per k; here the same foreach against a second
 * partition's rows), their x_0 differ, and the k = 6 digest is pinned. */
static void t_one_circuit(void)
{
	static const char want[] = "81b43a51442af831ca196093f968260c50f4f87f1b65e43ff12f87fce967a8e8";
	struct synth_id p[2] = { t_id("0001020304050607", 1, 10), t_id("ff", 7, 10) };
	size_t n = (size_t)1 << 10, nv = synth_nvars(10);
	unsigned *defs = calloc(nv, sizeof *defs);
	fr_t x[2][2];
	char hex[65], hex2[65];

	CHECK(defs, "calloc");
	for (int i = 0; i < 2; i++) {
		fr_t *rows = malloc(3 * n * sizeof *rows), *z = malloc(nv * sizeof *z);
		struct t_eval e = { .n = n, .nvars = nv, .z = z, .a = rows, .b = rows + n,
				    .c = rows + 2 * n, .defs = defs };
		CHECK(rows && z, "malloc");
		CHECK(synth_partition(&p[i], rows, rows + n, rows + 2 * n) == 0 &&
		      synth_witness(&p[i], z) == 0 && synth_r1cs_foreach(10, t_eval_row, &e) == 0,
		      "partition %d", i);
		CHECK(synth_public_inputs(&p[i], x[i]) == 0, "inputs %d", i);
		free(rows);
		free(z);
	}
	CHECK(!fr_equal(&x[0][0], &x[1][0]) && !fr_equal(&x[0][1], &x[1][1]),
	      "two partitions with the same public inputs");
	free(defs);

	t_r1cs_hex(6, hex);
	t_r1cs_hex(6, hex2);
	CHECK(!strcmp(hex, hex2), "the R1CS of k = 6 is not deterministic");
	CHECK(!strcmp(hex, want), "R1CS digest %s, pinned %s: the circuit changed", hex, want);
	t_r1cs_hex(7, hex2);
	CHECK(strcmp(hex, hex2), "k = 6 and k = 7 have the same R1CS digest");
}

static int t_stop_at_5(void *arg, size_t row, const struct synth_lc *a, const struct synth_lc *b,
		       const struct synth_lc *c)
{
	(void)a, (void)b, (void)c;
	*(size_t *)arg = row;
	return row == 5 ? 7 : 0;
}

static void t_limits(void)
{
	struct synth_id id = t_id("00", 0, 2);
	size_t last = 0;
	fr_t x[2], z[8];

	CHECK(synth_rounds(3) == 1 && synth_nvars(3) == 5, "k = 3: R %zu, nvars %zu",
	      synth_rounds(3), synth_nvars(3));
	CHECK(synth_rounds(4) == 4 && synth_nvars(4) == 14, "k = 4");
	CHECK(synth_rounds(26) == ((1u << 26) - 3) / 3, "k = 26");
	CHECK(synth_rounds(27) == ((1u << 27) - 3) / 3, "k = 27");
	CHECK(synth_rounds(28) == 0, "k = 28");
	CHECK(synth_rounds(2) == 0 && synth_nvars(28) == 0, "bad k has rounds");
	CHECK(synth_r1cs_foreach(2, t_stop_at_5, &last) == -EINVAL, "k = 2 accepted");
	CHECK(synth_r1cs_foreach(28, t_stop_at_5, &last) == -EINVAL, "k = 28 accepted");
	CHECK(synth_witness(&id, z) == -EINVAL && synth_public_inputs(&id, x) == -EINVAL,
	      "k = 2 identity accepted");
	CHECK(synth_r1cs_foreach(5, t_stop_at_5, &last) == 7 && last == 5,
	      "the callback's return does not stop the walk (last row %zu)", last);
}

static void t_timing(void)
{
	struct synth_id id = t_id("7177", 0, 16);
	size_t nv = synth_nvars(16);
	fr_t *z = malloc(nv * sizeof *z);
	crypto_generichash_state st;
	uint64_t t0;

	CHECK(z, "malloc");
	t0 = t_now_ns();
	CHECK(synth_witness(&id, z) == 0, "witness");
	printf("info: witness of 2^16 rows: %.1f ms\n", (t_now_ns() - t0) / 1e6);
	crypto_generichash_init(&st, NULL, 0, 32);
	t0 = t_now_ns();
	CHECK(synth_r1cs_foreach(16, t_hash_row, &st) == 0, "foreach");
	printf("info: R1CS of 2^16 rows, walked and hashed: %.1f ms\n", (t_now_ns() - t0) / 1e6);
	free(z);
}

int main(void)
{
	t_limits();
	t_against_rows();
	t_one_circuit();
	t_timing();
	return 0;
}
