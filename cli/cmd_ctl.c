/*
 * The operator's commands that talk to a running supervisor through its
 * control socket: submit (and wait), cancel, drain, stop, worker
 * enable|disable, ping, resume.
 *
 * Design: every request line is built here and then run through the
 * supervisor's own parser (ctl_parse) before it is sent, so the CLI can
 * never send what the supervisor would refuse as malformed, and bad
 * arguments are reported locally (exit 2) without touching the socket.
 * The socket is found through the instance's status segment (its header
 * publishes control_path) unless --socket names it. Waiting for a job
 * reads the segment's job table, never the socket: it costs the
 * supervisor nothing and works while it is busy.
 *
 * Exit status: 0 ok, 1 the supervisor said err or could not be reached
 * (one "provisor: REASON" line on stderr), 2 bad arguments: among them a
 * --log-size above the supervisor's max_log_size, which only it knows
 * (the range checked here is 3..27; the supervisor's refusal of a larger
 * k is worded and exits as this one's).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "ctl/ctl.h"
#include "shm/shm.h"
#include "supervisor/run.h"
#include "util/text.h"

#define CMD_CTL_TIMEOUT_MS 5000
#define CMD_CTL_POLL_NS 50000000L	/* --wait polls the job table every 50 ms */
#define CMD_CTL_GRACE_NS 2000000000ull	/* a new job may take this long to appear */

/* Where to send: --socket, or the instance --name publishes; and whom
 * we expect to find serving it. */
struct cmd_ctl_target {
	const char *name;
	const char *socket;
	char path[sizeof ((struct shm_header *)0)->control_path + 1];
	pid_t pid;		/* the supervisor expected at the socket; 0 = any */
	uid_t uid;		/* and its uid */
	int any_trusted;	/* --socket: any peer that is us or root */
	struct ctl_peer peer;	/* who answered */
	char inst[SHM_NAME_MAX + 1];	/* --socket --wait: the instance behind it */
};

/* Who may answer: the supervisor the segment names, or (--socket) a
 * process of our own uid or root's. Asked before a byte is sent. */
static int cmd_ctl_vet(const struct ctl_peer *p, void *arg, char *err, size_t errlen)
{
	struct cmd_ctl_target *t = arg;

	t->peer = *p;
	if (t->any_trusted && (p->uid == getuid() || p->uid == 0) && (!t->pid || p->pid == t->pid))
		return 0;
	if (!t->any_trusted && p->pid == t->pid && p->uid == t->uid)
		return 0;
	if (t->pid)
		snprintf(err, errlen, "the socket %s is served by pid %d (uid %u), not by %s's "
			 "supervisor (pid %d, uid %u): refusing to talk to it", t->path, (int)p->pid,
			 (unsigned)p->uid, t->name, (int)t->pid, (unsigned)t->uid);
	else
		snprintf(err, errlen, "the socket %s is served by uid %u, neither you nor root: "
			 "refusing to talk to it", t->path, (unsigned)p->uid);
	return -EPERM;
}

/* The socket a segment publishes must be STATE/control.sock in a state
 * directory that the segment's owner owns and nobody else can write, a
 * socket of that owner, and (where we may read it) STATE/lock must name
 * this instance: 0, or 1 after saying why. */
static int cmd_ctl_check_path(const struct cmd_ctl_target *t)
{
	static const char tail[] = "/control.sock";
	char dir[sizeof t->path], lockp[sizeof t->path + 8], shown[300];
	size_t n = strlen(t->path);
	struct stat st;

	if (t->path[0] != '/' || n <= sizeof tail - 1 || strcmp(t->path + n - (sizeof tail - 1), tail) ||
	    strstr(t->path, "/../") || strstr(t->path, "/./") || strstr(t->path, "//") ||
	    !util_is_clean(t->path)) {
		fprintf(stderr, "provisor: instance '%s' publishes '%s' as its socket, not STATE/control.sock "
			"on a clean absolute path: refusing it\n", t->name,
			util_clean(shown, sizeof shown, t->path));
		return 1;
	}
	memcpy(dir, t->path, n - (sizeof tail - 1));
	dir[n - (sizeof tail - 1)] = '\0';
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != t->uid || (st.st_mode & 022)) {
		fprintf(stderr, "provisor: instance '%s': its state directory %s is not a directory of uid %u "
			"that only it can write: refusing its socket\n", t->name, dir, (unsigned)t->uid);
		return 1;
	}
	if (lstat(t->path, &st) < 0) {
		fprintf(stderr, "provisor: supervisor '%s' is not running (no control socket at %s: %s)\n",
			t->name, t->path, strerror(errno));
		return 1;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != t->uid) {
		fprintf(stderr, "provisor: %s is not a socket of uid %u: refusing it\n", t->path,
			(unsigned)t->uid);
		return 1;
	}
	snprintf(lockp, sizeof lockp, "%s/%s", dir, STATEDIR_LOCK);
	int fd = open(lockp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		char name[SHM_NAME_MAX + 2];
		unsigned pid;
		int ok = statedir_read_lock(fd, name, &pid) == 0 && !strcmp(name, t->name) &&
			 (pid_t)pid == t->pid;
		close(fd);
		if (!ok) {
			fprintf(stderr, "provisor: state directory %s is held by instance '%s' (pid %u), "
				"not by '%s' (pid %d): refusing its socket\n", dir,
				util_clean(shown, sizeof shown, name), pid, t->name, (int)t->pid);
			return 1;
		}
	} else if (errno != EACCES) {	/* a group member may not read it: the peer check holds */
		fprintf(stderr, "provisor: instance '%s': %s: %s\n", t->name, lockp, strerror(errno));
		return 1;
	}
	return 0;
}

/* Fill t->path and whom to expect there. 0, or 1 after printing why
 * there is nothing to talk to. */
static int cmd_ctl_find_socket(struct cmd_ctl_target *t)
{
	const struct shm_header *h;
	struct shm_seg seg;
	char err[256];
	int rc;

	if (t->socket) {
		snprintf(t->path, sizeof t->path, "%s", t->socket);
		t->any_trusted = 1;
		return 0;
	}
	rc = shm_open_ro(&seg, t->name, err, sizeof err);
	if (rc == -ENOENT) {
		fprintf(stderr, "provisor: no provisor instance '%s' is running\n", t->name);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "provisor: instance '%s': %s\n", t->name, err);
		return 1;
	}
	h = shm_hdr(&seg);
	memcpy(t->path, h->control_path, sizeof h->control_path);
	t->path[sizeof h->control_path] = '\0';
	t->pid = (pid_t)h->supervisor_pid;
	t->uid = seg.uid;
	rc = shm_health(&seg, 10ull * 1000000000, NULL) == SHM_HEALTH_NOT_RUNNING;
	shm_close(&seg);
	if (rc) {
		fprintf(stderr, "provisor: provisor instance '%s' is not running (its status segment is stale)\n",
			t->name);
		return 1;
	}
	if (!t->path[0]) {
		fprintf(stderr, "provisor: instance '%s' publishes no control socket\n", t->name);
		return 1;
	}
	return cmd_ctl_check_path(t);
}

/* Send line and read the reply. Returns 0 on "ok" with reply holding the
 * value after "ok " (or ""), else 1 after printing the reason (2 for a
 * submit's log size above the supervisor's max_log_size: a bad argument). */
static int cmd_ctl_send(struct cmd_ctl_target *t, const char *line, char *reply, size_t rlen)
{
	char err[512];
	const char *who;
	int rc;

	if (!t->path[0] && cmd_ctl_find_socket(t))
		return 1;
	who = t->socket ? t->socket : t->name;
	rc = ctl_call_vet(t->path, line, reply, rlen, CMD_CTL_TIMEOUT_MS, cmd_ctl_vet, t, err, sizeof err);
	if (rc == 0) {
		const char *v = reply[2] ? reply + 3 : reply + 2;
		memmove(reply, v, strlen(v) + 1);
		return 0;
	}
	unsigned k, lo, hi;
	if (rc == 1 && !strncmp(line, "submit ", 7) &&
	    sscanf(reply, "err log size %u is not a number in %u..%u", &k, &lo, &hi) == 3) {
		/* A k above this supervisor's max_log_size: the same bad argument
		 * as one outside 3..27, so the same line and exit status. */
		fprintf(stderr, "provisor submit: --log-size '%u' is not a number in %u..%u "
			"(the supervisor's max_log_size)\n", k, lo, hi);
		return 2;
	}
	if (rc == 1)
		fprintf(stderr, "provisor: %s\n", reply[3] ? reply + 4 : "error (no reason given)");
	else if (rc == -ETIMEDOUT)
		fprintf(stderr, "provisor: supervisor '%s' does not answer (%s)\n", who, err);
	else if (rc == -ENOENT || rc == -ECONNREFUSED)
		fprintf(stderr, "provisor: supervisor '%s' is not running (%s)\n", who, err);
	else
		fprintf(stderr, "provisor: %s: %s\n", who, err);
	return 1;
}

/* Check a line with the supervisor's own parser: 0, or 2 after saying why. */
static int cmd_ctl_check_line(const char *line)
{
	struct ctl_req req;
	char err[256];

	if (ctl_parse(line, strlen(line), &req, err, sizeof err)) {
		/* the parser's reasons already name the request: "cancel: ..." */
		fprintf(stderr, "provisor: %s\n", err);
		return 2;
	}
	return 0;
}

/* --name must be a valid instance name: 0, or 2 after saying why. */
static int cmd_ctl_check_name(const char *cmd, const char *name)
{
	char err[256];

	if (shm_name_check(name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor %s: --name: %s\n", cmd, err);
		return 2;
	}
	return 0;
}

static const struct option cmd_ctl_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "socket", required_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* cancel JOB, drain, stop, ping, worker enable|disable SLOT: the words
 * after the command name are the request's arguments, nargs of them. */
static int cmd_ctl_simple(int argc, char **argv, int nargs)
{
	struct cmd_ctl_target t = { .name = "default" };
	char line[CTL_MAX_LINE + 1], reply[8192];
	size_t off;
	int opt, rc;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'n': t.name = optarg; break;
		case 'S': t.socket = optarg; break;
		case 'h': return cli_help(argv[0]);
		default: return cli_bad_option(opt, argv);
		}
	}
	if (argc - optind != nargs)
		return cli_usage_error(argv[0], "expected %d argument%s", nargs, nargs == 1 ? "" : "s");
	off = (size_t)snprintf(line, sizeof line, "%s", argv[0]);
	for (int i = optind; i < argc && off < sizeof line; i++)
		off += (size_t)snprintf(line + off, sizeof line - off, " %s", argv[i]);
	if (off >= sizeof line - 1) {
		fprintf(stderr, "provisor %s: arguments too long\n", argv[0]);
		return 2;
	}
	if ((rc = cmd_ctl_check_line(line)) || (rc = cmd_ctl_check_name(argv[0], t.name)))
		return rc;
	if (cmd_ctl_send(&t, line, reply, sizeof reply))
		return 1;
	if (reply[0])
		printf("%s\n", reply);
	return 0;
}

static int cmd_cancel(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 1);
}

static int cmd_retry(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 1);
}

static int cmd_drain(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 0);
}

static int cmd_resume(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 0);
}

static int cmd_stop(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 0);
}

static int cmd_ping(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 0);
}

static int cmd_worker(int argc, char **argv)
{
	return cmd_ctl_simple(argc, argv, 2);
}

/* Find job id in the table: 1 and *out, 0 when it is not there. */
static int cmd_ctl_find_job(const struct shm_seg *seg, uint64_t id, struct shm_job *out)
{
	for (uint32_t i = 0; i < shm_count(seg, SHM_T_JOB); i++)
		if (!shm_read_job(seg, i, out) && out->id == id)
			return 1;
	return 0;
}

/* One look at the job: -1 still going (or not yet seen), else the exit
 * status after printing the outcome. */
static int cmd_ctl_job_outcome(const struct shm_job *j, uint64_t id, const char *result)
{
	char reason[sizeof j->reason + 1];

	memcpy(reason, j->reason, sizeof j->reason);
	reason[sizeof j->reason] = '\0';
	switch (j->state) {
	case SHM_JOB_QUEUED:
	case SHM_JOB_RUNNING:
		return -1;
	case SHM_JOB_DONE:
		printf("job %llu done: %s\n", (unsigned long long)id, result);
		return 0;
	case SHM_JOB_CANCELLED:
		printf("job %llu cancelled\n", (unsigned long long)id);
		return 1;
	default:
		printf("job %llu failed: %s\n", (unsigned long long)id, reason[0] ? reason : "no reason given");
		return 1;
	}
}

/* --wait: poll the job table until job id leaves queued/running. A job
 * the supervisor just acknowledged may not be in the table yet, so it is
 * missed only after a grace period, or once it had been seen. */
static int cmd_ctl_wait(const char *name, uint64_t id, const char *result)
{
	uint64_t start = shm_now_mono();
	struct shm_seg seg;
	struct shm_job j;
	char err[256];
	int seen = 0, rc;

	if (shm_open_ro(&seg, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor: cannot watch job %llu: %s\n", (unsigned long long)id, err);
		return 1;
	}
	for (;;) {
		enum shm_health h = shm_health(&seg, 10ull * 1000000000, NULL);

		if (h == SHM_HEALTH_RESTARTED) {	/* a restarted supervisor resumes the job */
			shm_close(&seg);
			if (shm_open_ro(&seg, name, err, sizeof err) < 0)
				h = SHM_HEALTH_NOT_RUNNING;
			else
				continue;
		}
		if (h == SHM_HEALTH_NOT_RUNNING) {
			fprintf(stderr, "provisor: supervisor '%s' is not running; job %llu did not finish\n",
				name, (unsigned long long)id);
			rc = 1;
			break;
		}
		if (cmd_ctl_find_job(&seg, id, &j)) {
			seen = 1;
			if ((rc = cmd_ctl_job_outcome(&j, id, result)) >= 0)
				break;
		} else if (seen || shm_now_mono() - start > CMD_CTL_GRACE_NS) {
			fprintf(stderr, "provisor: job %llu is no longer in the status table of '%s'\n",
				(unsigned long long)id, name);
			rc = 1;
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = CMD_CTL_POLL_NS }, NULL);
	}
	if (seg.base)
		shm_close(&seg);
	return rc;
}

struct cmd_ctl_submit {
	const char *kind, *seed, *k, *parts;
	const char *fleet, *priority, *deadline;	/* --fleet DSN and its own options */
	int wait, named, proofs;
	struct cmd_ctl_target t;
};

static const struct option cmd_submit_options[] = {
	{ "kind", required_argument, NULL, 'K' },
	{ "seed", required_argument, NULL, 's' },
	{ "log-size", required_argument, NULL, 'k' },
	{ "partitions", required_argument, NULL, 'p' },
	{ "wait", no_argument, NULL, 'w' },
	{ "name", required_argument, NULL, 'n' },
	{ "socket", required_argument, NULL, 'S' },
	{ "fleet", required_argument, NULL, 'F' },
	{ "priority", required_argument, NULL, 'P' },
	{ "deadline", required_argument, NULL, 'D' },
	{ "proofs", no_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

/* Flags into s: 0, or 2 after saying what is wrong. */
static int cmd_ctl_submit_args(int argc, char **argv, struct cmd_ctl_submit *s)
{
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'K': s->kind = optarg; break;
		case 's': s->seed = optarg; break;
		case 'k': s->k = optarg; break;
		case 'p': s->parts = optarg; break;
		case 'w': s->wait = 1; break;
		case 'n': s->t.name = optarg; s->named = 1; break;
		case 'S': s->t.socket = optarg; s->named = 1; break;
		case 'F': s->fleet = optarg; break;
		case 'P': s->priority = optarg; break;
		case 'D': s->deadline = optarg; break;
		case 'R': s->proofs = 1; break;
		case 'h': exit(cli_help("submit"));
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!s->kind)
		return cli_usage_error("submit", "missing --kind");
	if (s->fleet && s->named)
		return cli_usage_error("submit", "--fleet queues the job in the fleet's database: --name and "
				       "--socket name one instance");
	if (!s->fleet && (s->priority || s->deadline || s->proofs))
		return cli_usage_error("submit", "--priority, --deadline and --proofs are for --fleet (an instance "
				       "orders jobs by its kinds' priority, and proves the kinds with params)");
	return cmd_ctl_check_name("submit", s->t.name);
}

/* One optional flag, checked by parsing "submit KIND KEY=VAL" with the
 * supervisor's parser: 0, or 2 after saying what a good value is. */
static int cmd_ctl_submit_flag(const char *kind, const char *key, const char *flag,
			       const char *val, const char *what)
{
	char probe[CTL_MAX_LINE + 1], err[256], shown[64];
	struct ctl_req req;

	if (!val)
		return 0;
	snprintf(probe, sizeof probe, "submit %s %s=%s", kind, key, val);
	if (ctl_parse(probe, strlen(probe), &req, err, sizeof err)) {
		fprintf(stderr, "provisor submit: %s '%s' is not %s\n", flag, util_clean(shown, sizeof shown, val), what);
		return 2;
	}
	return 0;
}

/* The request line from the flags, each checked with its own message. */
static int cmd_ctl_submit_line(const struct cmd_ctl_submit *s, char *line, size_t len)
{
	char shown[64];
	uint32_t kind;
	int n;

	if (vocab_kind_parse(s->kind, &kind)) {
		fprintf(stderr, "provisor submit: unknown --kind '%s' (winning-post, window-post, snap-deals or porep)\n",
			util_clean(shown, sizeof shown, s->kind));
		return 2;
	}
	if (cmd_ctl_submit_flag(s->kind, "seed", "--seed", s->seed, "hex of 1 to 32 bytes") ||
	    cmd_ctl_submit_flag(s->kind, "k", "--log-size", s->k, "a number in " VOCAB_STR(VOCAB_LOG_MIN) ".." VOCAB_STR(VOCAB_LOG_MAX)) ||
	    cmd_ctl_submit_flag(s->kind, "partitions", "--partitions", s->parts, "a number in 1.." VOCAB_STR(VOCAB_MAX_PARTS)))
		return 2;
	n = snprintf(line, len, "submit %s%s%s%s%s%s%s", s->kind,
		     s->seed ? " seed=" : "", s->seed ? s->seed : "",
		     s->k ? " k=" : "", s->k ? s->k : "",
		     s->parts ? " partitions=" : "", s->parts ? s->parts : "");
	if (n < 0 || (size_t)n >= len || cmd_ctl_check_line(line))
		return 2;
	return 0;
}

/* --socket with --wait: ask the socket's supervisor its instance name
 * ("hello"), and check that the segment of that name is the one this
 * very process publishes; from then on only that pid may take the job.
 * 0, or 1 after saying why. */
static int cmd_ctl_whoami(struct cmd_ctl_target *t)
{
	char reply[256], err[256], *end;
	struct shm_seg seg;
	long pid;
	int rc;

	if (cmd_ctl_send(t, "hello", reply, sizeof reply))
		return 1;
	end = strchr(reply, ' ');
	if (!end || (*end++ = '\0', cli_parse_int(end, 1, INT32_MAX, &pid) < 0) ||
	    shm_name_check(reply, err, sizeof err) < 0) {
		fprintf(stderr, "provisor: unexpected reply to hello from %s\n", t->path);
		return 1;
	}
	snprintf(t->inst, sizeof t->inst, "%.*s", SHM_NAME_MAX, reply);
	t->name = t->inst;
	if ((rc = shm_open_ro(&seg, t->name, err, sizeof err)) < 0) {
		fprintf(stderr, "provisor: cannot watch instance '%s' behind %s: %s; nothing submitted\n",
			t->name, t->path, err);
		return 1;
	}
	rc = (pid_t)shm_hdr(&seg)->supervisor_pid != (pid_t)pid || t->peer.pid != (pid_t)pid ||
	     seg.uid != t->peer.uid;
	shm_close(&seg);
	if (rc) {
		fprintf(stderr, "provisor: %s is served by pid %d, but instance '%s''s segment names "
			"another supervisor: nothing submitted\n", t->path, (int)t->peer.pid, t->name);
		return 1;
	}
	t->pid = (pid_t)pid;
	return 0;
}

/* provisor submit: prints the job id; with --wait, then the outcome. */
static int cmd_submit(int argc, char **argv)
{
	struct cmd_ctl_submit s = { .t = { .name = "default" } };
	char line[CTL_MAX_LINE + 1], reply[8192], *end;
	unsigned long long id;
	int rc;

	if ((rc = cmd_ctl_submit_args(argc, argv, &s)) || (rc = cmd_ctl_submit_line(&s, line, sizeof line)))
		return rc;
	if (s.fleet)	/* the flags checked as for an instance; the database takes it */
		return cmd_fleet_submit(&(struct cmd_fleet_job){ .dsn = s.fleet, .kind = s.kind, .seed = s.seed,
				.k = s.k, .parts = s.parts, .priority = s.priority, .deadline = s.deadline, .wait = s.wait,
				.proofs = s.proofs });
	/* --wait watches the instance that takes the job: known before it is
	 * sent, so that a job is never accepted unwatched (a script that
	 * retries on failure would submit it twice). */
	if (s.wait && s.t.socket && cmd_ctl_whoami(&s.t))
		return 1;
	if ((rc = cmd_ctl_send(&s.t, line, reply, sizeof reply)))
		return rc;
	/* "JOB_ID RESULT_PATH" */
	errno = 0;
	id = strtoull(reply, &end, 10);
	if (errno || !id || end == reply || *end != ' ' || !end[1]) {
		fprintf(stderr, "provisor: unexpected reply to submit: 'ok %s'\n", reply);
		return 1;
	}
	printf("%llu\n", id);
	fflush(stdout);	/* a script reading the id must not wait for the job */
	return s.wait ? cmd_ctl_wait(s.t.name, id, end + 1) : 0;
}

const struct cli_entry cli_cmd_submit = {
	.name = "submit",
	.usage = "submit --kind KIND [--seed HEX] [--log-size K] [--partitions N] [--wait] "
		  "[--name NAME] [--socket PATH] [--fleet DSN [--priority N] [--deadline DURATION] [--proofs]]",
	.help = "Submit a job to the instance and print its id.\n"
		"  --kind KIND       the job's kind (required; see below)\n"
		"  --seed HEX        the job's seed, 1 to 32 bytes of hex (default: 16 random bytes)\n"
		"  --log-size K      2^K rows per partition, " VOCAB_STR(VOCAB_LOG_MIN) " to "
		VOCAB_STR(VOCAB_LOG_MAX) ", and at most the\n"
		"                    supervisor's max_log_size (default: the kind's log_size)\n"
		"  --partitions N    partitions in the job, 1 to " VOCAB_STR(VOCAB_MAX_PARTS)
		" (default: the kind's partitions)\n"
		"  --wait            then wait for the job and print 'job ID done: PATH', 'job ID\n"
		"                    failed: REASON' or 'job ID cancelled'; exit 0 only when done\n"
		CLI_HELP_NAME CLI_HELP_SOCKET CLI_HELP_FLEET
		"  --priority N      --fleet: lower runs first, 0 to 255 (default: the kind's\n"
		"                    built-in priority: 0, 1, 2, 2 in the order below)\n"
		"  --deadline DURATION  --fleet: due within DURATION (30s, 10m, 2h); among jobs\n"
		"                    of one priority the earliest deadline is claimed first\n"
		"  --proofs          --fleet: only a node whose kind has params (at this k)\n"
		"                    takes it: it ends in proofs (default: whichever node)\n"
		"With --fleet the job is queued in the fleet's database for any node, with\n"
		"the built-in kinds' log_size and partitions unless given, and --wait\n"
		"prints 'job ID done by NODE'.\n"
		CLI_HELP_KINDS
		"Exit status: 0 ok, 1 refused by the supervisor or not reachable, 2 a bad\n"
		"argument (also a --log-size above the supervisor's max_log_size).\n",
	.options = cmd_submit_options,
	.optstring = ":h",
	.exec = cmd_submit,
};

const struct cli_entry cli_cmd_cancel = {
	.name = "cancel",
	.usage = "cancel JOB [--name NAME] [--socket PATH]",
	.help = "Cancel job JOB: its queued partitions are dropped, its running ones\n"
		"abandoned; it ends in the state cancelled (counted apart from failed).\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_cancel,
};

const struct cli_entry cli_cmd_retry = {
	.name = "retry",
	.usage = "retry JOB [--name NAME] [--socket PATH]",
	.help = "Queue failed or cancelled job JOB again: the partitions it had done\n"
		"are kept and only the others are computed. Journaled before the\n"
		"answer, so a restarted supervisor resumes it. Refused for a job that is\n"
		"done, queued, running or unknown, and while draining. Prints the job's\n"
		"id and the path its result will have.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_retry,
};

const struct cli_entry cli_cmd_drain = {
	.name = "drain",
	.usage = "drain [--name NAME] [--socket PATH]",
	.help = "Take no new jobs (submit is refused) and let the accepted ones finish.\n"
		"The supervisor stays up, in the state draining, also once every job has\n"
		"ended: 'provisor resume' takes jobs again, 'provisor stop' stops it.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_drain,
};

const struct cli_entry cli_cmd_stop = {
	.name = "stop",
	.usage = "stop [--name NAME] [--socket PATH]",
	.help = "Stop the supervisor: no new work; partitions in flight may finish\n"
		"within stop_timeout, then the workers are stopped. Unfinished jobs stay\n"
		"in the journal for the next start.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_stop,
};

const struct cli_entry cli_cmd_worker = {
	.name = "worker",
	.usage = "worker enable|disable gpu.N|synth.N [--name NAME] [--socket PATH]",
	.help = "Disable a worker slot (its worker finishes what it holds and is stopped;\n"
		"the work goes elsewhere) or enable it again. Slots are named as status\n"
		"and top show them: gpu.N or synth.N.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_worker,
};

const struct cli_entry cli_cmd_ping = {
	.name = "ping",
	.usage = "ping [--name NAME] [--socket PATH]",
	.help = "Check that the supervisor answers on its control socket.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_ping,
};

const struct cli_entry cli_cmd_resume = {
	.name = "resume",
	.usage = "resume [--name NAME] [--socket PATH]",
	.help = "End a drain: the supervisor takes jobs again (state running). Resuming\n"
		"a supervisor that is not draining does nothing; one that is stopping\n"
		"cannot be resumed.\n"
		CLI_HELP_NAME CLI_HELP_SOCKET,
	.options = cmd_ctl_options,
	.optstring = ":n:S:h",
	.exec = cmd_resume,
};
