/*
 * ntt_dft: every transform of field/ntt against the O(n^2) DFT from its
 * definition, for n = 2^1 .. 2^8, on random input and on a few structured
 * ones, under each fr implementation; and k out of range is refused.
 */
#include "field/ntt.h"
#include "tests/ntt/ntt_naive.h"

typedef int (*tn_fn)(fr_t *, unsigned);

static void check_one(const fr_t *in, unsigned k, enum tn_kind kind, tn_fn fn,
		      const char *what)
{
	size_t n = (size_t)1 << k;
	fr_t *want = malloc(n * sizeof(fr_t)), *got = malloc(n * sizeof(fr_t));

	CHECK(want && got, "out of memory");
	tn_dft(want, in, k, kind);
	memcpy(got, in, n * sizeof(fr_t));
	CHECK(fn(got, k) == 0, "%s k=%u failed", what, k);
	for (size_t i = 0; i < n; i++)
		CHECK(fr_equal(&got[i], &want[i]), "%s k=%u differs at %zu", what, k, i);
	free(want);
	free(got);
}

int main(void)
{
	static const struct { enum tn_kind kind; tn_fn fn; const char *name; } tr[] = {
		{ TN_FWD, ntt_forward, "forward" },
		{ TN_INV, ntt_inverse, "inverse" },
		{ TN_COSET_FWD, ntt_coset_forward, "coset forward" },
		{ TN_COSET_INV, ntt_coset_inverse, "coset inverse" },
	};
	const char *impls[3];
	int nimpl = tn_impls(impls);
	uint64_t seed = 0x6e74745f646674ULL;
	fr_t x[256], one = FR_ONE;

	CHECK(ntt_forward(x, 0) == -1, "k=0 accepted");
	CHECK(ntt_inverse(x, 0) == -1, "k=0 accepted");
	CHECK(ntt_coset_forward(x, 0) == -1, "k=0 accepted");
	CHECK(ntt_coset_inverse(x, 0) == -1, "k=0 accepted");
	CHECK(ntt_forward(x, VOCAB_LOG_MAX + 1) == -1, "k=28 accepted");
	CHECK(ntt_inverse(x, VOCAB_LOG_MAX + 1) == -1, "k=28 accepted");
	CHECK(ntt_coset_forward(x, VOCAB_LOG_MAX + 1) == -1, "k=28 accepted");
	CHECK(ntt_coset_inverse(x, VOCAB_LOG_MAX + 1) == -1, "k=28 accepted");

	for (int im = 0; im < nimpl; im++) {
		CHECK(fr_set_impl(impls[im]) == 0, "fr_set_impl(%s)", impls[im]);
		for (unsigned k = 1; k <= 8; k++) {
			size_t n = (size_t)1 << k;
			for (int t = 0; t < 4; t++) {
				for (size_t i = 0; i < n; i++)
					tn_rand(&x[i], &seed);
				check_one(x, k, tr[t].kind, tr[t].fn, tr[t].name);
				/* delta at 0, delta at n-1, all ones */
				memset(x, 0, n * sizeof(fr_t));
				x[0] = one;
				check_one(x, k, tr[t].kind, tr[t].fn, tr[t].name);
				memset(x, 0, n * sizeof(fr_t));
				x[n - 1] = one;
				check_one(x, k, tr[t].kind, tr[t].fn, tr[t].name);
				for (size_t i = 0; i < n; i++)
					x[i] = one;
				check_one(x, k, tr[t].kind, tr[t].fn, tr[t].name);
			}
		}
		printf("info: %s: 4 transforms x k=1..8 match the naive DFT\n", impls[im]);
	}
	return 0;
}
