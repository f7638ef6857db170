/*
 * The fleet's parts that need no database:
 *   - the claim journal (fleet/fjournal.c): claims come back at the next
 *     open until reported; a claim again under a new epoch replaces the
 *     old; a torn last line or a damaged one is dropped with a warning
 *     and never misread; opening compacts to the open claims; a symbolic
 *     link in its place is refused;
 *   - the [fleet] section of the configuration: every key, and the bad
 *     values refused with FILE:LINE;
 *   - a node's state from its heartbeat's age, and the hex helpers.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "fleet/fjournal.h"
#include "fleet/fleet.h"
#include "tests/helpers.h"

static char dir[256], path[300];
static struct fjournal_claim seen[16];
static int nseen;

static void collect(void *ctx, const struct fjournal_claim *c)
{
	(void)ctx;
	CHECK(nseen < 16, "too many claims back");
	seen[nseen++] = *c;
}

/* Open dir's journal, collecting the claims; close it again unless fp. */
static void reopen(struct fjournal **fp, char *warn, size_t wlen)
{
	struct fjournal *f;
	char err[300];
	int dfd = open(dir, O_DIRECTORY | O_CLOEXEC);

	nseen = 0;
	CHECK(dfd >= 0 && fjournal_open(&f, dfd, dir, collect, NULL, warn, wlen, err, sizeof err) == 0, "open: %s", err);
	if (fp) {
		*fp = f;	/* (the test leaks dfd until the end: one fd) */
		return;
	}
	fjournal_close(f);
	close(dfd);
}

static void append_raw(const char *text)
{
	FILE *f = fopen(path, "a");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "append to %s", path);
}

static void journal(void)
{
	struct fjournal_claim a = { 1, 100, 1, 3, 3, 1 }, b = { 2, 101, 1, 4, 12, 6 }, c = { 3, 102, 1, 3, 5, 2 };
	struct fjournal *f;
	char warn[200], err[200], line[128];

	snprintf(dir, sizeof dir, "%s/fj.XXXXXX", t_tmpdir());
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof path, "%s/%s", dir, FJOURNAL_NAME);
	reopen(&f, warn, sizeof warn);
	CHECK(nseen == 0 && !warn[0], "a new journal is empty");
	CHECK(fjournal_claim(f, &a, err, sizeof err) == 0 && fjournal_claim(f, &b, err, sizeof err) == 0 &&
	      fjournal_claim(f, &c, err, sizeof err) == 0 && fjournal_reported(f, 2, err, sizeof err) == 0, "%s", err);
	b.epoch = 2;
	a.epoch = 5;
	CHECK(fjournal_claim(f, &a, err, sizeof err) == 0, "claim again: %s", err);
	fjournal_close(f);
	reopen(NULL, warn, sizeof warn);
	CHECK(nseen == 2 && seen[0].local == 1 && seen[0].epoch == 5 && seen[0].fleet == 100 && seen[0].k == 3 &&
	      seen[1].local == 3 && seen[1].file_kind == 3 && seen[1].parts == 2 && !warn[0],
	      "back: %d claims, first local %llu epoch %u; warn '%s'", nseen, (unsigned long long)seen[0].local,
	      seen[0].epoch, warn);

	/* A torn last line, and a damaged one: dropped, said, never misread. */
	size_t n = fjournal_line_reported(line, sizeof line, 1);
	line[n - 1] = '\0';
	line[n - 3] ^= 1;	/* a flipped bit in the checksum */
	append_raw(line);
	append_raw("\n");
	n = fjournal_line_claim(line, sizeof line, &(struct fjournal_claim){ 9, 900, 1, 3, 3, 1 });
	line[n / 2] = '\0';	/* torn */
	append_raw(line);
	reopen(NULL, warn, sizeof warn);
	CHECK(nseen == 2 && strstr(warn, "2 lines that did not check"), "%d claims, warn '%s'", nseen, warn);
	reopen(NULL, warn, sizeof warn);
	CHECK(nseen == 2 && !warn[0], "compacted: %d claims, warn '%s'", nseen, warn);

	struct fjournal_claim parsed;
	CHECK(fjournal_parse("C 1 2 3 4 5 6 00000000", &parsed) == 0, "a wrong checksum parses");
	n = fjournal_line_claim(line, sizeof line, &a);
	line[n - 1] = '\0';
	CHECK(fjournal_parse(line, &parsed) == 'C' && parsed.local == 1 && parsed.epoch == 5, "round trip");

	/* A symbolic link in the journal's place is refused. */
	CHECK(unlink(path) == 0 && symlink("/etc/passwd", path) == 0, "symlink");
	int dfd = open(dir, O_DIRECTORY | O_CLOEXEC);
	CHECK(fjournal_open(&f, dfd, dir, collect, NULL, warn, sizeof warn, err, sizeof err) < 0 &&
	      strstr(err, "symbolic link"), "a symbolic link opened: '%s'", err);
	close(dfd);
	unlink(path);
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, FJOURNAL_NAME);
	unlink(tmp);
	CHECK(rmdir(dir) == 0, "the journal left files in %s", dir);
}

/* Load text as a config file over the defaults: 0 or -1 with err. */
static int load(const char *text, struct conf *c, char *err, size_t len)
{
	char p[300];
	FILE *f;
	int rc;

	snprintf(p, sizeof p, "%s/fleet.conf", t_tmpdir());
	f = fopen(p, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", p);
	conf_defaults(c);
	rc = conf_load(c, p, err, len);
	unlink(p);
	return rc;
}

static void config(void)
{
	struct conf c;
	char err[400];

	CHECK(load("[fleet]\ndsn = host=/run/postgresql dbname=prov\nnode = rig-7\nheartbeat = 1s\nlease = 5s\n"
		   "max_jobs = 9\nclaim_interval = 250ms\n", &c, err, sizeof err) == 0, "%s", err);
	CHECK(!strcmp(c.fleet.dsn, "host=/run/postgresql dbname=prov") && !strcmp(c.fleet.node, "rig-7") &&
	      c.fleet.heartbeat_ms == 1000 && c.fleet.lease_ms == 5000 && c.fleet.max_jobs == 9 &&
	      c.fleet.claim_interval_ms == 250, "the keys");
	conf_defaults(&c);
	CHECK(!c.fleet.dsn[0] && c.fleet.heartbeat_ms == 2000 && !c.fleet.lease_ms && !c.fleet.max_jobs,
	      "defaults: no fleet, 2 s heartbeat");
	static const struct { const char *text, *want; } bad[] = {
		{ "[fleet]\nnode = two words\n", ":2: node: 'two words' is not a node name" },
		{ "[fleet]\ndsn =\n", ":2: dsn: '' is not a libpq connection string" },
		{ "[fleet]\nheartbeat = 2\n", ":2: heartbeat: '2' is not a positive duration" },
		{ "[fleet]\nmax_jobs = 0\n", ":2: max_jobs: '0' is not a number in 1..256" },
		{ "[fleet]\nleases = 1s\n", ":2: unknown key 'leases' in [fleet]" },
		{ "[fleet]\nheartbeat = 2s\nlease = 3s\n", ": fleet: heartbeat 2000 ms and lease 3000 ms" },
		{ "[fleet]\nheartbeat = 50ms\n", ": fleet: heartbeat 50 ms" },
		{ "[fleet]\nnode = a\nnode = b\n", ":3: duplicate key 'node' in [fleet]" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(load(bad[i].text, &c, err, sizeof err) < 0 && strstr(err, bad[i].want), "'%s': got '%s'",
		      bad[i].text, err);
}

int main(void)
{
	uint8_t b[4] = { 0, 0x7f, 0x80, 0xff }, back[4];
	char hex[9];
	size_t n;

	journal();
	config();
	CHECK(!strcmp(fleet_node_state(100, 1000, 3000), "alive") && !strcmp(fleet_node_state(2500, 1000, 3000), "stale") &&
	      !strcmp(fleet_node_state(3500, 1000, 3000), "dead"), "node states");
	fleet_hex(hex, b, 4);
	CHECK(!strcmp(hex, "007f80ff") && fleet_unhex(hex, back, 4, &n) == 0 && n == 4 && !memcmp(b, back, 4), "hex");
	CHECK(fleet_unhex("0g", back, 4, &n) < 0 && fleet_unhex("abc", back, 4, &n) < 0 &&
	      fleet_unhex("0011223344", back, 4, &n) < 0, "bad hex taken");
	char *p = fleet_bytea_param(b, 2);
	CHECK(p && !strcmp(p, "\\x007f"), "bytea param '%s'", p);
	free(p);
	printf("ok\n");
	return 0;
}
