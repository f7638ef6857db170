/*
 * `provisor synth --seed HEX --partition I --log-size K -o FILE`: synthesize
 * one partition and write it as a partition file (format/pfile.h).
 *
 * Operators use it to produce test inputs for a rig by hand. Every bad
 * argument ends the command with one line on stderr and exit 2; a failure
 * while working (memory, disk) with one line and exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "format/pfile.h"
#include "synth/synth.h"
#include "util/util.h"

/* A decimal in [lo, hi], digits only. 0 or -EINVAL. */
static int synth_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (util_num(s, UTIL_NUM_DIGITS, lo, hi, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static const struct option cmd_synth_options[] = {
	{ "seed", required_argument, NULL, 's' },
	{ "partition", required_argument, NULL, 'p' },
	{ "log-size", required_argument, NULL, 'k' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_synth(int argc, char **argv)
{
	struct synth_id id = { .seed_len = 0 };
	const char *out = NULL;
	int have_part = 0, have_k = 0, opt;
	fr_t *a = NULL, *b = NULL, *c = NULL;
	char err[512];
	size_t n;
	int rc = 1;

	opterr = 0;	/* our own one-line messages, not getopt's */
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 's':
			if (synth_parse_seed(&id, optarg)) {
				fprintf(stderr, "provisor synth: --seed '%s' is not hex of 1 to %d bytes\n",
					optarg, SYNTH_SEED_MAX);
				return 2;
			}
			break;
		case 'p':
			if (synth_parse_u32(optarg, 0, UINT32_MAX, &id.partition)) {
				fprintf(stderr, "provisor synth: --partition '%s' is not an integer in 0..%u\n",
					optarg, UINT32_MAX);
				return 2;
			}
			have_part = 1;
			break;
		case 'k':
			if (synth_parse_u32(optarg, SYNTH_LOG_MIN, VOCAB_LOG_MAX, &id.k)) {
				fprintf(stderr, "provisor synth: --log-size '%s' out of range %d..%d\n",
					optarg, SYNTH_LOG_MIN, VOCAB_LOG_MAX);
				return 2;
			}
			have_k = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			return cli_help("synth");
		default:
			return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!id.seed_len || !have_part || !have_k || !out)
		return cli_usage_error("synth", "missing %s",
				       !id.seed_len ? "--seed" : !have_part ? "--partition" :
				       !have_k ? "--log-size" : "-o FILE");

	n = (size_t)1 << id.k;
	a = malloc(n * sizeof *a);
	b = malloc(n * sizeof *b);
	c = malloc(n * sizeof *c);
	if (!a || !b || !c) {
		fprintf(stderr, "provisor synth: out of memory for 3 x 2^%u elements\n", id.k);
		goto out;
	}
	synth_partition(&id, a, b, c);
	if (pfile_write_partition(out, &id, a, b, c, err, sizeof err)) {
		fprintf(stderr, "provisor synth: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	free(a);
	free(b);
	free(c);
	return rc;
}

const struct cli_entry cli_cmd_synth = {
	.name = "synth",
	.usage = "synth --seed HEX --partition I --log-size K -o FILE",
	.help = "Synthesize one partition of the circuit into a partition file (no\n"
		"supervisor needed).\n"
		"  --seed HEX          the job seed, 1 to 32 bytes of hex (required)\n"
		"  --partition I       the partition index, 0 to 4294967295 (required)\n"
		"  --log-size K        2^K rows, 3 to 27 (required)\n"
		"  -o, --output FILE   the partition file to write (required)\n",
	.options = cmd_synth_options,
	.optstring = ":s:p:k:o:h",
	.exec = cmd_synth,
};
