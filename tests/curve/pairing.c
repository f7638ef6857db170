/*
 * The optimal ate pairing (curve/pairing.h): known answers from other
 * implementations, byte for byte, then the properties that define a
 * pairing on random points: bilinearity, non-degeneracy, order r, 1 for
 * infinity, and pairing_check over one and several Miller loop passes.
 */
#include "curve/pairing.h"
#include "tests/helpers.h"

static uint64_t seed = 0x5851f42d4c957f2dULL;

static void from_hex(uint8_t *out, const char *hex, size_t n)
{
	CHECK(strlen(hex) == 2 * n, "hex of %zu bytes expected", n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1, "bad hex");
		out[i] = (uint8_t)v;
	}
}

static void fp_hex(fp_t *a, const char *hex)
{
	uint8_t b[FP_BYTES];

	from_hex(b, hex, FP_BYTES);
	CHECK(fp_from_bytes_be(a, b) == 0, "coordinate %s not below p", hex);
}

/* The generators from their published coordinates (the BLS12-381 spec,
 * draft-irtf-cfrg-pairing-friendly-curves), not from curve.c. */
static g1_affine_t g1;
static g2_affine_t g2;

static void make_generators(void)
{
	fp_hex(&g1.x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
	fp_hex(&g1.y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
	fp_hex(&g2.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
	fp_hex(&g2.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
	fp_hex(&g2.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
	fp_hex(&g2.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
	g1.inf = g2.inf = 0;
	CHECK(g1_affine_equal(&g1, &G1_GENERATOR) && g2_affine_equal(&g2, &G2_GENERATOR),
	      "curve.h's generators are the published ones");
}

static void check_fp12_hex(const fp12_t *f, const char *const hex[12], const char *what)
{
	uint8_t got[FP12_BYTES], want[FP12_BYTES];

	for (int i = 0; i < 12; i++)
		from_hex(want + FP_BYTES * i, hex[i], FP_BYTES);
	fp12_to_bytes(got, f);
	for (int i = 0; i < 12; i++)
		CHECK(memcmp(got + FP_BYTES * i, want + FP_BYTES * i, FP_BYTES) == 0,
		      "%s: coefficient %d differs", what, i);
}

/* e(G1, G2) as zkcrypto/bls12_381 (Gt::generator, src/pairings.rs) and
 * @noble/curves (test/bls12-381.test.js, 'zkcrypto vectors', whose
 * fromBigTwelve lists the coefficients in our byte order) have it. */
static const char *const E_G1_G2[12] = {
	"1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
	"089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
	"1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
	"193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
	"01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
	"018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
	"19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
	"06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
	"11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
	"03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
	"04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
	"0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

/* @noble/curves test/bls12-381.test.js, 'finalExponentiate is correct':
 * an arbitrary Fp12 element (decimals there, hex here) and its image. */
static const char *const FE_IN[12] = {
	"047c4e6bd237842488bee79cd03c0d39153fe793c691c036f79dd4af17656acb89144959884cf72c41b250275ed1fcd3",
	"0adf0cbd3fd85b38cef3ae33aa5e89c00337bc3b8b1e9f362826706d952fa10228b907784f01cda52f30277afb6cdd6b",
	"10624245d8fd2bc313a48fcd73149c36889401ddfa77071f239fa4c4f2a2370fdd199008e54bb71f931b96abf44a324f",
	"1607b44f155b758dfd0ebeb084883a36cc8fd936fedc83e6e9fed55980fefce204900563e30ec042ec54b97c1b7bc5fd",
	"131606a2a885b242a5d7dccfb0ad00e66c27f000824b82be649bf249905b5accdc655799c975edea23e3670d3f4f73f8",
	"06c4bf509a637764c723d6c385bde3489b1b8db0c54849c13afa9e1d49c12b052f71d66f804fef0fc6a67d954a49fdac",
	"191c3008ce519f185012b96e4991bfed4cd9c439577b2a01d26bc8b4063e8c220d0df28f8441c633406c1adfc3bc2134",
	"18d8b20e20c0651e0d636df58901281d8030db8b9aa1accc83d81519807b13e8d1720e6bb8ffd25171d63de0619b6b63",
	"15974e35f285bfde4fc0aec8846b86c68e46b91a7a7434307f3e4711804b243f2f7a424aedcc44d51370fcb10df864e0",
	"0692115c8202c589c97df6e1ef872f61109b8544a258d7d77f23e9b089ea9b19e69465a459a6adfbfe615e3016eb3731",
	"0eb48379148a1e35e0cd96650780cd88017550887b15c306269000a863463ef087a7a8d9b1a2ab54d6a24ea51ec234f7",
	"1354baf03dcc67da80d2b232f8dbeb374c16def905ef0c9f91d4f60801f2ddaf75eadb39f74db9ec13fd35d016f31752",
};
static const char *const FE_OUT[12] = {
	"09d72c189ba2fd4b09b63da857f321b791b45f8ec589858bc6d41c8f4eb05244ad7a22aea1119a958d890a19f6caceda",
	"153f579b44547ee81c5d1603571b4776a065e86b4e3da0bba32afedafcca10f0a40005e63c9408785761da689b4b7338",
	"00bb1efcca23009c3638ae9ec0ee5153fa94b4edca88c3438029bcd5909e838da44483f0bfb5877609dace3bfa7d4ff3",
	"0c0e22bf2d593bc5b7ce484f3ff81a23a0c36725909225c1cf2f277482144951ea3fe425d2a56a91b681e11abc56c7fa",
	"12c99e5152ab314ca6baec31cddbeff18acdac3a91c0e62de63e029bee76d775e0940408447b0fddad84b8dde9b86dee",
	"0fe6a726b7d4947bb7bcb22a06dd4a283ce7113e956bcbb0294883046944312a72536fff08166adcfa08dfd65e4c157f",
	"176bfe03f017f18f7a2af0f178b5f018434ef3623da77e40d7fc78fca08299f81f6879c69026f4a7ba639463893e0708",
	"0282d90ee23efd9a2e0d51af8a2048bbda4517a90a24318a75d0dd6addc29b068d17e7c89a04da84b142996aa29b1516",
	"0c2cdf5de0889c4b55752cf839e61a81feaebf97a812c7581c8f66395868b582cbea067c9d435dabb5722913da709bff",
	"0741ece37d164288d7a590b3d31d9e6f26ce0797f1b99a77cd0b5eba24eae26afcb8b69f39af06e701ceaabf94c3db5e",
	"00c9dea49cc3e1c8be938f707bbb0239e8f960fa46617877f90b3212fc3f5890999082b9c2262c8543a278136f34b5db",
	"08f574e635870b8f4ad8c18d162055ab6136db296ad5f25151244e3b1ce0d81389b9d1752a46af018e8fb1ac01b683e1",
};

static void check_known(void)
{
	uint8_t b[FP12_BYTES];
	fp12_t e, f;

	pairing(&e, &g1, &g2);
	check_fp12_hex(&e, E_G1_G2, "e(G1, G2) against zkcrypto and noble");

	for (int i = 0; i < 12; i++)
		from_hex(b + FP_BYTES * i, FE_IN[i], FP_BYTES);
	CHECK(fp12_from_bytes(&f, b) == 0, "noble's final exponentiation input");
	pairing_final_exp(&f, &f);
	check_fp12_hex(&f, FE_OUT, "final exponentiation against noble");
}

static void rand_fr(fr_t *a)
{
	uint8_t b[64];

	for (int i = 0; i < 64; i += 8) {
		uint64_t r = t_rand(&seed);
		memcpy(b + i, &r, 8);
	}
	fr_from_bytes_wide(a, b);
}

static void g1_times(g1_affine_t *out, const fr_t *s)
{
	g1_t t;

	g1_from_affine(&t, &g1);
	g1_mul(&t, &t, s);
	g1_to_affine(out, &t);
}

static void g2_times(g2_affine_t *out, const fr_t *s)
{
	g2_t t;

	g2_from_affine(&t, &g2);
	g2_mul(&t, &t, s);
	g2_to_affine(out, &t);
}

static void gt_pow(fp12_t *out, const fp12_t *a, const fr_t *s)
{
	uint64_t l[4];

	fr_to_limbs(l, s);
	fp12_pow_limbs(out, a, l, 4);
}

static void check_properties(void)
{
	fp12_t e, x, y;
	fr_t a, b, ab;
	g1_affine_t aP, abP, inf1 = { .inf = 1 };
	g2_affine_t bQ, abQ, inf2 = { .inf = 1 };

	pairing(&e, &g1, &g2);
	CHECK(!fp12_is_one(&e), "e(G1, G2) != 1");
	fp12_pow_limbs(&x, &e, FR_MODULUS, 4);
	CHECK(fp12_is_one(&x), "e(G1, G2)^r = 1");

	for (int r = 0; r < 3; r++) {
		rand_fr(&a);
		rand_fr(&b);
		fr_mul(&ab, &a, &b);
		g1_times(&aP, &a);
		g2_times(&bQ, &b);
		g1_times(&abP, &ab);
		g2_times(&abQ, &ab);
		gt_pow(&y, &e, &ab);
		pairing(&x, &aP, &bQ);
		CHECK(fp12_equal(&x, &y), "e(aP, bQ) = e(P, Q)^(ab)");
		pairing(&x, &abP, &g2);
		CHECK(fp12_equal(&x, &y), "e(abP, Q) = e(P, Q)^(ab)");
		pairing(&x, &g1, &abQ);
		CHECK(fp12_equal(&x, &y), "e(P, abQ) = e(P, Q)^(ab)");
	}

	pairing(&x, &inf1, &g2);
	CHECK(fp12_is_one(&x), "e(0, Q) = 1");
	pairing(&x, &g1, &inf2);
	CHECK(fp12_is_one(&x), "e(P, 0) = 1");
	pairing_miller_loop(&x, &g1, &g2, 0);
	CHECK(fp12_is_one(&x), "an empty Miller loop is 1");

	/* a multi-Miller loop is the product of the single ones */
	g1_affine_t ps[2] = { aP, g1 };
	g2_affine_t qs[2] = { g2, bQ };
	fp12_t f0, f1;
	pairing_miller_loop(&x, ps, qs, 2);
	pairing_miller_loop(&f0, &ps[0], &qs[0], 1);
	pairing_miller_loop(&f1, &ps[1], &qs[1], 1);
	fp12_mul(&y, &f0, &f1);
	CHECK(fp12_equal(&x, &y), "multi-Miller loop = product of Miller loops");
}

/* e(a_1 P, Q) ... e(a_n P, Q) e(-P, (sum a_i) Q) = 1; over 16 pairs the
 * Miller loop runs in several passes. */
static void check_check(void)
{
	enum { N = 19 };
	g1_affine_t ps[N];
	g2_affine_t qs[N];
	fr_t a, sum = FR_ZERO;

	for (int i = 0; i < N - 1; i++) {
		rand_fr(&a);
		fr_add(&sum, &sum, &a);
		g1_times(&ps[i], &a);
		qs[i] = g2;
	}
	g1_affine_neg(&ps[N - 1], &g1);
	g2_times(&qs[N - 1], &sum);
	CHECK(pairing_check(ps, qs, 2) == 0, "a partial product is not 1");
	CHECK(pairing_check(ps, qs, N) == 1, "pairing_check over %d pairs", N);
	g2_times(&qs[N - 1], &a);
	CHECK(pairing_check(ps, qs, N) == 0, "pairing_check refuses a wrong product");

	/* the Groth16 shape: e(aP, Q) e(-P, aQ) = 1, and one infinity more */
	g1_affine_t p2[3] = { ps[0], ps[N - 1], { .inf = 1 } };
	g2_affine_t q2[3] = { g2, qs[0], g2 };
	fr_t a0;
	rand_fr(&a0);
	g1_times(&p2[0], &a0);
	g2_times(&q2[1], &a0);
	CHECK(pairing_check(p2, q2, 2) == 1, "e(aP, Q) e(-P, aQ) = 1");
	CHECK(pairing_check(p2, q2, 3) == 1, "an infinity pair changes nothing");
	q2[1] = g2;
	CHECK(pairing_check(p2, q2, 2) == 0, "e(aP, Q) e(-P, Q) != 1");
}

int main(void)
{
	make_generators();
	check_known();
	check_properties();
	check_check();
	printf("info: e(G1, G2) matches zkcrypto/noble; bilinearity, order, infinity, pairing_check\n");
	return 0;
}
