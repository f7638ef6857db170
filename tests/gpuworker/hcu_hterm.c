/*
 * The CUDA backend's pipeline without a GPU: the per-thread functions and
 * the pass sequence of gpuworker/hcu_hterm.cuh, run here as the device
 * runs them: one loop iteration per thread, a local array per block for
 * its shared memory, the end of a loop for each __syncthreads(), blocks
 * and threads in scrambled orders. It must
 * give
 *   - for tiny sizes, the H-term computed straight from its definition
 *     (O(n^2) sums, powers by exponentiation: no twiddle tables, no bit
 *     reversal, no DIF/DIT orders), and
 *   - for k = 1 .. 16, exactly what the CPU backend (hterm_cpu) gives,
 *     on satisfied inputs and on arbitrary ones,
 * with the device's block size (every k where the split changes: below one
 * block, one block, one block + 1, two passes) and with small blocks that
 * make the same sizes three, four, ... k passes of uneven sizes; with
 * Montgomery inputs and with encodings in and out (the device's
 * conversions, and an encoding >= r flagged); through the device's two
 * upload buffers, as hterm_cuda.cu shares them between a, b, c and H,
 * each scribbled over once its reader is done. A twiddle table with one
 * wrong entry must fail. What stays unchecked here is only the CUDA
 * mechanics (launch geometry, copies, streams) and the PTX carry chains,
 * which tests/gpu/run.sh covers on a machine with a GPU.
 */
#include "tests/helpers.h"
#include "gpuworker/hterm.h"
#include "gpuworker/hcu_hterm.cuh"

#define NAIVE_MAX_LOG 6
#define CPU_MAX_LOG T_SIZE(16, 13)
#define SMALL_MAX_LOG T_SIZE(12, 10)

/* The host's stand-in for the device. */
struct emu {
	unsigned k, bmax;
	const struct hcu_plan *plan;
	hcu_fr *v[3];		/* the work vectors */
	const hcu_fr *in[3];	/* the caller's inputs, natural order */
	hcu_fr *up[2];		/* the device's two upload buffers */
	int consumed[3];	/* the first pass of each input has read it */
	hcu_fr *h;		/* the caller's H */
	hcu_fr *tw;
	unsigned bad;
	unsigned passes;	/* counted */
};

/* The upload into the buffer the device uses: only once whatever was in
 * it has been read (c's replaces a's). */
static int emu_input(void *ctx, int vec)
{
	struct emu *e = ctx;
	int u = hcu_upload_buf(vec);

	for (int w = 0; w < vec; w++)
		CHECK(hcu_upload_buf(w) != u || e->consumed[w], "input %d overwrites input %d unread", vec, w);
	memcpy(e->up[u], e->in[vec], sizeof(hcu_fr) << e->k);
	return 0;
}

static int emu_consumed(void *ctx, int vec)
{
	struct emu *e = ctx;

	e->consumed[vec] = 1;
	/* Scribble over it: a later pass that still reads it must fail. */
	memset(e->up[hcu_upload_buf(vec)], 0x5a, sizeof(hcu_fr) << e->k);
	return 0;
}

static int emu_pass(void *ctx, int vec, const struct hcu_pass *p)
{
	struct emu *e = ctx;
	static hcu_fr y[1u << HCU_LOG_BLOCK];	/* one block's shared memory */
	struct hcu_io io;
	uint32_t half = 1u << (p->b - 1);
	unsigned steps = hcu_pass_steps(p);

	CHECK(p->b >= 1 && p->b <= e->bmax && p->L + p->b <= p->k, "pass bits [%u, %u) of k=%u",
	      p->L, p->L + p->b, p->k);
	memset(&io, 0, sizeof(io));
	io.x = e->v[vec];
	io.src = e->up[hcu_upload_buf(vec)];
	io.qa = e->v[0];
	io.qb = e->v[1];
	io.h = e->up[HCU_H_BUF];
	io.tw = e->tw;
	io.gs = hcu_plan_pow(e->plan, e->plan->tab, HCU_TAB_GS);
	io.gi = hcu_plan_pow(e->plan, e->plan->tab, HCU_TAB_GI);
	io.zinv = e->plan->zinv;
	io.bad = &e->bad;
	if (p->store == HCU_ST_H || p->store == HCU_ST_H_BYTES)
		for (int w = 0; w < 3; w++)
			CHECK(hcu_upload_buf(w) != HCU_H_BUF || e->consumed[w], "H overwrites input %d unread", w);
	/* Blocks and the threads between two barriers run in no set order on
	 * the device: here in a scrambled one (an odd multiplier permutes a
	 * power of two), the threads backwards in every other pass, so that a
	 * pass that read what another block or thread writes would show. */
	uint32_t nblk = 1u << (p->k - p->b), odd = 2 * e->passes + 1, rev = e->passes & 1;
	for (uint32_t i = 0; i < nblk; i++) {
		uint32_t blk = (i * odd) & (nblk - 1);

		for (uint32_t i2 = 0; i2 < half; i2++)
			hcu_load_at(y, p, &io, blk, rev ? half - 1 - i2 : i2);
		for (unsigned j = 0; j < steps; j++)
			for (uint32_t i2 = 0; i2 < half; i2++)
				hcu_step_at(y, p, &io, blk, rev ? half - 1 - i2 : i2, j);
		for (uint32_t i2 = 0; i2 < half; i2++)
			hcu_store_at(y, p, &io, blk, rev ? half - 1 - i2 : i2);
	}
	e->passes++;
	return 0;
}

static const struct hcu_ops emu_ops = { emu_input, emu_consumed, emu_pass };

/* Flip one twiddle (broken >= 0) to show the comparison can fail. */
static long emu_broken = -1;

/* H into h, as hterm_cuda computes it, minus the device: in[] are the
 * inputs (Montgomery, or encodings with HCU_ENC_IN), left unchanged; H
 * is an encoding with HCU_ENC_OUT. Returns the flag the conversions set
 * for an encoding >= r. */
static unsigned emu_hterm(hcu_fr *h, const hcu_fr *in[3], unsigned k, unsigned bmax, unsigned enc)
{
	struct hcu_plan plan;
	size_t n = (size_t)1 << k, half = n / 2;
	struct emu e = { k, bmax, &plan, { NULL, NULL, NULL }, { in[0], in[1], in[2] },
			 { NULL, NULL }, { 0, 0, 0 }, h, NULL, 0, 0 };

	CHECK(hcu_plan_init(&plan, k) == 0, "hcu_plan_init(%u)", k);
	e.tw = malloc(half * sizeof(hcu_fr));
	CHECK(e.tw, "malloc");
	for (int i = 0; i < 3; i++) {
		e.v[i] = malloc(n * sizeof(hcu_fr));
		CHECK(e.v[i], "malloc");
	}
	for (int i = 0; i < 2; i++) {
		e.up[i] = malloc(n * sizeof(hcu_fr));
		CHECK(e.up[i], "malloc");
	}
	struct hcu_pow w = hcu_plan_pow(&plan, plan.tab, HCU_TAB_W);
	for (uint32_t m = 0; m < half; m++)
		hcu_pow_at(&e.tw[m], w, m);
	if (emu_broken >= 0 && (size_t)emu_broken < half)
		e.tw[emu_broken].l[0] ^= 1;
	CHECK(hcu_hterm_drive(&emu_ops, &e, k, bmax, enc) == 0, "drive");
	CHECK(e.passes == hcu_hterm_passes(k, bmax), "k=%u bmax=%u: %u passes, want %u", k, bmax,
	      e.passes, hcu_hterm_passes(k, bmax));
	CHECK(e.consumed[0] && e.consumed[1] && e.consumed[2], "an input never marked read");
	memcpy(h, e.up[HCU_H_BUF], n * sizeof(hcu_fr));	/* the download */
	for (int i = 0; i < 3; i++)
		free(e.v[i]);
	for (int i = 0; i < 2; i++)
		free(e.up[i]);
	free(e.tw);
	hcu_plan_free(&plan);
	return e.bad;
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

static hcu_fr *v[3], *cpu[3], *hbuf;

/* One size against hterm_cpu, with the sides enc (HCU_ENC_*) names as
 * encodings; returns how many H elements differ. */
static size_t against_cpu(unsigned k, unsigned bmax, int sat, unsigned enc, uint64_t *seed)
{
	size_t n = (size_t)1 << k, diff = 0;
	const hcu_fr *in[3] = { v[0], v[1], v[2] };

	make_inputs(v, n, sat, seed);
	for (int i = 0; i < 3; i++)
		memcpy(cpu[i], v[i], n * sizeof(hcu_fr));
	CHECK(hterm_cpu((fr_t *)cpu[0], (fr_t *)cpu[1], (fr_t *)cpu[2], k) == 0, "hterm_cpu(k=%u)", k);
	if (enc & HCU_ENC_IN)
		for (int i = 0; i < 3; i++)
			for (size_t j = 0; j < n; j++)
				hcu_from_mont(&v[i][j], &v[i][j]);
	if (enc & HCU_ENC_OUT)
		for (size_t j = 0; j < n; j++)
			hcu_from_mont(&cpu[0][j], &cpu[0][j]);
	CHECK(emu_hterm(hbuf, in, k, bmax, enc) == 0, "k=%u: canonical input flagged", k);
	for (size_t i = 0; i < n; i++)
		diff += !hcu_equal(&hbuf[i], &cpu[0][i]);
	if (sat)	/* zero is zero in both forms */
		CHECK(diff || hcu_is_zero(&hbuf[n - 1]), "k=%u: top coefficient not zero", k);
	return diff;
}

int main(void)
{
	uint64_t seed = 0x686375687465726dULL;
	size_t nmax = (size_t)1 << CPU_MAX_LOG;
	hcu_fr h[64];

	for (int i = 0; i < 3; i++) {
		v[i] = malloc(nmax * sizeof(hcu_fr));
		cpu[i] = malloc(nmax * sizeof(hcu_fr));
		CHECK(v[i] && cpu[i], "malloc");
	}
	hbuf = malloc(nmax * sizeof(hcu_fr));
	CHECK(hbuf, "malloc");

	/* The split: sizes within bmax, summing to k, the device's counts. */
	for (unsigned bmax = 1; bmax <= HCU_LOG_BLOCK; bmax++)
		for (unsigned k = 1; k <= HCU_MAX_LOG; k++) {
			unsigned sum = 0, np = hcu_npass(k, bmax);

			for (unsigned r = 0; r < np; r++) {
				struct hcu_pass d = hcu_range(k, bmax, r, 0, 0);

				CHECK(d.b >= 1 && d.b <= bmax && d.L == sum, "k=%u bmax=%u range %u", k, bmax, r);
				sum += d.b;
			}
			CHECK(sum == k && (np == 1 || k > bmax * (np - 1)), "k=%u bmax=%u split", k, bmax);
		}
	CHECK(hcu_npass(20, HCU_LOG_BLOCK) == 2 && hcu_npass(24, HCU_LOG_BLOCK) == 3 &&
	      hcu_npass(27, HCU_LOG_BLOCK) == 3, "device range counts");
	CHECK(hcu_hterm_passes(10, HCU_LOG_BLOCK) == 3 && hcu_hterm_passes(20, HCU_LOG_BLOCK) == 10 &&
	      hcu_hterm_passes(24, HCU_LOG_BLOCK) == 17, "device pass counts");

	/* The definition, tiny sizes, the device's block and small ones. */
	static const unsigned naive_bmax[] = { HCU_LOG_BLOCK, 1, 2, 4 };
	for (unsigned bi = 0; bi < sizeof(naive_bmax) / sizeof(naive_bmax[0]); bi++)
		for (unsigned k = 1; k <= NAIVE_MAX_LOG; k++)
			for (int sat = 0; sat < 2; sat++) {
				size_t n = (size_t)1 << k;
				const hcu_fr *in[3] = { cpu[0], cpu[1], cpu[2] };

				make_inputs(v, n, sat, &seed);
				for (int i = 0; i < 3; i++)
					memcpy(cpu[i], v[i], n * sizeof(hcu_fr));
				naive_hterm(h, in, k);
				CHECK(emu_hterm(hbuf, in, k, naive_bmax[bi], 0) == 0, "flagged");
				for (size_t i = 0; i < n; i++)
					CHECK(hcu_equal(&hbuf[i], &h[i]),
					      "k=%u bmax=%u satisfied=%d: H[%zu] differs from the definition",
					      k, naive_bmax[bi], sat, i);
				if (sat)
					CHECK(hcu_is_zero(&h[n - 1]), "k=%u: top coefficient not zero", k);
			}

	/* hterm_cpu, bit for bit: every k with the device's block (k < 10
	 * one partial block, 10 one block, 11 two ranges of 6 + 5, up to 16:
	 * 8 + 8), both kinds of input; encodings in and out at a few. */
	for (unsigned k = 1; k <= CPU_MAX_LOG; k++)
		for (int sat = 0; sat < 2; sat++)
			CHECK(against_cpu(k, HCU_LOG_BLOCK, sat, 0, &seed) == 0,
			      "k=%u satisfied=%d: H differs from hterm_cpu", k, sat);
	static const unsigned byte_k[] = { 1, 9, 10, 11, 13 };
	for (unsigned i = 0; i < sizeof(byte_k) / sizeof(byte_k[0]); i++)
		for (unsigned enc = 1; enc <= (HCU_ENC_IN | HCU_ENC_OUT); enc++)
			CHECK(against_cpu(byte_k[i], HCU_LOG_BLOCK, 1, enc, &seed) == 0,
			      "k=%u enc=%u: H differs from hterm_cpu's", byte_k[i], enc);
	/* Small blocks: three to k passes, uneven ones, every size up to 12. */
	static const unsigned small_bmax[] = { 1, 3, 4, 5 };
	for (unsigned bi = 0; bi < sizeof(small_bmax) / sizeof(small_bmax[0]); bi++)
		for (unsigned k = 1; k <= SMALL_MAX_LOG; k++)
			CHECK(against_cpu(k, small_bmax[bi], (int)(k & 1), k % 4, &seed) == 0,
			      "k=%u bmax=%u: H differs from hterm_cpu", k, small_bmax[bi]);

	/* An encoding >= r is flagged (r itself, in c's last element). */
	{
		unsigned k = 5;
		size_t n = (size_t)1 << k;
		const hcu_fr *in[3] = { v[0], v[1], v[2] };

		make_inputs(v, n, 1, &seed);
		v[2][n - 1] = (hcu_fr){ { HCU_P0, HCU_P1, HCU_P2, HCU_P3 } };
		CHECK(emu_hterm(hbuf, in, k, HCU_LOG_BLOCK, HCU_ENC_IN) == 1, "an encoding of r not flagged");
	}

	/* One wrong twiddle (w^3's lowest bit) must show, at one pass and at
	 * several. */
	emu_broken = 3;
	CHECK(against_cpu(8, HCU_LOG_BLOCK, 1, 0, &seed) != 0, "a broken twiddle went unnoticed (1 pass)");
	CHECK(against_cpu(12, 4, 1, 0, &seed) != 0, "a broken twiddle went unnoticed (3 passes)");
	emu_broken = -1;
	CHECK(against_cpu(8, HCU_LOG_BLOCK, 1, 0, &seed) == 0, "repaired twiddle");

	printf("info: hcu_hterm: emulated device passes = definition for k <= %d, = hterm_cpu bit "
	       "for bit for k = 1..%d (blocks of 2^%d), k = 1..%d (blocks of 2^1, 2^3..2^5); "
	       "a broken twiddle caught\n", NAIVE_MAX_LOG, CPU_MAX_LOG, HCU_LOG_BLOCK, SMALL_MAX_LOG);
	for (int i = 0; i < 3; i++) {
		free(v[i]);
		free(cpu[i]);
	}
	free(hbuf);
	return 0;
}
