/*
 * `provisor verify FILE...`: check H files and job result files against
 * their re-synthesized partitions (verify/verify.h).
 * `provisor verify --params PARAMS PROOF...`: check Groth16 proof files,
 * and every proof of a job's proofs file, with the params' verifying key,
 * for the public inputs recomputed from each proof's partition identity
 * (groth16/groth16.h). A proofs+H file (a kind with keep_h) has every
 * proof and every H checked; without --params, its H only, and a line on
 * stderr says its proofs need --params (the exit status is then the H's).
 *
 * One line per partition checked: "FILE: partition P ...: ok" on stdout,
 * or the failure on stderr, one line per failed file or partition. The
 * exit status is 0 when everything held, 1 when anything failed, 2 for
 * bad arguments. A file that cannot be read counts as failed and the
 * remaining files are still checked, so one run reports every problem.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "format/pfile.h"
#include "groth16/groth16.h"
#include "synth/synth.h"
#include "verify/verify.h"

/* Check one partition's H and print its line. 0 ok, else nonzero. */
static int verify_report(const char *path, const struct synth_id *id, const fr_t *h)
{
	char why[256], seed[2 * SYNTH_SEED_MAX + 1];
	int rc = verify_partition(id, h, why, sizeof why);

	synth_seed_hex(id, seed, sizeof seed);
	if (rc) {
		fprintf(stderr, "provisor verify: %s: partition %u (k=%u, seed %s): FAILED: %s\n",
			path, id->partition, id->k, seed, why);
		return 1;
	}
	printf("%s: partition %u (k=%u, seed %s): ok\n", path, id->partition, id->k, seed);
	return 0;
}

static int verify_h_file(const char *path)
{
	struct synth_id id;
	fr_t *h;
	char err[512];
	int rc;

	if (pfile_read_h(path, &id, &h, err, sizeof err)) {
		fprintf(stderr, "provisor verify: %s\n", err);
		return 1;
	}
	rc = verify_report(path, &id, h);
	free(h);
	return rc;
}

static int verify_result_file(const char *path)
{
	struct pfile_result res;
	struct pfile_reader *r;
	fr_t *h;
	char err[512];
	int bad = 0;

	if (pfile_result_open(path, &res, &r, err, sizeof err)) {
		fprintf(stderr, "provisor verify: %s\n", err);
		return 1;
	}
	h = malloc(sizeof(fr_t) << res.id.k);
	if (!h) {
		fprintf(stderr, "provisor verify: %s: out of memory for 2^%u elements\n", path, res.id.k);
		pfile_result_close(r);
		return 1;
	}
	for (uint32_t p = 0; p < res.partitions; p++) {
		struct synth_id id = res.id;

		id.partition = p;
		if (pfile_result_read(r, p, h, err, sizeof err)) {
			fprintf(stderr, "provisor verify: %s\n", err);
			bad = 1;
			break;
		}
		bad |= verify_report(path, &id, h);
	}
	free(h);
	pfile_result_close(r);
	return bad;
}

/* One decoded proof against vk (why: a problem found already, or NULL):
 * its line on stdout or stderr; 0 ok. */
static int verify_proof(const char *path, const struct groth16_proof_file *pf, const struct groth16_params *p,
			const char *why)
{
	const struct groth16_proof_file f = *pf;
	char seed[2 * SYNTH_SEED_MAX + 1];
	fr_t x[GROTH16_NPUB - 1];

	synth_seed_hex(&f.id, seed, sizeof seed);
	if (why)
		;
	else if (memcmp(f.vk_digest, p->vk_digest, sizeof f.vk_digest))
		why = "made with other params (verifying key digest differs)";
	else if (f.id.k != p->k)
		why = "its k differs from the params'";
	else if (synth_public_inputs(&f.id, x))
		why = "its identity cannot be synthesized";
	for (unsigned i = 0; !why && i < GROTH16_NPUB - 1; i++)
		if (!fr_equal(&x[i], &f.x[i]))
			why = i ? "wrong public input x_out: not the chain's value for this identity"
				: "wrong public input x_0: not this identity's";
	if (!why && !groth16_verify(&p->vk, x, &f.proof))
		why = "the pairing equation does not hold";
	if (why) {
		fprintf(stderr, "provisor verify: %s: proof of partition %u (k=%u, seed %s): FAILED: %s\n",
			path, f.id.partition, f.id.k, seed, why);
		return 1;
	}
	printf("%s: proof of partition %u (k=%u, seed %s): ok\n", path, f.id.partition, f.id.k, seed);
	return 0;
}

static int verify_proof_file(const char *path, const struct groth16_params *p)
{
	struct groth16_proof_file f;
	char err[512];

	if (groth16_proof_read(path, &f, err, sizeof err)) {
		fprintf(stderr, "provisor verify: %s\n", err);
		return 1;
	}
	return verify_proof(path, &f, p, NULL);
}

/* A proofs+H file's H of partition p, read through the file's reader. */
struct verify_kept {
	struct pfile_proofs *r;
	uint32_t p;
};

static int verify_kept_read(void *arg, uint64_t off, void *buf, size_t len)
{
	const struct verify_kept *k = arg;
	int rc = pfile_proofs_h_read(k->r, k->p, off, buf, len);

	return rc == -ENODATA ? -EIO : rc;	/* the file shrank since it was opened */
}

/* Partition p's H in a proofs+H file (r), streamed once after the proof
 * bytes proof: the region's digest held to its table entry, and the H
 * checked against the partition (verify_partition_stream_after: a chunk
 * at a time, whatever k is). Its line on stdout or stderr; 0 ok. */
static int verify_kept_h(const char *path, struct pfile_proofs *r, const struct pfile_result *res, uint32_t p,
			 const uint8_t proof[PFILE_PROOF_REGION])
{
	struct verify_kept k = { r, p };
	struct synth_id id = res->id;
	char why[256], seed[2 * SYNTH_SEED_MAX + 1];
	uint8_t got[32];
	int rc;

	id.partition = p;
	synth_seed_hex(&id, seed, sizeof seed);
	rc = verify_partition_stream_after(&id, proof, PFILE_PROOF_REGION, verify_kept_read, &k, got, why,
					   sizeof why);
	if (rc != -EBADMSG && rc != -EINVAL && rc != -ENOMEM && rc < 0)
		;	/* a read failed: why says so */
	else if (memcmp(got, pfile_proofs_digest(r, p), sizeof got))
		snprintf(why, sizeof why, "its region (proof and H) does not match its digest (table entry at offset "
			 "%llu)", (unsigned long long)(pfile_res_table_off(PFILE_KIND_PROOFS_H, id.k, res->partitions) +
						       (uint64_t)p * 32));
	else if (!rc)
		why[0] = '\0';
	if (why[0]) {
		fprintf(stderr, "provisor verify: %s: partition %u (k=%u, seed %s): FAILED: %s\n", path, p, id.k,
			seed, why);
		return 1;
	}
	printf("%s: partition %u (k=%u, seed %s): ok\n", path, p, id.k, seed);
	return 0;
}

/* Every proof of a job's proofs or proofs+H file, each held to the
 * partition the file's header and its place name; and in a proofs+H
 * file every H too, its region read once for the digest and the check. Without params (p NULL) only the H are checked. The file is
 * read region by region, never whole (a proofs+H region is 4 GiB at
 * k = 27). */
static int verify_proofs_result(const char *path, const struct groth16_params *p)
{
	uint8_t proof[PFILE_PROOF_REGION];
	struct pfile_result res;
	struct pfile_proofs *r;
	uint32_t kind;
	char err[512];
	int bad = 0;

	if (pfile_proofs_open(path, &res, &kind, &r, err, sizeof err)) {
		fprintf(stderr, "provisor verify: %s\n", err);
		return 1;
	}
	for (uint32_t i = 0; i < res.partitions; i++) {
		struct groth16_proof_file f;
		const char *why = NULL;

		if (pfile_proofs_proof(r, i, proof, err, sizeof err)) {
			fprintf(stderr, "provisor verify: %s\n", err);
			bad = 1;
			continue;
		}
		if (kind == PFILE_KIND_PROOFS_H)
			bad |= verify_kept_h(path, r, &res, i, proof);
		if (!p)
			continue;
		if (groth16_proof_decode(&f, proof, PFILE_PROOF_REGION, err, sizeof err)) {
			fprintf(stderr, "provisor verify: %s: partition %u: FAILED: %s\n", path, i, err);
			bad = 1;
			continue;
		}
		if (f.id.partition != i || f.id.k != res.id.k || f.id.seed_len != res.id.seed_len ||
		    memcmp(f.id.seed, res.id.seed, res.id.seed_len))
			why = "the proof names another partition than its place in the job's file";
		bad |= verify_proof(path, &f, p, why);
	}
	if (!p)	/* on stderr: stdout keeps one line per thing checked */
		fprintf(stderr, "provisor verify: %s: its H checked; its %u proofs were not (that needs --params "
			"PARAMS)\n", path, res.partitions);
	pfile_proofs_close(r);
	return bad;
}

static const struct option cmd_verify_options[] = {
	{ "params", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_verify(int argc, char **argv)
{
	enum pfile_kind kind;
	const char *params = NULL;
	char err[512];
	int opt, bad = 0;

	opterr = 0;	/* our own one-line messages, not getopt's */
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		if (opt == 'p')
			params = optarg;
		else
			return opt == 'h' ? cli_help("verify") : cli_bad_option(opt, argv);
	}
	if (optind >= argc)
		return cli_usage_error("verify", "no files given");
	if (params) {
		struct groth16_params p;

		if (groth16_params_read(params, &p, 1, err, sizeof err)) {
			fprintf(stderr, "provisor verify: %s\n", err);
			return 1;
		}
		for (int i = optind; i < argc; i++)
			bad |= pfile_probe(argv[i], &kind, err, sizeof err) == 0 && pfile_kind_has_proofs(kind)
				       ? verify_proofs_result(argv[i], &p) : verify_proof_file(argv[i], &p);
		fflush(stdout);
		return bad;
	}
	for (int i = optind; i < argc; i++) {
		if (pfile_probe(argv[i], &kind, err, sizeof err)) {
			fprintf(stderr, "provisor verify: %s\n", err);
			bad = 1;
			continue;
		}
		switch (kind) {
		case PFILE_KIND_H:
			bad |= verify_h_file(argv[i]);
			break;
		case PFILE_KIND_RESULT:
			bad |= verify_result_file(argv[i]);
			break;
		case PFILE_KIND_PROOFS:
			fprintf(stderr, "provisor verify: %s: is a job's proofs file; check it with "
				"--params PARAMS\n", argv[i]);
			bad = 1;
			break;
		case PFILE_KIND_PROOFS_H:	/* what can be checked without params: the H */
			bad |= verify_proofs_result(argv[i], NULL);
			break;
		default:
			fprintf(stderr, "provisor verify: %s: is a partition file (a, b, c); "
				"verify takes H files and job result files\n", argv[i]);
			bad = 1;
		}
	}
	fflush(stdout);
	return bad;
}

const struct cli_entry cli_cmd_verify = {
	.name = "verify",
	.usage = "verify FILE...  |  verify --params PARAMS PROOF...",
	.help = "Check H files and job result files against their partitions,\n"
		"synthesized again; or Groth16 proof files, and every proof of a job's\n"
		"proofs file (a kind with params), with a verifying key. A job's\n"
		"proofs+H file (keep_h) has every proof and every H checked; without\n"
		"--params only its H, and a line on stderr says the proofs were not.\n"
		"'FILE: partition P ...: ok' on stdout for each that holds, one line on\n"
		"stderr for each failure; every file is checked. Exit 1 if any failed.\n"
		"  --params PARAMS  check proof files and proofs files with PARAMS'\n"
		"                   verifying key\n"
		"                   (default: the files are H, result or proofs+H files)\n",
	.options = cmd_verify_options,
	.optstring = ":p:h",
	.exec = cmd_verify,
};
