/*
 * The CUDA backend's pipeline without a GPU: the per-thread functions and
 * the step sequence of gpuworker/hcu_hterm.cuh, run here by plain loops
 * (one loop iteration per device thread), must give
 *   - for tiny sizes, the H-term computed straight from its definition
 *     (O(n^2) sums, powers by exponentiation: no twiddle tables, no bit
 *     reversal, no reverse-and-scale trick), and
 *   - for k = 1 .. 16, exactly what the CPU backend (hterm_cpu) gives,
 *     on satisfied inputs and on arbitrary ones.
 * What stays unchecked here is only the CUDA mechanics (launch geometry,
 * copies), which tests/gpu/run.sh covers on a machine with a GPU.
 */
#include "tests/helpers.h"
#include "gpuworker/hterm.h"
#include "gpuworker/hcu_hterm.cuh"

#define NAIVE_MAX_LOG 6
#define CPU_MAX_LOG T_SIZE(16, 13)

/* The host's stand-in for the device: the same *_at() over every index. */
struct emu {
	unsigned k;
	const struct hcu_plan *plan;
	hcu_fr *v[3], *tw;
};

static int emu_bitrev(void *ctx, int vec)
{
	struct emu *e = ctx;

	for (uint32_t i = 0; i < (1u << e->k); i++)
		hcu_bitrev_at(e->v[vec], i, e->k);
	return 0;
}

static int emu_stage(void *ctx, int vec, unsigned s)
{
	struct emu *e = ctx;

	for (uint32_t t = 0; t < (1u << (e->k - 1)); t++)
		hcu_stage_at(e->v[vec], e->tw, t, s, e->k);
	return 0;
}

static int emu_revscale(void *ctx, int vec, int table)
{
	struct emu *e = ctx;
	struct hcu_pow sc = hcu_plan_pow(e->plan, e->plan->tab, table);

	for (uint32_t i = 0; i <= (1u << (e->k - 1)); i++)
		hcu_revscale_at(e->v[vec], i, e->k, sc);
	return 0;
}

static int emu_pointwise(void *ctx)
{
	struct emu *e = ctx;

	for (uint32_t i = 0; i < (1u << e->k); i++)
		hcu_pointwise_at(e->v[0], e->v[1], e->v[2], i, &e->plan->zinv);
	return 0;
}

static const struct hcu_ops emu_ops = { emu_bitrev, emu_stage, emu_revscale, emu_pointwise };

/* H into a, as hterm_cuda computes it, minus the device. */
static void emu_hterm(hcu_fr *a, hcu_fr *b, hcu_fr *c, unsigned k)
{
	struct hcu_plan plan;
	struct emu e = { k, &plan, { a, b, c }, NULL };
	size_t half = (size_t)1 << (k - 1);

	CHECK(hcu_plan_init(&plan, k) == 0, "hcu_plan_init(%u)", k);
	e.tw = malloc(half * sizeof(hcu_fr));
	CHECK(e.tw, "malloc");
	struct hcu_pow w = hcu_plan_pow(&plan, plan.tab, HCU_TAB_W);
	for (uint32_t m = 0; m < half; m++)
		hcu_pow_at(&e.tw[m], w, m);
	CHECK(hcu_hterm_drive(&emu_ops, &e, k) == 0, "drive");
	free(e.tw);
	hcu_plan_free(&plan);
}

/* sum_j x[j] base^(j * i) for every i, into out (no tables). */
static void naive_dft(hcu_fr *out, const hcu_fr *x, unsigned n, const hcu_fr *base)
{
	for (unsigned i = 0; i < n; i++) {
		hcu_fr acc = { { 0, 0, 0, 0 } }, wi, t;

		hcu_pow_u64(&wi, base, i);
		for (unsigned j = 0; j < n; j++) {
			hcu_fr wij;
			hcu_pow_u64(&wij, &wi, j);
			hcu_mul(&t, &x[j], &wij);
			hcu_add(&acc, &acc, &t);
		}
		out[i] = acc;
	}
}

/* The H-term from its definition (hterm.h, field/ntt.h), for tiny n. */
static void naive_hterm(hcu_fr *h, const hcu_fr *in[3], unsigned k)
{
	unsigned n = 1u << k;
	hcu_fr root = HCU_ROOT_CANON_INIT, w, winv, g, ginv, ninv, z, one = hcu_one();
	hcu_fr ev[3][64], co[64], t;

	CHECK(n <= 64, "naive_hterm is for n <= 64");
	hcu_to_mont(&w, &root);
	for (unsigned i = 0; i < 32 - k; i++)
		hcu_sqr(&w, &w);
	hcu_inv(&winv, &w);
	hcu_from_u64(&g, 7);
	hcu_inv(&ginv, &g);
	hcu_from_u64(&ninv, n);
	hcu_inv(&ninv, &ninv);
	for (int v = 0; v < 3; v++) {
		/* coefficients: n^-1 sum_j x[j] w^(-ij) */
		naive_dft(co, in[v], n, &winv);
		for (unsigned i = 0; i < n; i++) {
			hcu_fr gi;
			hcu_pow_u64(&gi, &g, i);
			hcu_mul(&co[i], &co[i], &ninv);
			hcu_mul(&co[i], &co[i], &gi);	/* coset: x[i] *= g^i */
		}
		naive_dft(ev[v], co, n, &w);
	}
	hcu_pow_u64(&z, &g, n);
	hcu_sub(&z, &z, &one);
	hcu_inv(&z, &z);
	for (unsigned i = 0; i < n; i++) {
		hcu_mul(&t, &ev[0][i], &ev[1][i]);
		hcu_sub(&t, &t, &ev[2][i]);
		hcu_mul(&co[i], &t, &z);
	}
	naive_dft(h, co, n, &winv);
	for (unsigned i = 0; i < n; i++) {
		hcu_fr gi;
		hcu_pow_u64(&gi, &ginv, i);
		hcu_mul(&h[i], &h[i], &ninv);
		hcu_mul(&h[i], &h[i], &gi);
	}
}

static void rand_fr(hcu_fr *a, uint64_t *seed)
{
	do {
		for (int i = 0; i < 4; i++)
			a->l[i] = t_rand(seed);
		a->l[3] &= 0x7fffffffffffffffULL;
	} while (a->l[3] > HCU_P3 ||
		 (a->l[3] == HCU_P3 && (a->l[2] > HCU_P2 ||
		  (a->l[2] == HCU_P2 && (a->l[1] > HCU_P1 ||
		   (a->l[1] == HCU_P1 && a->l[0] >= HCU_P0))))));
}

/* a, b random; c = a*b when satisfied, else random too. */
static void make_inputs(hcu_fr *v[3], size_t n, int satisfied, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++) {
		rand_fr(&v[0][i], seed);
		rand_fr(&v[1][i], seed);
		if (satisfied)
			hcu_mul(&v[2][i], &v[0][i], &v[1][i]);
		else
			rand_fr(&v[2][i], seed);
	}
}

int main(void)
{
	uint64_t seed = 0x686375687465726dULL;
	size_t nmax = (size_t)1 << CPU_MAX_LOG;
	hcu_fr *v[3], *cpu[3], h[64];

	for (int i = 0; i < 3; i++) {
		v[i] = malloc(nmax * sizeof(hcu_fr));
		cpu[i] = malloc(nmax * sizeof(hcu_fr));
		CHECK(v[i] && cpu[i], "malloc");
	}
	for (unsigned k = 1; k <= NAIVE_MAX_LOG; k++)
		for (int sat = 0; sat < 2; sat++) {
			size_t n = (size_t)1 << k;
			const hcu_fr *in[3] = { cpu[0], cpu[1], cpu[2] };

			make_inputs(v, n, sat, &seed);
			for (int i = 0; i < 3; i++)
				memcpy(cpu[i], v[i], n * sizeof(hcu_fr));
			naive_hterm(h, in, k);
			emu_hterm(v[0], v[1], v[2], k);
			for (size_t i = 0; i < n; i++)
				CHECK(hcu_equal(&v[0][i], &h[i]),
				      "k=%u satisfied=%d: H[%zu] differs from the definition", k, sat, i);
			if (sat)
				CHECK(hcu_is_zero(&h[n - 1]), "k=%u: top coefficient not zero", k);
		}
	for (unsigned k = 1; k <= CPU_MAX_LOG; k++)
		for (int sat = 0; sat < 2; sat++) {
			size_t n = (size_t)1 << k;

			make_inputs(v, n, sat, &seed);
			for (int i = 0; i < 3; i++)
				memcpy(cpu[i], v[i], n * sizeof(hcu_fr));
			CHECK(hterm_cpu((fr_t *)cpu[0], (fr_t *)cpu[1], (fr_t *)cpu[2], k) == 0,
			      "hterm_cpu(k=%u)", k);
			emu_hterm(v[0], v[1], v[2], k);
			for (size_t i = 0; i < n; i++)
				CHECK(hcu_equal(&v[0][i], &cpu[0][i]),
				      "k=%u satisfied=%d: H[%zu] differs from hterm_cpu", k, sat, i);
			if (sat)
				CHECK(hcu_is_zero(&v[0][n - 1]), "k=%u: top coefficient not zero", k);
		}
	printf("info: hcu_hterm: emulated device pipeline = definition for k <= %d, "
	       "= hterm_cpu bit for bit for k = 1..%d\n", NAIVE_MAX_LOG, CPU_MAX_LOG);
	for (int i = 0; i < 3; i++) {
		free(v[i]);
		free(cpu[i]);
	}
	return 0;
}
