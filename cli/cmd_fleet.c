/*
 * cmd_fleet: the commands that talk to a fleet's database rather than to
 * one supervisor (docs/fleet.md): `provisor fleet init DSN` (the schema,
 * by versioned migrations), and the --fleet DSN forms of submit, result
 * and status, whose option parsing stays in their own files
 * (cmd_ctl.c, cmd_jobs.c, cmd_status.c) and comes here once it is done.
 *
 * A DSN is libpq's (a connection string or a URI). One on the command
 * line is visible to every user in ps: keep the password in ~/.pgpass
 * or PGPASSFILE instead. Every failure is one line on stderr; exit 1 for
 * the database's refusal or absence, 2 for a bad argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/conf.h"
#include "fleet/fleet.h"
#include "format/pfile.h"
#include "util/text.h"
#include "util/util.h"
#include "util/vocab.h"

#define CMD_FLEET_POLL_NS 200000000L	/* submit --wait asks every 200 ms */

PGconn *cmd_fleet_connect(const char *cmd, const char *dsn)
{
	char err[400], shown[400];
	PGconn *c = fleet_connect(dsn, err, sizeof err);

	if (!c)
		fprintf(stderr, "provisor %s: %s\n", cmd, util_clean(shown, sizeof shown, err));
	return c;
}

static int cmd_fleet_init(int argc, char **argv)
{
	char err[400], shown[400];
	int from, to, rc;
	PGconn *c;

	if (argc != 3 || strcmp(argv[1], "init"))
		return cli_usage_error("fleet", argc < 2 ? "expected init DSN" : argc == 2 && !strcmp(argv[1], "init") ?
				       "init needs the database's DSN" : "expected init DSN, not '%s'", argv[1]);
	if (!(c = cmd_fleet_connect("fleet", argv[2])))
		return 1;
	rc = fleet_migrate(c, &from, &to, err, sizeof err);
	PQfinish(c);
	if (rc < 0) {
		fprintf(stderr, "provisor fleet: %s\n", util_clean(shown, sizeof shown, err));
		return 1;
	}
	if (from == to)
		printf("fleet schema: version %d, up to date\n", to);
	else
		printf("fleet schema: version %d -> %d\n", from, to);
	return 0;
}

static int cmd_fleet(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return cli_help("fleet");
	return cmd_fleet_init(argc, argv);
}

const struct cli_entry cli_cmd_fleet = {
	.name = "fleet",
	.usage = "fleet init DSN",
	.help = "Create or bring up to date the fleet's schema in the database DSN (a\n"
		"libpq connection string or URI: 'host=/run/postgresql dbname=provisor' or\n"
		"'postgresql://user@db.example/provisor'), by versioned migrations recorded\n"
		"in provisor_schema; running it again changes nothing. Then nodes join with\n"
		"provisor run --fleet DSN, and jobs are queued with provisor submit --fleet\n"
		"DSN (or the SQL in docs/fleet.md). Keep a password out of the DSN given\n"
		"on a command line: ~/.pgpass or PGPASSFILE.\n",
	.options = NULL,
	.optstring = ":h",
	.exec = cmd_fleet,
};

/* --wait: until the job is done or failed. */
static int cmd_fleet_wait(PGconn *c, uint64_t id)
{
	struct fleet_result r;
	char err[400], shown[400];

	for (;;) {
		if (fleet_admin_result(c, id, &r, err, sizeof err) < 0) {
			fprintf(stderr, "provisor submit: %s\n", util_clean(shown, sizeof shown, err));
			return 1;
		}
		fleet_result_free(&r);
		if (!strcmp(r.state, "done")) {
			printf("job %llu done by %s\n", (unsigned long long)id, r.node);
			return 0;
		}
		if (!strcmp(r.state, "failed")) {
			printf("job %llu failed: %s\n", (unsigned long long)id, r.why[0] ? util_clean(shown, sizeof shown, r.why) :
			       "no reason given");
			return 1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = CMD_FLEET_POLL_NS }, NULL);
	}
}

int cmd_fleet_submit(const struct cmd_fleet_job *a)
{
	struct fleet_submit j = { .deadline_s = -1, .output = a->proofs ? "proofs" : "any" };
	struct conf defaults;
	uint64_t id, ms, v;
	uint32_t len = 0;
	PGconn *c;
	char err[400], shown[400];
	int rc;

	conf_defaults(&defaults);	/* the built-in kinds' k, partitions, priority */
	if (vocab_kind_parse(a->kind, &j.kind) < 0)
		return cli_usage_error("submit", "unknown --kind '%s'", a->kind);
	j.log_size = defaults.kind[j.kind].log_size;
	j.partitions = defaults.kind[j.kind].partitions;
	j.priority = defaults.kind[j.kind].priority;
	if (a->k && util_num(a->k, UTIL_NUM_STRTOL, VOCAB_LOG_MIN, VOCAB_LOG_MAX, &v) == 0)
		j.log_size = (uint32_t)v;
	if (a->parts && util_num(a->parts, UTIL_NUM_STRTOL, 1, VOCAB_MAX_PARTS, &v) == 0)
		j.partitions = (uint32_t)v;
	if (a->priority && util_num(a->priority, UTIL_NUM_STRTOL, 0, 255, &v) < 0)
		return cli_usage_error("submit", "--priority '%s' is not a number in 0..255", a->priority);
	if (a->priority)
		j.priority = (uint32_t)v;
	if (a->deadline && (conf_parse_duration_ms(a->deadline, &ms) < 0 || ms > 365ull * 86400000))
		return cli_usage_error("submit", "--deadline '%s' is not a duration (30s, 10m, 2h) within a year",
				       a->deadline);
	if (a->deadline)
		j.deadline_s = (int64_t)(ms / 1000);
	if (a->seed) {
		if (util_hex(a->seed, j.seed, sizeof j.seed, &len) < 0 || !len)
			return cli_usage_error("submit", "--seed '%s' is not hex of 1 to 32 bytes", a->seed);
		j.seed_len = len;
	} else {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, j.seed, 16) != 16) {
			fprintf(stderr, "provisor submit: /dev/urandom: %s\n", strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
		j.seed_len = 16;
	}
	if (!(c = cmd_fleet_connect("submit", a->dsn)))
		return 1;
	if (fleet_admin_submit(c, &j, &id, err, sizeof err) < 0) {
		fprintf(stderr, "provisor submit: %s\n", util_clean(shown, sizeof shown, err));
		PQfinish(c);
		return 1;
	}
	printf("%llu\n", (unsigned long long)id);
	fflush(stdout);
	rc = a->wait ? cmd_fleet_wait(c, id) : 0;
	PQfinish(c);
	return rc;
}

/* The proofs the database holds (each partition's proof file, in order)
 * made a proofs file again, for provisor verify --params: the header of
 * the job, the regions, each region's digest and the checksum
 * (format/pfile.h), into path (temp, fsync, rename). 0, or 1 after one
 * line. */
static int cmd_fleet_write(const char *path, uint64_t id, const struct fleet_result *r)
{
	struct pfile_result res = { .job_id = id, .partitions = r->partitions, .version = 0 };
	uint32_t P = r->partitions;
	uint8_t hdr[PFILE_HEADER_BYTES], table[VOCAB_MAX_PARTS * 32], sum[PFILE_SUM_BYTES];
	char tmp[4200];
	int fd, rc = 0;

	if (vocab_kind_parse(r->kind, &res.job_kind) < 0 || P < 1 || P > VOCAB_MAX_PARTS ||
	    r->proofs_len != (size_t)P * PFILE_PROOF_REGION || r->seed_len < 1) {
		fprintf(stderr, "provisor result: the database's proofs of job %llu do not match the job\n",
			(unsigned long long)id);
		return 1;
	}
	memcpy(res.id.seed, r->seed, r->seed_len);
	res.id.seed_len = r->seed_len;
	res.id.k = r->log_size;
	pfile_res_header(PFILE_KIND_PROOFS, &res, hdr);
	for (uint32_t p = 0; p < P; p++) {
		struct pfile_digest d;
		pfile_digest_init(&d);
		pfile_digest_update(&d, r->proofs + (size_t)p * PFILE_PROOF_REGION, PFILE_PROOF_REGION);
		pfile_digest_final(&d, table + (size_t)p * 32);
	}
	pfile_result2_sum(hdr, table, P, sum);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, hdr, sizeof hdr) != (ssize_t)sizeof hdr ||
	    write(fd, r->proofs, r->proofs_len) != (ssize_t)r->proofs_len ||
	    write(fd, table, (size_t)P * 32) != (ssize_t)P * 32 || write(fd, sum, sizeof sum) != (ssize_t)sizeof sum ||
	    fsync(fd) < 0 || rename(tmp, path) < 0)
		rc = errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	if (rc) {
		unlink(tmp);
		fprintf(stderr, "provisor result: %s: %s\n", path, strerror(-rc));
		return 1;
	}
	return 0;
}

void cmd_fleet_jstr(const char *t)
{
	putchar('"');
	for (; *t; t++)
		if (*t == '"' || *t == '\\')
			printf("\\%c", *t);
		else if ((unsigned char)*t < 0x20 || *t == 0x7f)
			printf("\\u%04x", (unsigned char)*t);
		else
			putchar(*t);
	putchar('"');
}

static void cmd_fleet_hexout(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* A done job's result: who, where, and its proofs or H digest. */
static void cmd_fleet_print(uint64_t id, const struct fleet_result *r, int json)
{
	uint32_t parts = r->partitions;
	int proofs = !strcmp(r->output, "proofs") && r->proofs_len == (size_t)parts * PFILE_PROOF_REGION;

	if (json) {
		printf("{\"job\":%llu,\"state\":\"done\",\"kind\":\"%s\",\"k\":%u,\"partitions\":%u,\"seed\":\"",
		       (unsigned long long)id, r->kind, r->log_size, parts);
		cmd_fleet_hexout(r->seed, r->seed_len);
		printf("\",\"node\":\"%s\",\"epoch\":%u,\"output\":\"%s\"", r->node, r->epoch, r->output);
	} else {
		printf("job %llu done by %s (epoch %u): %s, %s k=%u x %u\n", (unsigned long long)id, r->node,
		       r->epoch, r->output, r->kind, r->log_size, parts);
	}
	/* the node's result file: its checksum, and where it is (with H output,
	 * where the H is) */
	printf(json ? ",\"checksum\":\"" : "checksum ");
	cmd_fleet_hexout(r->h_digest, 32);
	if (json) {
		printf("\",\"location\":");
		cmd_fleet_jstr(r->location);
	} else {
		char shown[600];
		printf("\nlocation %s\n", util_clean(shown, sizeof shown, r->location));
	}
	if (json)
		printf(",\"proofs\":[");
	for (uint32_t p = 0; proofs && p < parts; p++) {
		if (json)
			printf("%s\"", p ? "," : "");
		else
			printf("partition %u proof ", p);
		cmd_fleet_hexout(r->proofs + (size_t)p * PFILE_PROOF_REGION, PFILE_PROOF_REGION);
		printf(json ? "\"" : "\n");
	}
	if (json)
		printf("]}\n");
}

int cmd_fleet_result(const char *dsn, uint64_t id, int json, const char *out)
{
	struct fleet_result r;
	char err[400], shown[400];
	PGconn *c;
	int rc = 1;

	if (!(c = cmd_fleet_connect("result", dsn)))
		return 1;
	if (fleet_admin_result(c, id, &r, err, sizeof err) < 0) {
		fprintf(stderr, "provisor result: %s\n", util_clean(shown, sizeof shown, err));
		PQfinish(c);
		return 1;
	}
	PQfinish(c);
	if (strcmp(r.state, "done")) {
		fprintf(stderr, "provisor result: job %llu is %s%s%s, not done\n", (unsigned long long)id, r.state,
			r.owner[0] ? " on " : r.why[0] ? ": " : "", r.owner[0] ? r.owner : util_clean(shown, sizeof shown, r.why));
	} else if (out && !r.proofs) {
		fprintf(stderr, "provisor result: job %llu ended in H, kept on node %s: --output is for proofs\n",
			(unsigned long long)id, r.node);
	} else if (out) {
		rc = cmd_fleet_write(out, id, &r);
		if (!rc)
			printf("%s\n", out);
	} else {
		cmd_fleet_print(id, &r, json);
		rc = 0;
	}
	fleet_result_free(&r);
	return rc;
}
