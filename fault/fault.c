/*
 * fault: test-only fault injection in the workers (grammar in fault.h).
 *
 * Design: PROVISOR_FAULT is parsed once, strictly, at fault_init into a
 * small read-only table, and a bit mask of the points that have a rule
 * for this worker; a point with no rule costs one test of that mask, and
 * with PROVISOR_FAULT unset nothing else runs, not even the shm hook.
 *
 * Counting survives restarts because the count lives in a file, not in
 * the process: firing rule i appends the byte 'a'+i to PROVISOR_FAULT_STATE
 * under flock(LOCK_EX), after checking that fewer than COUNT such bytes are
 * there. With a single rule that is "file size < COUNT". The lock is taken
 * on a fresh open file description each time, so it also orders threads of
 * one process and workers racing on the same file.
 *
 * The shm point: fault_init installs shm_latch_fault, which the latch
 * calls halfway through every copy of every status write. The hook acts
 * only when the calling thread said its next write is a begin
 * (fault_point(FAULT_SHM), called just before the begin), and only in
 * copy 0: the record is left with an odd sequence and a torn copy, the
 * state shm_slot_repair exists for. Readers meanwhile see the previous
 * record (the begin never became visible).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fault/fault.h"
#include "shm/latch.h"
#include "util/util.h"

#define FAULT_MAX_RULES 16
#define FAULT_INF 0		/* count meaning "every time" */

enum fault_action {
	FAULT_A_EXIT, FAULT_A_SEGV, FAULT_A_ABORT, FAULT_A_KILL,
	FAULT_A_HANG, FAULT_A_STOP, FAULT_A_CORRUPT, FAULT_A_HOSTILE, FAULT_A_FLIP, FAULT_A_HOLD,
};

struct fault_rule {
	const char *text;	/* as written, for the "fired" line */
	int mine;		/* WHO matches this worker */
	enum fault_point point;
	enum fault_action action;
	int code;		/* exit status for FAULT_A_EXIT */
	unsigned long count;	/* FAULT_INF or 1.. */
	unsigned long skip;	/* passes let go by before the first firing */
	atomic_int spent;	/* this process saw the count reached */
};

static struct {
	struct fault_rule rule[FAULT_MAX_RULES];
	int nrules;
	unsigned mask;		/* 1 << point for each point with a rule of ours */
	const char *state;	/* PROVISOR_FAULT_STATE */
	int state_fd;		/* it, open from fault_init on (finite rules only) */
} fault = { .state_fd = -1 };
static pthread_mutex_t fault_state_lock = PTHREAD_MUTEX_INITIALIZER;

/* The next latch write of this thread is a begin (fault_point(FAULT_SHM)). */
static _Thread_local int fault_shm_next;
/* The worker's "give it up" test for the hold action (fault_set_stop). */
static int (*fault_stop)(void *);
static void *fault_stop_arg;

static const char *const fault_point_names[FAULT_NPOINTS] = {
	"start", "before", "during", "after", "frame", "shm", "store",
};

/* A malformed PROVISOR_FAULT: one line naming the rule (NULL: the whole
 * variable) and what is wrong with it, then exit 1. */
static _Noreturn void fault_bad(const char *rule, const char *fmt, const char *what)
{
	if (rule)
		fprintf(stderr, "fault: PROVISOR_FAULT rule \"%s\": ", rule);
	else
		fprintf(stderr, "fault: PROVISOR_FAULT: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	exit(1);
}

/* Decimal 0..max, digits only: 0, or -1. */
static int fault_number(const char *s, unsigned long max, unsigned long *v)
{
	uint64_t u;

	if (util_num(s, UTIL_NUM_DIGITS, 0, max, &u))
		return -1;
	*v = (unsigned long)u;
	return 0;
}

/* WHO against this worker: 1 ours, 0 another's; a malformed WHO exits. */
static int fault_who(const char *rule, const char *who, const char *kind, unsigned slot)
{
	unsigned long n;
	size_t kl;

	if (!strcmp(who, "any"))
		return 1;
	if (strncmp(who, "gpu", 3) && strncmp(who, "synth", 5))
		fault_bad(rule, "unknown WHO \"%s\" (gpu.N, synth.N, gpu, synth or any)", who);
	kl = who[0] == 'g' ? 3 : 5;
	if (who[kl] == '\0')
		return !strncmp(who, kind, kl) && kind[kl] == '\0';
	if (who[kl] != '.' || fault_number(who + kl + 1, 65535, &n))
		fault_bad(rule, "unknown WHO \"%s\" (gpu.N, synth.N, gpu, synth or any)", who);
	return !strncmp(who, kind, kl) && kind[kl] == '\0' && n == slot;
}

static void fault_action(const char *rule, const char *a, struct fault_rule *r)
{
	static const char *const names[] = {
		"exit", "segv", "abort", "kill", "hang", "stop", "corrupt", "hostile", "flip", "hold",
	};
	unsigned long code;

	r->code = 4;
	if (!strncmp(a, "exit=", 5)) {
		if (fault_number(a + 5, 255, &code))
			fault_bad(rule, "bad exit code \"%s\" (0..255)", a + 5);
		r->action = FAULT_A_EXIT;
		r->code = (int)code;
		return;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(a, names[i])) {
			r->action = (enum fault_action)i;
			return;
		}
	fault_bad(rule, "unknown ACTION \"%s\" (exit[=CODE], segv, abort, kill, hang, "
		  "hold, stop, corrupt, hostile, flip)", a);
}

/* Parse one RULE (modified in place; text keeps a copy as written). */
static void fault_rule_parse(char *s, const char *kind, unsigned slot, struct fault_rule *r)
{
	char *f[4] = { 0 }, *p = s;
	int nf = 0;
	size_t i;

	r->text = strdup(s);
	if (!r->text) {
		fprintf(stderr, "fault: out of memory\n");
		exit(1);
	}
	while (p && nf < 4)
		f[nf++] = strsep(&p, ":");
	if (p || nf < 3 || !*f[0] || !*f[1] || !*f[2])
		fault_bad(r->text, "%snot WHO:POINT:ACTION[:COUNT]", "");
	r->mine = fault_who(r->text, f[0], kind, slot);
	for (i = 0; i < FAULT_NPOINTS && strcmp(f[1], fault_point_names[i]); i++)
		;
	if (i == FAULT_NPOINTS)
		fault_bad(r->text, "unknown POINT \"%s\" (start, before, during, after, "
			  "frame, shm, store)", f[1]);
	r->point = (enum fault_point)i;
	fault_action(r->text, f[2], r);
	if ((r->point == FAULT_FRAME) != (r->action == FAULT_A_CORRUPT || r->action == FAULT_A_HOSTILE))
		fault_bad(r->text, "%scorrupt and hostile go with the frame point, and only there", "");
	if ((r->point == FAULT_STORE) != (r->action == FAULT_A_FLIP))
		fault_bad(r->text, "%sflip goes with the store point, and only there", "");
	r->count = 1;
	char *at = f[3] ? strchr(f[3], '@') : NULL;
	if (at) {
		*at = '\0';
		if (fault_number(at + 1, 1000000, &r->skip) || r->skip == 0)
			fault_bad(r->text, "bad SKIP \"%s\" (1..1000000)", at + 1);
	}
	if (f[3] && !strcmp(f[3], "inf"))
		r->count = FAULT_INF;
	else if (f[3] && (fault_number(f[3], 1000000, &r->count) || r->count == 0))
		fault_bad(r->text, "bad COUNT \"%s\" (1..1000000 or inf)", f[3]);
}

/* ---- firing ---- */

/* One "fault: RULE fired" line in one write, safe inside the latch hook. */
static void fault_say(const struct fault_rule *r)
{
	char line[256];
	int n = snprintf(line, sizeof line, "fault: %s fired\n", r->text);

	if (n > (int)sizeof line - 1)
		n = (int)sizeof line - 1;
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		(void)0;	/* stderr gone: fire anyway */
}

/* Count one firing of rule i in the state file if COUNT allows: 1 fire,
 * 0 spent. A state file that cannot be used ends the process (exit 1):
 * a test must not silently lose its fault. */
static int fault_take_count(int i)
{
	struct fault_rule *r = &fault.rule[i];
	char tag = (char)('a' + i), pass = (char)('A' + i), buf[4096];
	unsigned long seen = 0, passed = 0;
	ssize_t n;
	int fd, fire;

	if (r->count == FAULT_INF && !r->skip)
		return 1;
	if (atomic_load(&r->spent))
		return 0;
	/* The file is opened once (fault_init, before the worker gave up its
	 * paths): flock excludes other processes, the mutex this one's
	 * threads, which share the open file. */
	pthread_mutex_lock(&fault_state_lock);
	fd = fault.state_fd;
	if (fd < 0 || flock(fd, LOCK_EX) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		goto fail;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t k = 0; k < n; k++) {
			seen += buf[k] == tag;
			passed += buf[k] == pass;
		}
	if (n < 0)
		goto fail;
	if (passed < r->skip) {	/* one more pass let go by */
		if (write(fd, &pass, 1) != 1)
			goto fail;
		flock(fd, LOCK_UN);
		pthread_mutex_unlock(&fault_state_lock);
		return 0;
	}
	fire = r->count == FAULT_INF || seen < r->count;
	if (fire && write(fd, &tag, 1) != 1)
		goto fail;
	if (r->count != FAULT_INF && seen + (unsigned long)fire >= r->count)
		atomic_store(&r->spent, 1);
	flock(fd, LOCK_UN);
	pthread_mutex_unlock(&fault_state_lock);
	return fire;
fail:
	fprintf(stderr, "fault: state file %s: %s\n", fault.state, strerror(errno));
	_exit(1);
}

/* The first rule of ours at p with firings left (and count it), or NULL. */
static struct fault_rule *fault_take(enum fault_point p)
{
	for (int i = 0; i < fault.nrules; i++) {
		struct fault_rule *r = &fault.rule[i];

		if (r->mine && r->point == p && fault_take_count(i))
			return r;
	}
	return NULL;
}

static void fault_act(const struct fault_rule *r)
{
	sigset_t set;

	fault_say(r);
	switch (r->action) {
	case FAULT_A_EXIT:
		_exit(r->code);
	case FAULT_A_SEGV:
		signal(SIGSEGV, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, SIGSEGV);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		raise(SIGSEGV);
		_exit(128 + SIGSEGV);	/* not reached */
	case FAULT_A_ABORT:
		abort();
	case FAULT_A_KILL:
		raise(SIGKILL);
		_exit(128 + SIGKILL);	/* not reached */
	case FAULT_A_HANG:
		/* Only this thread: the others (the heartbeat) go on. */
		for (;;)
			pause();
	case FAULT_A_HOLD:
		/* Until the worker is asked to give its work up (its stop
		 * hook, fault_set_stop), then on to the work's next safe
		 * point; with no hook it is a hang. */
		while (!fault_stop || !fault_stop(fault_stop_arg))
			usleep(1000);
		return;
	case FAULT_A_STOP:
		/* The whole process; after a SIGCONT it carries on as if
		 * nothing happened, as a stopped process would. */
		raise(SIGSTOP);
		return;
	case FAULT_A_CORRUPT:
	case FAULT_A_HOSTILE:
	case FAULT_A_FLIP:
		return;
	}
}

/* shm_latch_fault: halfway through a copy of some status write. */
static void fault_shm_hook(int where)
{
	struct fault_rule *r;

	if (where != SHM_FAULT_COPY0 || !fault_shm_next)
		return;
	fault_shm_next = 0;
	if ((r = fault_take(FAULT_SHM)) != NULL)
		fault_act(r);
}

/* ---- the interface ---- */

void fault_set_stop(int (*stop)(void *), void *arg)
{
	fault_stop_arg = arg;
	fault_stop = stop;
}

void fault_init(const char *kind, unsigned slot)
{
	const char *env = secure_getenv("PROVISOR_FAULT");
	char *copy, *p, *s;
	int finite = 0;

	if (!env || !*env)
		return;
	p = copy = strdup(env);	/* split in place; each rule keeps its own text */
	if (!copy) {
		fprintf(stderr, "fault: out of memory\n");
		exit(1);
	}
	while ((s = strsep(&p, ",")) != NULL) {
		struct fault_rule *r = &fault.rule[fault.nrules];

		if (fault.nrules == FAULT_MAX_RULES)
			fault_bad(NULL, "more than %s rules", "16");
		if (!*s)
			fault_bad(NULL, "%san empty rule (a stray comma?)", "");
		fault_rule_parse(s, kind, slot, r);
		finite |= r->count != FAULT_INF || r->skip;
		if (r->mine)
			fault.mask |= 1u << r->point;
		fault.nrules++;
	}
	free(copy);
	fault.state = secure_getenv("PROVISOR_FAULT_STATE");
	if (finite && (!fault.state || !*fault.state)) {
		fprintf(stderr, "fault: PROVISOR_FAULT has a finite COUNT but "
			"PROVISOR_FAULT_STATE is not set\n");
		exit(1);
	}
	/* Opened now: a worker confines itself (proto/confine.h) before its
	 * first fault point and could not open a test's file by then. */
	if (finite && (fault.state_fd = open(fault.state, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC,
					     0644)) < 0) {
		fprintf(stderr, "fault: state file %s: %s\n", fault.state, strerror(errno));
		exit(1);
	}
	if (fault.mask & (1u << FAULT_SHM))
		shm_latch_fault = fault_shm_hook;
}

void fault_point(enum fault_point p)
{
	struct fault_rule *r;

	if (!(fault.mask & (1u << p)))
		return;
	if (p == FAULT_SHM) {	/* the next status write here is a begin */
		fault_shm_next = 1;
		return;
	}
	if (p != FAULT_FRAME && p != FAULT_STORE && (r = fault_take(p)) != NULL)
		fault_act(r);
}

enum fault_frame fault_frame(void)
{
	struct fault_rule *r;

	if (!(fault.mask & (1u << FAULT_FRAME)) || !(r = fault_take(FAULT_FRAME)))
		return FAULT_FRAME_OK;
	fault_say(r);
	return r->action == FAULT_A_HOSTILE ? FAULT_FRAME_HOSTILE : FAULT_FRAME_CORRUPT;
}

int fault_store(void)
{
	struct fault_rule *r;

	if (!(fault.mask & (1u << FAULT_STORE)) || !(r = fault_take(FAULT_STORE)))
		return 0;
	fault_say(r);
	return 1;
}
