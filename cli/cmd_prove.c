/*
 * `provisor prove -i FILE -o FILE [--backend auto|cuda|cpu] [--device N]`:
 * compute the H-term of one partition file and write it as an H file
 * carrying the same identity (format/pfile.h).
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
#include <unistd.h>

#include "cli/cli.h"
#include "format/pfile.h"
#include "gpuworker/hterm.h"
#include "synth/synth.h"

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
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_prove(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	enum vocab_backend want = VOCAB_BACKEND_AUTO, got;
	struct synth_id id;
	fr_t *a = NULL, *b = NULL, *c = NULL;
	size_t bad;
	long dev = 0;
	char err[512];
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
				fprintf(stderr, "provisor prove: unknown backend '%s' (auto, cuda or cpu)\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (cli_parse_int(optarg, 0, INT_MAX, &dev) < 0) {
				fprintf(stderr, "provisor prove: --device '%s' is not a device ordinal (0, 1, ...)\n",
					optarg);
				return 2;
			}
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
	/* After the input checks: resolve logs which backend it chose, and a
	 * bad input should leave one line on stderr, its error, not two. */
	if (hterm_backend_resolve(want, &got, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		goto out;
	}
	err[0] = '\0';
	if (hterm_run(got, (int)dev, a, b, c, id.k, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s backend failed: %s\n",
			vocab_backend_name(got), err[0] ? err : "out of memory or bad size");
		goto out;
	}
	if (!hterm_check_top(a, id.k)) {
		fprintf(stderr, "provisor prove: H's top coefficient is not zero: the backend computed a wrong H\n");
		goto out;
	}
	if (pfile_write_h(out, &id, a, err, sizeof err)) {
		fprintf(stderr, "provisor prove: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	free(a);
	free(b);
	free(c);
	return rc;
}

const struct cli_entry cli_cmd_prove = {
	.name = "prove",
	.usage = "prove -i FILE -o FILE [--backend auto|cuda|cpu] [--device N]",
	.options = cmd_prove_options,
	.optstring = ":i:o:b:d:h",
	.exec = cmd_prove,
};
