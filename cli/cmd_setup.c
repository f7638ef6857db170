/*
 * `provisor setup --seed HEX --log-size K -o PARAMS [--threads N]`: the
 * Groth16 parameters (proving and verifying key) of the k circuit, derived
 * from a seed (groth16/groth16.h).
 *
 * NOT SECURE: whoever knows the seed can forge proofs. It makes the same
 * file from the same seed, for tests and demos; a rig that needs sound
 * proofs converts a real ceremony's output (docs/formats.md).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "groth16/groth16.h"
#include "synth/synth.h"

static const struct option cmd_setup_options[] = {
	{ "seed", required_argument, NULL, 's' },
	{ "log-size", required_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "threads", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_setup(int argc, char **argv)
{
	const char *out = NULL, *seedhex = NULL;
	struct groth16_params p;
	struct synth_id id = { 0 };
	struct timespec t0, t1;
	long k = -1, threads = 0;
	char err[512];
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 's':
			seedhex = optarg;
			break;
		case 'k':
			if (cli_parse_int(optarg, SYNTH_LOG_MIN, VOCAB_LOG_MAX, &k) < 0)
				return cli_usage_error("setup", "--log-size '%s' is not in %d..%d", optarg,
						       SYNTH_LOG_MIN, VOCAB_LOG_MAX);
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			if (cli_parse_int(optarg, 0, 1024, &threads) < 0)
				return cli_usage_error("setup", "--threads '%s' is not in 0..1024", optarg);
			break;
		case 'h':
			return cli_help("setup");
		default:
			return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!seedhex || k < 0 || !out)
		return cli_usage_error("setup", "missing %s", !seedhex ? "--seed HEX" : k < 0 ? "--log-size K" : "-o PARAMS");
	if (synth_parse_seed(&id, seedhex))
		return cli_usage_error("setup", "--seed '%s' is not 1..%d bytes of hex", seedhex, SYNTH_SEED_MAX);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (groth16_setup(&p, id.seed, id.seed_len, (unsigned)k, (unsigned)threads, err, sizeof err)) {
		fprintf(stderr, "provisor setup: %s\n", err);
		return 1;
	}
	if (groth16_params_write(out, &p, err, sizeof err)) {
		groth16_params_free(&p);
		fprintf(stderr, "provisor setup: %s\n", err);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: Groth16 params for k=%ld (%u variables) in %.2f s; derived from a seed: NOT SECURE, "
	       "for tests and demos only\n", out, k, p.nvars,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	groth16_params_free(&p);
	return 0;
}

const struct cli_entry cli_cmd_setup = {
	.name = "setup",
	.usage = "setup --seed HEX --log-size K -o PARAMS [--threads N]   "
		 "(derived from the seed: NOT SECURE, for tests and demos)",
	.help = "Write Groth16 parameters for the circuit of 2^K rows, derived from the\n"
		"seed: whoever knows the seed can forge proofs (tests and demos only).\n"
		"  --seed HEX           1 to 32 bytes of hex (required)\n"
		"  --log-size K         3 to 27 (required)\n"
		"  -o, --output PARAMS  the parameters file to write (required)\n"
		"  --threads N          threads, 0 to 1024; 0 (default) uses every CPU\n",
	.options = cmd_setup_options,
	.optstring = ":s:k:o:t:h",
	.exec = cmd_setup,
};
