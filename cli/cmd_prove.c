/*
 * `provisor prove -i FILE -o FILE [--backend auto|cuda|cpu] [--device N]`:
 * compute the H-term of one partition file and write it as an H file
 * carrying the same identity (format/pfile.h).
 *
 * With `--params PARAMS` it goes on to the Groth16 proof (groth16/): the
 * H-term feeds the H query's MSM, the witness comes from the partition's
 * rows, and the output is a proof file. r and s come from libsodium's
 * CSPRNG; `--insecure-test-randomness HEX` derives them from HEX instead,
 * for tests that need the same proof twice, and says so in its name.
 *
 * This is the gpuworker's computation without the supervisor around it,
 * for an operator testing a rig. The input is checked (every row a*b = c)
 * before the transform, and H's top coefficient after it, so a corrupt
 * input or a faulty backend ends in one error line instead of an H file
 * that would only fail verify later. Bad arguments: exit 2; failures: 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cli/cli.h"
#include "format/pfile.h"
#include "gpuworker/hterm.h"
#include "groth16/groth16.h"
#include "synth/synth.h"
#include "util/text.h"
#include "util/util.h"

/* 0 when out's directory exists and we may create files in it; else one
 * error line and -errno. */
static int prove_check_outdir(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[4096];
	int rc;

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == out)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	rc = -errno;
	fprintf(stderr, "provisor prove: cannot write to directory %s for %s: %s\n", dir, out, strerror(-rc));
	return rc;
}

static const struct option cmd_prove_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "backend", required_argument, NULL, 'b' },
	{ "device", required_argument, NULL, 'd' },
	{ "params", required_argument, NULL, 'p' },
	{ "threads", required_argument, NULL, 't' },
	{ "insecure-test-randomness", required_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* r and s: from the CSPRNG, or from a test seed (insecure, by name). */
static void prove_randomness(fr_t *r, fr_t *s, const struct synth_id *test)
{
	static const char tag[] = "provisor/groth16/test-randomness/v1";
	uint8_t wide[64], key[32];

	if (!test) {
		groth16_randomness(r, s);
		return;
	}
	crypto_generichash(key, sizeof key, test->seed, test->seed_len, (const uint8_t *)tag, sizeof tag - 1);
	crypto_generichash(wide, sizeof wide, (const uint8_t *)"r", 1, key, sizeof key);
	fr_from_bytes_wide(r, wide);
	crypto_generichash(wide, sizeof wide, (const uint8_t *)"s", 1, key, sizeof key);
	fr_from_bytes_wide(s, wide);
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* The Groth16 half of prove: params read, H already in h, witness z. */
static int prove_groth16(const char *out, const struct groth16_params *p, const struct synth_id *id,
			 const fr_t *z, const fr_t *h, unsigned threads, const struct synth_id *test,
			 uint64_t hterm_ns)
{
	struct groth16_proof_file f = { .id = *id };
	struct groth16_times t;
	char err[512];
	fr_t r, s;

	prove_randomness(&r, &s, test);
	if (groth16_prove(&f.proof, p, z, h, &r, &s, threads, &t)) {
		fprintf(stderr, "provisor prove: out of memory for the MSMs\n");
		return 1;
	}
	sodium_memzero(&r, sizeof r);
	sodium_memzero(&s, sizeof s);
	memcpy(f.vk_digest, p->vk_digest, sizeof f.vk_digest);
	f.x[0] = z[1];
	f.x[1] = z[2];
	if (groth16_proof_write(out, &f, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		return 1;
	}
	printf("%s: proof of partition %u (k=%u) in %.3f s: H-term %.3f, MSM A %.3f, B %.3f, L %.3f, H %.3f\n",
	       out, id->partition, id->k, secs(hterm_ns + t.total), secs(hterm_ns), secs(t.msm_a),
	       secs(t.msm_b), secs(t.msm_l), secs(t.msm_h));
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmd_prove(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *params = NULL;
	struct groth16_params p = { 0 };
	struct synth_id test = { 0 }, *testp = NULL;
	fr_t *z = NULL;
	long threads = 0;
	uint64_t t0;
	enum vocab_backend want = VOCAB_BACKEND_AUTO, got;
	struct synth_id id;
	fr_t *a = NULL, *b = NULL, *c = NULL;
	size_t bad;
	long dev = 0;
	char err[512], shown[64];
	int opt, rc = 1;

	opterr = 0;	/* our own one-line messages, not getopt's */
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'b':
			if (vocab_backend_parse(optarg, &want)) {
				fprintf(stderr, "provisor prove: unknown backend '%s' (auto, cuda or cpu)\n",
					util_clean(shown, sizeof shown, optarg));
				return 2;
			}
			break;
		case 'd':
			if (cli_parse_int(optarg, 0, INT_MAX, &dev) < 0) {
				fprintf(stderr, "provisor prove: --device '%s' is not a device ordinal (0, 1, ...)\n",
					util_clean(shown, sizeof shown, optarg));
				return 2;
			}
			break;
		case 'p':
			params = optarg;
			break;
		case 't':
			if (cli_parse_int(optarg, 0, 1024, &threads) < 0)
				return cli_usage_error("prove", "--threads '%s' is not in 0..1024", optarg);
			break;
		case 'R':
			if (synth_parse_seed(&test, optarg))
				return cli_usage_error("prove", "--insecure-test-randomness '%s' is not 1..%d bytes of hex",
						       optarg, SYNTH_SEED_MAX);
			testp = &test;
			break;
		case 'h':
			return cli_help("prove");
		default:
			return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!in || !out)
		return cli_usage_error("prove", "missing %s", !in ? "-i FILE" : "-o FILE");
	if (testp && !params)
		return cli_usage_error("prove", "--insecure-test-randomness needs --params");

	/* A wrong -o should fail now, not after the transform. pfile's writer
	 * still reports any later failure (disk full, a race). */
	if (prove_check_outdir(out))
		return 1;
	if (pfile_read_partition(in, &id, &a, &b, &c, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		return 1;
	}
	if (synth_check(a, b, c, (size_t)1 << id.k, &bad)) {
		fprintf(stderr, "provisor prove: %s: row %zu violates a*b = c; not a satisfied partition\n",
			in, bad);
		goto out;
	}
	if (params) {
		/* Before the transform: a wrong params file fails in seconds. */
		if (groth16_params_read(params, &p, 0, err, sizeof err)) {
			fprintf(stderr, "provisor prove: %s\n", err);
			goto out;
		}
		if (p.k != id.k) {
			fprintf(stderr, "provisor prove: %s is for k=%u, but %s has k=%u\n", params, p.k, in, id.k);
			goto out;
		}
		z = malloc(synth_nvars(id.k) * sizeof *z);
		if (!z) {
			fprintf(stderr, "provisor prove: out of memory for the witness\n");
			goto out;
		}
		synth_witness_from_rows(id.k, a, c, z);
	}
	/* After the input checks: resolve logs which backend it chose, and a
	 * bad input should leave one line on stderr, its error, not two. */
	if (hterm_backend_resolve(want, &got, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		goto out;
	}
	err[0] = '\0';
	t0 = mono_ns();
	if (hterm_run(got, (int)dev, a, b, c, id.k, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s backend failed: %s\n",
			vocab_backend_name(got), err[0] ? err : "out of memory or bad size");
		goto out;
	}
	if (!hterm_check_top(a, id.k)) {
		fprintf(stderr, "provisor prove: H's top coefficient is not zero: the backend computed a wrong H\n");
		goto out;
	}
	if (params) {
		rc = prove_groth16(out, &p, &id, z, a, (unsigned)threads, testp, mono_ns() - t0);
		goto out;
	}
	if (pfile_write_h(out, &id, a, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	groth16_params_free(&p);
	free(z);
	free(a);
	free(b);
	free(c);
	return rc;
}

const struct cli_entry cli_cmd_prove = {
	.name = "prove",
	.usage = "prove -i PARTITION -o FILE [--backend auto|cuda|cpu] [--device N] "
		 "[--params PARAMS [--threads N] [--insecure-test-randomness HEX]]",
	.help = "Compute the H term of a partition file into an H file; with --params,\n"
		"go on to a Groth16 proof file. The input and the result are checked.\n"
		"  -i, --input PARTITION   the partition file (from provisor synth; required)\n"
		"  -o, --output FILE       the H file, or with --params the proof file (required)\n"
		"  --backend auto|cuda|cpu where to compute the H term (default auto)\n"
		"  --device N              the CUDA device ordinal (default 0)\n"
		"  --params PARAMS         Groth16 parameters for the partition's K: write a proof\n"
		"  --threads N             threads for the proof, 0 to 1024; 0 (default) every CPU\n"
		"  --insecure-test-randomness HEX\n"
		"                          derive the proof's randomness from HEX (tests only;\n"
		"                          needs --params; default: the system's random source)\n",
	.options = cmd_prove_options,
	.optstring = ":i:o:b:d:p:t:R:h",
	.exec = cmd_prove,
};
