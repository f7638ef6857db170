/*
 * The commands that read what an instance did, without talking to it:
 *
 *   provisor jobs [--state S] [--kind K]   the job table, one line a job
 *   provisor result JOB                    a done job's result path
 *   provisor log [-f]                      the supervisor's log file
 *
 * jobs and result read the status segment (tui/snap.h), as `status` does:
 * they answer while the supervisor is busy, and cost it nothing.
 *
 * The state directory, for result and log: the directory of the control
 * socket the running instance publishes in its segment (the supervisor
 * puts the socket, the results and the log there); for an instance that
 * is not running, log falls back to --state-dir, else the default state
 * directory of --name (conf_finish: /var/lib/provisor/NAME for root,
 * $XDG_STATE_HOME/provisor/NAME otherwise).
 *
 * Exit status: 0 ok; 1 nothing to show (no such instance, job not done,
 * no log file), with one line on stderr; 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "conf/conf.h"
#include "format/pfile.h"
#include "groth16/groth16.h"
#include "supervisor/run.h"
#include "tui/fmt.h"
#include "tui/snap.h"
#include "tui/status.h"
#include "util/text.h"
#include "util/util.h"
#include "util/vocab.h"

/* One snapshot of instance name into s: 0, or 1 after saying why not. */
static int cmd_jobs_snap(const char *cmd, const char *name, struct snap_reader *r, struct snap *s)
{
	char err[256];

	if (snap_reader_init(r, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor %s: %s\n", cmd, err);
		return 1;
	}
	if (snap_take(r, s) < 0) {
		fprintf(stderr, "provisor %s: %s\n", cmd, s->err[0] ? util_clean(err, sizeof err, s->err) :
			"out of memory");
		snap_free(s);
		snap_reader_close(r);
		return 1;
	}
	return 0;
}

static int cmd_jobs_state(const char *word, uint32_t *st)
{
	for (uint32_t i = SHM_JOB_QUEUED; i < SHM_JOB_NSTATES; i++)
		if (!strcmp(word, fmt_job_state(i))) {
			*st = i;
			return 0;
		}
	return -1;
}

static const struct option cmd_jobs_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "state", required_argument, NULL, 's' },
	{ "kind", required_argument, NULL, 'K' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* "ID KIND STATE DONE/N PROGRESS ELAPSED ETA REASON": words, "-" for
 * none, so that awk reads it; the reason last, whole. */
static void cmd_jobs_line(const struct snap_job *j)
{
	const struct shm_job *v = &j->v;
	char kb[16], el[16], eta[16], parts[24], why[4 * sizeof v->reason];

	fmt_dur(el, sizeof el, j->elapsed_ns);
	if (j->eta_ns >= 0 && !status_job_ended(v->state))
		fmt_dur(eta, sizeof eta, (uint64_t)j->eta_ns);
	else
		snprintf(eta, sizeof eta, "-");
	snprintf(parts, sizeof parts, "%u/%u", j->count[SHM_PART_DONE], v->nparts);
	printf("%-7" PRIu64 " %-12s %-8s %-9s %-7s %4.0f%% %-8s %-8s %s\n", v->id,
	       fmt_kind(v->kind, kb, sizeof kb), fmt_output(v->output),
	       fmt_job_state(v->state), parts, j->progress * 100, el,
	       eta, v->reason[0] ? util_cleann(why, sizeof why, v->reason, sizeof v->reason) : "-");
}

static int cmd_jobs(int argc, char **argv)
{
	const char *name = "default";
	uint32_t state = 0, kind = 0;
	struct snap_reader r;
	struct snap s = { 0 };
	int opt, n = 0;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 's':
			if (cmd_jobs_state(optarg, &state))
				return cli_usage_error("jobs", "--state '%s' is not queued, running, done, "
						       "failed, cancelled or blocked", optarg);
			break;
		case 'K':
			if (vocab_kind_parse(optarg, &kind))
				return cli_usage_error("jobs", "unknown --kind '%s' (winning-post, window-post, "
						       "snap-deals or porep)", optarg);
			break;
		case 'h': return cli_help("jobs");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (cmd_jobs_snap("jobs", name, &r, &s))
		return 1;
	printf("%-7s %-12s %-8s %-9s %-7s %5s %-8s %-8s %s\n", "JOB", "KIND", "OUTPUT", "STATE", "PARTS", "DONE",
	       "ELAPSED", "ETA", "REASON");
	for (uint32_t i = 0; i < s.njobs; i++)
		if ((!state || s.jobs[i].v.state == state) && (!kind || s.jobs[i].v.kind == kind)) {
			cmd_jobs_line(&s.jobs[i]);
			n++;
		}
	if (s.jobs_unreadable)
		fprintf(stderr, "provisor jobs: %u job records unreadable\n", s.jobs_unreadable);
	snap_free(&s);
	snap_reader_close(&r);
	return fflush(stdout) ? 1 : 0;
}

static const struct option cmd_result_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ "path", no_argument, NULL, 'p' },
	{ "fleet", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static void hex(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* A done job's result at path: its path, and for a proofs or proofs+H
 * file every proof (--json: one object, proofs as hex). The file is read
 * a proof at a time: a proofs+H file's H (4 GiB a partition at k = 27)
 * is not read at all. Each proof printed is decoded, so its own checksum
 * and points hold; a proofs file's regions are held to their digests too
 * (a proofs+H region's digest covers its H: provisor verify checks that).
 * 0, or 1 with one line. */
static int result_print(const char *path, int json, int path_only)
{
	uint8_t r[PFILE_PROOF_REGION];
	struct pfile_result res;
	struct pfile_proofs *pf;
	enum pfile_kind kind;
	uint32_t fkind;
	char err[512];

	if (path_only || (!json && (pfile_probe(path, &kind, err, sizeof err) || !pfile_kind_has_proofs(kind)))) {
		printf("%s\n", path);
		return 0;
	}
	if (pfile_probe(path, &kind, err, sizeof err) || !pfile_kind_has_proofs(kind)) {
		if (!err[0] || !pfile_kind_has_proofs(kind))
			snprintf(err, sizeof err, "%s: holds H, not proofs (its kind has no params)", path);
		fprintf(stderr, "provisor result: %s\n", err);
		return 1;
	}
	if (pfile_proofs_open(path, &res, &fkind, &pf, err, sizeof err)) {
		fprintf(stderr, "provisor result: %s\n", err);
		return 1;
	}
	if (json) {
		printf("{\"job\":%llu,\"kind\":\"%s\",\"k\":%u,\"output\":\"%s\",\"file\":\"",
		       (unsigned long long)res.job_id, vocab_kind_name(res.job_kind), res.id.k,
		       fkind == PFILE_KIND_PROOFS_H ? "proofs+h" : "proofs");
		for (const char *c = path; *c; c++)	/* a state directory's path: no control bytes */
			printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
		printf("\",\"seed\":\"");
		hex(res.id.seed, res.id.seed_len);
		printf("\",\"proofs\":[");
	} else {
		printf("%s\n", path);
	}
	for (uint32_t p = 0; p < res.partitions; p++) {
		struct groth16_proof_file f;
		uint8_t x[2][32];

		if (pfile_proofs_proof(pf, p, r, err, sizeof err)) {
			fprintf(stderr, "%sprovisor result: %s\n", json ? "\n" : "", err);
			pfile_proofs_close(pf);
			return 1;
		}
		if (groth16_proof_decode(&f, r, PFILE_PROOF_REGION, err, sizeof err)) {
			fprintf(stderr, "%sprovisor result: %s: partition %u: %s\n", json ? "\n" : "", path, p, err);
			pfile_proofs_close(pf);
			return 1;
		}
		fr_to_bytes(x[0], &f.x[0]);
		fr_to_bytes(x[1], &f.x[1]);
		if (json)
			printf("%s{\"partition\":%u,\"x0\":\"", p ? "," : "", p);
		else
			printf("partition %u x0 ", p);
		hex(x[0], 32);
		printf(json ? "\",\"xout\":\"" : " xout ");
		hex(x[1], 32);
		printf(json ? "\",\"proof\":\"" : " proof ");
		hex(r, PFILE_PROOF_REGION);
		if (json && fkind == PFILE_KIND_PROOFS_H)	/* where its H is, for whoever wants it */
			printf("\",\"h_offset\":%llu,\"h_bytes\":%llu}",
			       (unsigned long long)(pfile_res_part_off(fkind, res.id.k, p) + PFILE_PROOF_REGION),
			       (unsigned long long)((uint64_t)FR_BYTES << res.id.k));
		else
			printf(json ? "\"}" : "\n");
	}
	if (json)
		printf("]}\n");
	pfile_proofs_close(pf);
	return 0;
}

static int cmd_result(int argc, char **argv)
{
	const char *name = "default", *fleet = NULL, *out = NULL;
	char path[200], why[300];
	struct snap_reader r;
	struct snap s = { 0 };
	struct stat st;
	int opt, rc = 1, json = 0, path_only = 0;
	long id;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'j': json = 1; break;
		case 'p': path_only = 1; break;
		case 'F': fleet = optarg; break;
		case 'o': out = optarg; break;
		case 'h': return cli_help("result");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("result", "expected 1 argument, the job id");
	if (cli_parse_int(argv[optind], 1, INT64_MAX, &id) < 0)
		return cli_usage_error("result", "'%s' is not a job id", argv[optind]);
	if (out && !fleet)
		return cli_usage_error("result", "--output is for --fleet: an instance's result is a file already");
	if (fleet)	/* the fleet's database: cli/cmd_fleet.c */
		return path_only ? cli_usage_error("result", "--path is for an instance: a fleet's result is in "
						   "its database") : cmd_fleet_result(fleet, (uint64_t)id, json, out);
	if (cmd_jobs_snap("result", name, &r, &s))
		return 1;
	if (status_result_path(&s, (uint64_t)id, path, sizeof path) < 0) {
		fprintf(stderr, "provisor result: instance '%s' publishes no state directory\n", name);
		goto out;
	}
	for (uint32_t i = 0; i < s.njobs; i++) {
		const struct shm_job *v = &s.jobs[i].v;
		if (v->id != (uint64_t)id)
			continue;
		if (v->state == SHM_JOB_DONE) {
			rc = result_print(path, json, path_only);
		} else {
			fprintf(stderr, "provisor result: job %ld is %s%s%s, not done\n", id,
				fmt_job_state(v->state), v->reason[0] && v->state != SHM_JOB_CANCELLED ? ": " : "",
				v->reason[0] && v->state != SHM_JOB_CANCELLED ?
				util_cleann(why, sizeof why, v->reason, sizeof v->reason) : "");
		}
		goto out;
	}
	/* Gone from the table (it keeps the recent jobs): its file says. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		rc = result_print(path, json, path_only);
	else
		fprintf(stderr, "provisor result: no job %ld in instance '%s' (and no %s)\n", id, name, path);
out:
	snap_free(&s);
	snap_reader_close(&r);
	return rc;
}

static const struct option cmd_log_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "state-dir", required_argument, NULL, 'd' },
	{ "follow", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* The state directory of instance name: from its segment while it runs,
 * else the default (conf_finish). 0, or -1 (a bad name, said). */
int cli_state_dir(const char *name, char *dir, size_t len)
{
	struct snap_reader r;
	struct snap s = { 0 };
	struct conf c;
	char err[256];

	if (snap_reader_init(&r, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor log: %s\n", err);
		return -1;
	}
	if (snap_take(&r, &s) == 0 && s.control_path[0] && strrchr(s.control_path, '/') != s.control_path) {
		snprintf(dir, len, "%.*s", (int)(strrchr(s.control_path, '/') - s.control_path),
			 s.control_path);
	} else {
		conf_defaults(&c);
		snprintf(c.name, sizeof c.name, "%s", name);
		conf_finish(&c);
		snprintf(dir, len, "%s", c.state_dir);
	}
	snap_free(&s);
	snap_reader_close(&r);
	return 0;
}

/* Copy fd to stdout from where it is: 0, or -1 on an error. A byte
 * outside printable ASCII (but newline and tab) shows as \xNN, as in the
 * status views: no escape sequence in a logged text reaches the terminal. */
static int cmd_log_copy(int fd)
{
	unsigned char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			unsigned char b = buf[i];
			if ((b >= 0x20 && b < 0x7f) || b == '\n' || b == '\t')
				putchar(b);
			else
				printf("\\x%02x", b);
		}
	if (fflush(stdout) || ferror(stdout))
		return -1;
	return n < 0 ? -1 : 0;
}

static int cmd_log(int argc, char **argv)
{
	const char *name = "default", *sdir = NULL;
	char dir[PATH_MAX], path[PATH_MAX + 8], err[PATH_MAX + 256], shown[PATH_MAX], nshown[128];
	int opt, follow = 0, fd, dfd;
	struct stat st, now;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'd': sdir = optarg; break;
		case 'f': follow = 1; break;
		case 'h': return cli_help("log");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (sdir)
		snprintf(dir, sizeof dir, "%s", sdir);
	else if (cli_state_dir(name, dir, sizeof dir) < 0)
		return 2;
	/* The state directory's checks (as the supervisor's, but root's will
	 * do too), then the log through the directory's descriptor, never
	 * through a link, and only a regular file: what another user made
	 * cannot point root's log at /etc/shadow, a FIFO or /dev/zero. */
	if (statedir_absolute(dir, sizeof dir, err, sizeof err) < 0 ||
	    statedir_check_reader(dir, err, sizeof err) < 0) {
		fprintf(stderr, "provisor log: %s\n", util_clean(shown, sizeof shown, err));
		return 1;
	}
	snprintf(path, sizeof path, "%s/%s", dir, SUP_LOG_FILE);
	util_clean(shown, sizeof shown, path);
	util_clean(nshown, sizeof nshown, name);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "provisor log: no log file %s (%s); under systemd the supervisor logs to "
			"the journal: journalctl -u provisor@%s\n", shown, strerror(errno), nshown);
		return 1;
	}
	fd = util_openat_regular(dfd, SUP_LOG_FILE, path, O_NOFOLLOW, err, sizeof err);
	if (fd == -ENOENT) {
		fprintf(stderr, "provisor log: no log file %s (%s); under systemd the supervisor logs to "
			"the journal: journalctl -u provisor@%s\n", shown, strerror(-fd), nshown);
		close(dfd);
		return 1;
	}
	if (fd < 0) {
		fprintf(stderr, "provisor log: %s\n", util_clean(shown, sizeof shown, err));
		close(dfd);
		return 1;
	}
	if (cmd_log_copy(fd) < 0) {
		fprintf(stderr, "provisor log: %s: %s\n", shown, strerror(errno));
		close(fd);
		close(dfd);
		return 1;
	}
	/* -f: poll for more; when the supervisor rotated the file (a new
	 * inode at the name), go on with the new one from its start, opened
	 * as the first was. */
	while (follow) {
		nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
		if (cmd_log_copy(fd) < 0)
			break;
		if (fstatat(dfd, SUP_LOG_FILE, &now, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &st) == 0 &&
		    (now.st_ino != st.st_ino || now.st_dev != st.st_dev)) {
			int nfd = util_openat_regular(dfd, SUP_LOG_FILE, path, O_NOFOLLOW, err, sizeof err);
			if (nfd >= 0) {
				cmd_log_copy(fd);	/* the old file's last lines */
				close(fd);
				fd = nfd;
			} else if (nfd != -ENOENT) {
				fprintf(stderr, "provisor log: %s\n", util_clean(shown, sizeof shown, err));
				break;
			}
		}
	}
	close(fd);
	close(dfd);
	return follow ? 1 : 0;
}

const struct cli_entry cli_cmd_jobs = {
	.name = "jobs",
	.usage = "jobs [--state STATE] [--kind KIND] [--name NAME]",
	.help = "List the instance's jobs (its status segment's job table: the active\n"
		"and the recent ones), one line each: id, kind, output (proofs for a\n"
		"kind with params, else h), state, partitions done,\n"
		"progress, elapsed time, ETA (\"-\" once it ended), and the reason of a\n"
		"failed, cancelled or blocked job.\n"
		"  --state STATE  only jobs in STATE: queued, running, done, failed,\n"
		"                 cancelled or blocked (default: every state)\n"
		"  --kind KIND    only jobs of KIND (default: every kind)\n"
		CLI_HELP_NAME CLI_HELP_KINDS,
	.options = cmd_jobs_options,
	.optstring = ":h",
	.exec = cmd_jobs,
};

const struct cli_entry cli_cmd_result = {
	.name = "result",
	.usage = "result JOB [--json | --path] [--name NAME] [--fleet DSN [--output FILE]]",
	.help = "Print the path of job JOB's result file, STATE/results/job-JOB.result,\n"
		"where STATE is the state directory of the running instance (the one\n"
		"its control socket is in); for a kind with params, then one line per\n"
		"partition: its public inputs x0 and xout and its 376-byte proof file,\n"
		"in hex (the same with keep_h: the H stays in the file). Exit 1 with\n"
		"one line when the job is not done (queued, running, failed, cancelled,\n"
		"blocked) or unknown.\n"
		"  --json    the proofs as one JSON object (job, kind, k, output, file,\n"
		"            seed, proofs: partition, x0, xout, proof; hex; with keep_h\n"
		"            also h_offset and h_bytes, where its H is in the file)\n"
		"  --path    only the path\n"
		CLI_HELP_NAME CLI_HELP_FLEET
		"  --output FILE  --fleet: write a proofs job's proofs file there (for\n"
		"            provisor verify --params); without it the job's node, epoch\n"
		"            and proofs (or H digest and location) are printed\n",
	.options = cmd_result_options,
	.optstring = ":h",
	.exec = cmd_result,
};

const struct cli_entry cli_cmd_log = {
	.name = "log",
	.usage = "log [-f] [--name NAME] [--state-dir DIR]",
	.help = "Print the supervisor's log file, STATE/log (the last rotation is\n"
		"STATE/log.1). A supervisor run outside systemd writes it, besides\n"
		"standard error; under systemd it logs to the journal only:\n"
		"use journalctl -u provisor@NAME there.\n"
		"  -f, --follow       keep printing what is appended (until interrupted)\n"
		"  --state-dir DIR    the state directory (default: the running instance's,\n"
		"                     else NAME's default, see below)\n"
		CLI_HELP_NAME CLI_HELP_STATE,
	.options = cmd_log_options,
	.optstring = ":fh",
	.exec = cmd_log,
};
