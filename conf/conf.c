/*
 * conf: built-in defaults, an INI file read through inih, and the checks
 * that keep a bad configuration from ever reaching the supervisor.
 *
 * Design: inih does the INI syntax; this file only says what each key
 * means. The file is applied to a copy of the caller's struct, which is
 * copied back only when the whole file parsed and the result passed
 * conf_check: a refused file changes nothing. The first problem wins and
 * is reported as "FILE:LINE: reason" (or "FILE: reason" for a problem
 * that is about the file as a whole, such as k above max_log_size).
 *
 * Debian's inih is built without line numbers in the handler, with
 * parsing continuing after an error, and with a fixed line buffer. So
 * lines come through our own reader, which counts them (the handler's
 * line is the reader's), refuses over-long lines and NUL bytes instead of
 * letting inih split them, and checks section names as soon as it sees
 * them (an empty unknown section is still refused, on its own line).
 */
#include <errno.h>
#include <grp.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "util/text.h"
#include "shm/shm.h"
#include "util/util.h"

#define CONF_LINE_MAX 4096	/* our read buffer; inih's own limit is smaller */

struct conf_ctx {
	struct conf c;		/* the copy being built */
	const char *path;
	FILE *f;
	char *buf;		/* getline buffer */
	size_t bufcap;
	int line;		/* of the last line handed to inih */
	int err_line;		/* 0 = no error latched */
	char reason[256];
	uint64_t seen[VOCAB_NKINDS + 2];	/* duplicate-key bits per section (fleet last) */
	uint64_t seen_sup;
};

/* Latch the first error only: inih keeps calling us after one. */
static int conf_fail(struct conf_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->err_line)
		return 0;
	x->err_line = x->line ? x->line : 1;
	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof x->reason, fmt, ap);
	va_end(ap);
	return 0;
}

/* Sizes take binary units only: K, M, G, T (alone, with B, or with iB, any
 * case) are all powers of 1024, since memory is what they measure. */
int conf_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "bkmgt";
	char *end;
	unsigned long long v;
	const char *u;
	int shift;

	if (!s || s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	while (*end == ' ')
		end++;
	if (!*end) {
		*out = v;
		return 0;
	}
	u = strchr(units, end[0] | 0x20);
	if (!u)
		return -1;
	shift = 10 * (int)(u - units);
	end++;
	if (shift && (*end | 0x20) == 'i' && (end[1] | 0x20) == 'b')
		end += 2;
	else if (shift && (*end | 0x20) == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* "500ms", "30s", "2m", "1h"; a bare number is refused (which unit?)
 * except 0. */
int conf_parse_duration_ms(const char *s, uint64_t *out)
{
	static const struct { const char *u; uint64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	char *end;
	unsigned long long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!*end && v == 0) {
		*out = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(end, units[i].u)) {
			if (v > UINT64_MAX / units[i].ms)
				return -1;
			*out = v * units[i].ms;
			return 0;
		}
	return -1;
}

/* Octal, 1 to 4 digits, at most 0777: no setuid/setgid/sticky bits on a
 * segment or a socket. */
int conf_parse_mode(const char *s, mode_t *out)
{
	unsigned v = 0;
	size_t n = s ? strlen(s) : 0;

	if (n < 1 || n > 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -1;
		v = v * 8 + (unsigned)(s[i] - '0');
	}
	if (v > 0777)
		return -1;
	*out = (mode_t)v;
	return 0;
}

void conf_defaults(struct conf *c)
{
	static const struct conf_kind kinds[VOCAB_NKINDS + 1] = {
		[VOCAB_KIND_WINNING_POST] = { .log_size = 14, .partitions = 1, .priority = 0 },
		[VOCAB_KIND_WINDOW_POST] = { .log_size = 15, .partitions = 1, .priority = 1 },
		[VOCAB_KIND_SNAP_DEALS] = { .log_size = 14, .partitions = 16, .priority = 2 },
		[VOCAB_KIND_POREP] = { .log_size = 15, .partitions = 10, .priority = 2 },
	};

	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "default");
	c->gpus = -1;
	c->workers_per_gpu = 2;
	c->synth = 2;
	c->backend = VOCAB_BACKEND_AUTO;
	c->mem_budget = 1ull << 30;
	c->shm_mode = 0640;
	c->socket_mode = 0600;
	c->max_jobs = CONF_MAX_JOBS;
	c->max_jobs_per_uid = 64;
	c->max_log_size = 20;
	c->restart_intensity = 5;
	c->restart_period_ms = 60000;
	c->backoff_max_ms = 10000;
	c->stable_run_ms = 10000;
	c->poison_attempts = 3;
	c->verify_sample = 1;
	c->heartbeat_timeout_ms = 5000;
	c->stop_timeout_ms = 10000;
	c->preempt_after_ms = 100;
	c->preempt_grace_ms = 100;
	memcpy(c->kind, kinds, sizeof kinds);
	c->fleet.heartbeat_ms = 2000;
	c->fleet.claim_interval_ms = 500;
	/* state_dir stays "" (= not set explicitly) until conf_finish. */
}

void conf_finish(struct conf *c)
{
	const char *base = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (c->state_dir[0])
		return;
	if (geteuid() == 0)
		snprintf(c->state_dir, sizeof c->state_dir, "/var/lib/provisor/%s", c->name);
	else if (base && base[0] == '/')
		snprintf(c->state_dir, sizeof c->state_dir, "%s/provisor/%s", base, c->name);
	else
		snprintf(c->state_dir, sizeof c->state_dir, "%s/.local/state/provisor/%s",
			 home && home[0] == '/' ? home : "/tmp", c->name);
}

/* One key: its name, how its value is parsed into which field (an offset
 * into struct conf, or into struct conf_kind for a kind's keys), and, for
 * the message "KEY: 'VALUE' is not WHAT", what a good value is. Numbers
 * and durations share one parser each; the rest have a setter. */
enum conf_type {
	CK_INT,		/* int, lo..hi */
	CK_U32,		/* uint32_t, lo..hi */
	CK_MS,		/* uint64_t ms, a positive duration */
	CK_DUR,		/* uint64_t ms, 0 allowed */
	CK_MODE,	/* mode_t, octal */
	CK_FN,		/* set(), 0 or -1 */
	CK_SLOTS,	/* uint64_t[CONF_MAX_SLOTS / 64], "gpu.N,gpu.M" */
	CK_PATH,	/* char[256], an absolute path */
	CK_BOOL,	/* uint32_t 0 or 1: yes or no */
};

struct conf_key {
	const char *key;
	enum conf_type type;
	size_t off;
	uint32_t lo, hi;
	int (*set)(struct conf *c, const char *v);
	const char *what;	/* for CK_FN; the others say it from type */
};

/* A number with its range; a field whose type says what is valid; a setter. */
#define CK_NUM(k, t, s, f, l, h) { k, t, offsetof(struct s, f), l, h, NULL, NULL }
#define CK_FIELD(k, t, s, f) { k, t, offsetof(struct s, f), 0, 0, NULL, NULL }
#define CK_SET(k, fn, w) { k, CK_FN, 0, 0, 0, fn, w }

static int conf_set_name(struct conf *c, const char *v)
{
	char why[128];

	if (shm_name_check(v, why, sizeof why) < 0)
		return -1;
	snprintf(c->name, sizeof c->name, "%s", v);
	return 0;
}

static int conf_set_state_dir(struct conf *c, const char *v)
{
	if (v[0] != '/' || strlen(v) >= sizeof c->state_dir)
		return -1;
	snprintf(c->state_dir, sizeof c->state_dir, "%s", v);
	return 0;
}

static int conf_set_gpus(struct conf *c, const char *v)
{
	uint64_t u;

	if (!strcmp(v, "auto")) {
		c->gpus = -1;
		return 0;
	}
	if (util_num(v, UTIL_NUM_DIGITS, 1, CONF_MAX_SLOTS, &u))
		return -1;
	c->gpus = (int)u;
	return 0;
}

int conf_parse_backend(struct conf *c, const char *v)
{
	enum vocab_backend be;

	if (!strncmp(v, "plugin:", 7)) {
		const char *p = v + 7;
		if (p[0] != '/' || strlen(p) >= sizeof c->backend_plugin || strpbrk(p, " \t\n"))
			return -1;
		snprintf(c->backend_plugin, sizeof c->backend_plugin, "%s", p);
		c->backend = VOCAB_BACKEND_PLUGIN;
		return 0;
	}
	if (vocab_backend_parse(v, &be))
		return -1;
	c->backend = be;
	c->backend_plugin[0] = '\0';
	return 0;
}

static int conf_set_backend(struct conf *c, const char *v)
{
	return conf_parse_backend(c, v);
}

static int conf_set_mem_budget(struct conf *c, const char *v)
{
	return conf_parse_size(v, &c->mem_budget) || !c->mem_budget ? -1 : 0;
}

/* The group must exist now: finding out at bind time would be too late
 * to name the line. Empty means no group. */
static int conf_set_socket_group(struct conf *c, const char *v)
{
	if (strlen(v) >= sizeof c->socket_group || (v[0] && !getgrnam(v)))
		return -1;
	snprintf(c->socket_group, sizeof c->socket_group, "%s", v);
	return 0;
}

/* A user name or uid; whether it exists and may be used is checked at
 * start (contain_setup), where the supervisor's own uid is known. */
static int conf_set_worker_user(struct conf *c, const char *v)
{
	if (!v[0] || strlen(v) >= sizeof c->worker_user)
		return -1;
	snprintf(c->worker_user, sizeof c->worker_user, "%s", v);
	return 0;
}

static int conf_set_params_dir(struct conf *c, const char *v)
{
	if (v[0] != '/' || strlen(v) >= sizeof c->params_dir)
		return -1;
	snprintf(c->params_dir, sizeof c->params_dir, "%s", v);
	return 0;
}

static const struct conf_key conf_sup_keys[] = {
	CK_SET("name", conf_set_name, "an instance name ([A-Za-z0-9_.-], 1 to 32 characters)"),
	CK_SET("state_dir", conf_set_state_dir, "an absolute path"),
	CK_SET("gpus", conf_set_gpus, "auto or a number in 1..256"),
	CK_NUM("workers_per_gpu", CK_INT, conf, workers_per_gpu, 1, CONF_MAX_SLOTS),
	CK_NUM("synth", CK_INT, conf, synth, 1, CONF_MAX_SLOTS),
	CK_SET("backend", conf_set_backend, "auto, cuda, cpu or plugin:/absolute/path.so"),
	CK_SET("mem_budget", conf_set_mem_budget, "a size"),
	CK_FIELD("shm_mode", CK_MODE, conf, shm_mode),
	CK_FIELD("socket_mode", CK_MODE, conf, socket_mode),
	CK_SET("socket_group", conf_set_socket_group, "a group on this system"),
	CK_SET("worker_user", conf_set_worker_user, "a user name or uid, at most 63 bytes"),
	CK_NUM("max_jobs", CK_U32, conf, max_jobs, 1, CONF_MAX_JOBS),
	CK_NUM("max_jobs_per_uid", CK_U32, conf, max_jobs_per_uid, 1, CONF_MAX_JOBS),
	CK_NUM("max_log_size", CK_U32, conf, max_log_size, VOCAB_LOG_MIN, VOCAB_LOG_MAX),
	CK_NUM("restart_intensity", CK_U32, conf, restart_intensity, 1, 1000000),
	CK_FIELD("restart_period", CK_MS, conf, restart_period_ms),
	CK_FIELD("backoff_max", CK_MS, conf, backoff_max_ms),
	CK_FIELD("stable_run", CK_MS, conf, stable_run_ms),
	CK_NUM("poison_attempts", CK_U32, conf, poison_attempts, 1, 255),
	CK_NUM("verify_sample", CK_U32, conf, verify_sample, 0, 1000000),
	CK_FIELD("heartbeat_timeout", CK_MS, conf, heartbeat_timeout_ms),
	CK_FIELD("stop_timeout", CK_MS, conf, stop_timeout_ms),
	CK_FIELD("preempt_after", CK_DUR, conf, preempt_after_ms),
	CK_FIELD("preempt_grace", CK_MS, conf, preempt_grace_ms),
	CK_SET("params_dir", conf_set_params_dir, "an absolute path of a directory of params files, "
	       "at most 255 bytes"),
};

static const struct conf_key conf_kind_keys[] = {
	CK_NUM("log_size", CK_U32, conf_kind, log_size, VOCAB_LOG_MIN, VOCAB_LOG_MAX),
	CK_NUM("partitions", CK_U32, conf_kind, partitions, 1, VOCAB_MAX_PARTS),
	CK_NUM("priority", CK_U32, conf_kind, priority, 0, 255),
	CK_FIELD("deadline", CK_DUR, conf_kind, deadline_ms),
	CK_NUM("reserve", CK_U32, conf_kind, reserve, 0, CONF_MAX_SLOTS - 1),
	{ "slots", CK_SLOTS, offsetof(struct conf_kind, slot_mask), 0, 0, NULL,
	  "a list of GPU slots (gpu.0,gpu.1,...)" },
	{ "params", CK_PATH, offsetof(struct conf_kind, params), 0, 0, NULL,
	  "an absolute path of a params file (provisor setup), at most 255 bytes" },
	CK_FIELD("keep_h", CK_BOOL, conf_kind, keep_h),
};

int conf_fleet_node_check(const char *v)
{
	size_t n = strlen(v);

	if (n < 1 || n >= CONF_FLEET_NODE_MAX || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
						   "0123456789_.-") != n)
		return -1;
	return 0;
}

int conf_fleet_set_dsn(struct conf *c, const char *v)
{
	if (!v[0] || strlen(v) >= sizeof c->fleet.dsn)
		return -1;
	snprintf(c->fleet.dsn, sizeof c->fleet.dsn, "%s", v);
	return 0;
}

static int conf_set_fleet_node(struct conf *c, const char *v)
{
	if (conf_fleet_node_check(v) < 0)
		return -1;
	snprintf(c->fleet.node, sizeof c->fleet.node, "%s", v);
	return 0;
}

/* [fleet]'s keys: offsets into struct conf_fleet. */
static const struct conf_key conf_fleet_keys[] = {
	CK_SET("dsn", conf_fleet_set_dsn, "a libpq connection string or URI, at most 511 bytes"),
	CK_SET("node", conf_set_fleet_node, "a node name ([A-Za-z0-9_.-], 1 to 63 characters)"),
	CK_FIELD("heartbeat", CK_MS, conf_fleet, heartbeat_ms),
	CK_FIELD("lease", CK_MS, conf_fleet, lease_ms),
	CK_FIELD("claim_interval", CK_MS, conf_fleet, claim_interval_ms),
	CK_NUM("max_jobs", CK_U32, conf_fleet, max_jobs, 1, CONF_MAX_JOBS),
};

static_assert(CONF_MAX_SLOTS == 256, "the gpus key's message says 1..256");

/* "gpu.0,gpu.3": a set of GPU slots into mask (at least one, each once,
 * below CONF_MAX_SLOTS). 0 or -1. */
static int conf_parse_slots(const char *v, uint64_t *mask)
{
	uint64_t m[CONF_MAX_SLOTS / 64] = { 0 };

	for (;;) {
		char num[8];
		size_t n;
		uint64_t u;

		v += strspn(v, " \t");
		if (strncmp(v, "gpu.", 4))
			return -1;
		v += 4;
		n = strspn(v, "0123456789");
		if (!n || n >= sizeof num)
			return -1;
		memcpy(num, v, n);
		num[n] = '\0';
		if (util_num(num, UTIL_NUM_DIGITS, 0, CONF_MAX_SLOTS - 1, &u) ||
		    (m[u / 64] >> (u % 64) & 1))
			return -1;
		m[u / 64] |= 1ull << (u % 64);
		v += n;
		v += strspn(v, " \t");
		if (!*v)
			break;
		if (*v++ != ',')
			return -1;
	}
	memcpy(mask, m, sizeof m);
	return 0;
}

/* Parse v into key k's field, which lives at base + k->off. */
static int conf_apply(const struct conf_key *k, struct conf *c, void *base, const char *v)
{
	void *f = (char *)base + k->off;
	uint64_t u;

	switch (k->type) {
	case CK_INT:
	case CK_U32:
		if (util_num(v, UTIL_NUM_DIGITS, k->lo, k->hi, &u))
			return -1;
		if (k->type == CK_INT)
			*(int *)f = (int)u;
		else
			*(uint32_t *)f = (uint32_t)u;
		return 0;
	case CK_MS:
		if (conf_parse_duration_ms(v, &u) < 0 || u == 0)
			return -1;
		*(uint64_t *)f = u;
		return 0;
	case CK_DUR:
		return conf_parse_duration_ms(v, (uint64_t *)f);
	case CK_MODE:
		return conf_parse_mode(v, (mode_t *)f);
	case CK_FN:
		return k->set(c, v);
	case CK_SLOTS:
		return conf_parse_slots(v, (uint64_t *)f);
	case CK_PATH:
		if (v[0] != '/' || strlen(v) >= 256)
			return -1;
		snprintf(f, 256, "%s", v);
		return 0;
	case CK_BOOL:	/* two spellings each, no more: a typo is refused, not read as no */
		if (!strcmp(v, "yes") || !strcmp(v, "true"))
			*(uint32_t *)f = 1;
		else if (!strcmp(v, "no") || !strcmp(v, "false"))
			*(uint32_t *)f = 0;
		else
			return -1;
		return 0;
	}
	return -1;
}

/* What a good value of key k is, for the error message. */
static const char *conf_what(const struct conf_key *k, char *buf, size_t len)
{
	switch (k->type) {
	case CK_INT:
	case CK_U32:
		snprintf(buf, len, "a number in %u..%u", k->lo, k->hi);
		return buf;
	case CK_MS:
		return "a positive duration (ms, s, m or h)";
	case CK_DUR:
		return "a duration (0, or a number with ms, s, m or h)";
	case CK_MODE:
		return "an octal mode up to 0777";
	case CK_BOOL:
		return "yes or no";
	case CK_FN:
	case CK_SLOTS:
	case CK_PATH:
		break;
	}
	return k->what;
}

/* "supervisor" -> 0, "kind.NAME" -> the kind (1..VOCAB_NKINDS), "fleet"
 * -> CONF_SEC_FLEET, else -1. */
#define CONF_SEC_FLEET (VOCAB_NKINDS + 1)
static int conf_section(const char *s)
{
	uint32_t kind;

	if (!strcmp(s, "supervisor"))
		return 0;
	if (!strcmp(s, "fleet"))
		return CONF_SEC_FLEET;
	if (!strncmp(s, "kind.", 5) && !vocab_kind_parse(s + 5, &kind))
		return (int)kind;
	return -1;
}

/* A value as it may be echoed in a message (util/text.h): a bad file
 * cannot put escape sequences on the operator's terminal. */
static const char *conf_shown(const char *v, char *buf, size_t len)
{
	return util_clean(buf, len, v);
}

/* inih's callback: one key of one section. Returns 0 (error) at most
 * once per file: later calls see the latched error and do nothing. */
static int conf_handler(void *user, const char *section, const char *key, const char *val)
{
	struct conf_ctx *x = user;
	int sec = conf_section(section);
	const struct conf_key *keys = sec == CONF_SEC_FLEET ? conf_fleet_keys : sec ? conf_kind_keys : conf_sup_keys;
	size_t n = sec == CONF_SEC_FLEET ? sizeof conf_fleet_keys / sizeof keys[0] :
		   sec ? sizeof conf_kind_keys / sizeof keys[0] : sizeof conf_sup_keys / sizeof keys[0];
	uint64_t *seen;

	if (x->err_line)
		return 0;
	if (!section[0])
		return conf_fail(x, "key '%s' outside any section (start with [supervisor])", key);
	if (sec < 0)
		return conf_fail(x, "unknown section [%s]", section);
	seen = sec ? &x->seen[sec] : &x->seen_sup;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(key, keys[i].key))
			continue;
		if (*seen & (1ull << i))
			return conf_fail(x, "duplicate key '%s' in [%s]", key, section);
		*seen |= 1ull << i;
		void *base = sec == CONF_SEC_FLEET ? (void *)&x->c.fleet : sec ? (void *)&x->c.kind[sec] :
			     (void *)&x->c;
		if (conf_apply(&keys[i], &x->c, base, val)) {
			char shown[64], what[48];
			return conf_fail(x, "%s: '%s' is not %s", key, conf_shown(val, shown, sizeof shown),
					 conf_what(&keys[i], what, sizeof what));
		}
		return 1;
	}
	char shown[64];
	return conf_fail(x, "unknown key '%s' in [%s]", conf_shown(key, shown, sizeof shown), section);
}

/* "[name]" on a line, surrounding blanks allowed: check name now, so an
 * unknown section is refused even when it holds no key. */
static void conf_check_section_line(struct conf_ctx *x, const char *s)
{
	const char *end;
	char name[128];

	s += strspn(s, " \t");
	if (*s != '[' || !(end = strchr(s, ']')) || (size_t)(end - s - 1) >= sizeof name)
		return;	/* not a section line, or inih's syntax error to report */
	memcpy(name, s + 1, (size_t)(end - s - 1));
	name[end - s - 1] = '\0';
	char shown[64];
	if (conf_section(name) < 0)
		conf_fail(x, "unknown section [%s]", conf_shown(name, shown, sizeof shown));
}

/* inih's reader: one whole line per call, or NULL (end, or an error we
 * latched: stop reading). */
static char *conf_reader(char *str, int num, void *stream)
{
	struct conf_ctx *x = stream;
	ssize_t n;

	if (x->err_line || (n = getline(&x->buf, &x->bufcap, x->f)) < 0)
		return NULL;
	x->line++;
	if (strlen(x->buf) != (size_t)n) {
		conf_fail(x, "NUL byte in line");
		return NULL;
	}
	if (n >= num) {		/* inih needs room for the NUL too */
		conf_fail(x, "line longer than %d bytes", num - 2);
		return NULL;
	}
	conf_check_section_line(x, x->buf);
	if (x->err_line)
		return NULL;
	memcpy(str, x->buf, (size_t)n + 1);
	return str;
}

/* Bytes one synthesized partition of 2^k rows holds (a, b, c of 32-byte
 * field elements): what the memory budget counts. */
static uint64_t conf_part_bytes(uint32_t k)
{
	return (uint64_t)3 * 32 << k;
}

/* Reservations and affinities against the GPU slots, when their number
 * is known (gpus = auto is checked by the supervisor once it counted):
 * every slot named exists, and the reservations leave a slot to the
 * kinds without one. */
int conf_check_slots(const struct conf *c, char *err, size_t errlen)
{
	long nslots = (long)c->gpus * c->workers_per_gpu, reserved = 0;

	if (c->gpus < 1)
		return 0;
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		const struct conf_kind *ck = &c->kind[k];

		reserved += ck->reserve;
		for (long i = nslots; i < CONF_MAX_SLOTS; i++)
			if (ck->slot_mask[i / 64] >> (i % 64) & 1) {
				snprintf(err, errlen, "kind.%s: slots names gpu.%ld, but there are %ld GPU slots "
					 "(gpu.0..gpu.%ld)", vocab_kind_name(k), i, nslots, nslots - 1);
				return -1;
			}
	}
	if (reserved >= nslots) {
		snprintf(err, errlen, "reserve: %ld GPU slots reserved of %ld leaves none for the other kinds",
			 reserved, nslots);
		return -1;
	}
	return 0;
}

int conf_check(const struct conf *c, char *err, size_t errlen)
{
	int gpus = c->gpus < 0 ? 1 : c->gpus;	/* auto: at least one */
	long slots = (long)gpus * c->workers_per_gpu + c->synth;

	if (c->gpus < -1 || c->gpus == 0 || c->workers_per_gpu < 1 || c->synth < 1 ||
	    slots > CONF_MAX_SLOTS) {
		snprintf(err, errlen, "%ld worker slots (gpus x workers_per_gpu + synth): allowed 2..%d",
			 slots, CONF_MAX_SLOTS);
		return -1;
	}
	if (c->max_log_size < VOCAB_LOG_MIN || c->max_log_size > VOCAB_LOG_MAX || c->shm_mode > 0777 ||
	    c->socket_mode > 0777 || !c->max_jobs || c->max_jobs > CONF_MAX_JOBS || !c->max_jobs_per_uid ||
	    !c->mem_budget) {
		snprintf(err, errlen, "max_log_size, modes, max_jobs, max_jobs_per_uid or mem_budget out of range");
		return -1;
	}
	if (c->shm_mode & 022) {
		snprintf(err, errlen, "shm_mode %04o lets group or others write the status segment, "
			 "which its readers refuse: at most 0644", c->shm_mode);
		return -1;
	}
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		const struct conf_kind *ck = &c->kind[k];
		const char *name = vocab_kind_name(k);

		if (ck->log_size < VOCAB_LOG_MIN || ck->log_size > c->max_log_size) {
			snprintf(err, errlen, "kind.%s: log_size %u is outside %d..max_log_size (%u)",
				 name, ck->log_size, VOCAB_LOG_MIN, c->max_log_size);
			return -1;
		}
		if (ck->partitions < 1 || ck->partitions > VOCAB_MAX_PARTS) {
			snprintf(err, errlen, "kind.%s: partitions %u is outside 1..%d",
				 name, ck->partitions, VOCAB_MAX_PARTS);
			return -1;
		}
		if (conf_part_bytes(ck->log_size) > c->mem_budget) {
			snprintf(err, errlen, "kind.%s: one partition (%llu bytes) is larger than mem_budget (%llu)",
				 name, (unsigned long long)conf_part_bytes(ck->log_size),
				 (unsigned long long)c->mem_budget);
			return -1;
		}
	}
	if (c->fleet.heartbeat_ms < 100 || (c->fleet.lease_ms && c->fleet.lease_ms < 2 * c->fleet.heartbeat_ms)) {
		snprintf(err, errlen, "fleet: heartbeat %llu ms and lease %llu ms: the heartbeat must be at least "
			 "100ms and the lease at least two heartbeats", (unsigned long long)c->fleet.heartbeat_ms,
			 (unsigned long long)c->fleet.lease_ms);
		return -1;
	}
	return conf_check_slots(c, err, errlen);
}

int conf_load(struct conf *c, const char *path, char *err, size_t errlen)
{
	struct conf_ctx x = { .c = *c, .path = path };
	struct stat st;
	char why[256];
	int rc;

	if (!(x.f = fopen(path, "re"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* A directory opens for reading and then reads as nothing: it must
	 * not pass as an empty file (and start a supervisor on defaults). */
	if (fstat(fileno(x.f), &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		fclose(x.f);
		return -1;
	}
	rc = ini_parse_stream(conf_reader, &x, conf_handler, &x);
	if (ferror(x.f) && !x.err_line) {
		snprintf(err, errlen, "%s: read error", path);
		fclose(x.f);
		free(x.buf);
		return -1;
	}
	fclose(x.f);
	free(x.buf);
	if (rc > 0 && (!x.err_line || rc < x.err_line)) {
		/* inih's own complaint came first: a line it could not read */
		snprintf(err, errlen, "%s:%d: syntax error (expected [section], key = value or a comment)",
			 path, rc);
		return -1;
	}
	if (x.err_line) {
		snprintf(err, errlen, "%s:%d: %s", path, x.err_line, x.reason);
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", path, rc == -2 ? "out of memory" : "cannot read");
		return -1;
	}
	if (conf_check(&x.c, why, sizeof why)) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	*c = x.c;
	return 0;
}
