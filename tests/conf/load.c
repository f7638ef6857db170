/*
 * conf: the defaults are valid; a full file sets every field; every kind
 * of bad file is refused with FILE:LINE and its reason and leaves the
 * struct exactly as it was; comments and blanks are fine; the value
 * parsers (size, duration, mode) take what they document and nothing else.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "util/vocab.h"
#include "gpuworker/hterm.h"
#include "tests/helpers.h"

static char dir[64];
static char path[sizeof dir + 32];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static const char *write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f, "fopen %s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load text over the defaults; expect refusal with "PATH:LINE: " followed
 * by want (line 0: "PATH: "), and the struct untouched. */
static void refuse(const char *text, int line, const char *want)
{
	struct conf c, before;
	char err[512], prefix[128];

	conf_defaults(&c);
	before = c;
	write_file(text);
	CHECK(conf_load(&c, path, err, sizeof err) == -1, "accepted: %s", text);
	if (line)
		snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
	else
		snprintf(prefix, sizeof prefix, "%s: ", path);
	CHECK(!strncmp(err, prefix, strlen(prefix)), "'%s' lacks prefix '%s'", err, prefix);
	CHECK(strstr(err, want), "'%s' lacks '%s'", err, want);
	CHECK(!memcmp(&c, &before, sizeof c), "refused file changed the struct: %s", text);
}

static void test_defaults(void)
{
	struct conf c;
	char err[256];

	conf_defaults(&c);
	CHECK(!conf_check(&c, err, sizeof err), "defaults invalid: %s", err);
	CHECK(!strcmp(c.name, "default") && c.gpus == -1 && c.workers_per_gpu == 2 && c.synth == 2,
	      "default name/slots");
	CHECK(c.backend == VOCAB_BACKEND_AUTO && c.mem_budget == 1ull << 30, "default backend/budget");
	CHECK(c.shm_mode == 0640 && c.socket_mode == 0600 && c.max_jobs == 256 && c.max_jobs_per_uid == 64, "default modes");
	CHECK(c.max_log_size == 20 && !c.state_dir[0] && !c.socket_group[0], "default limits");
	CHECK(c.kind[VOCAB_KIND_WINNING_POST].priority == 0 && c.kind[VOCAB_KIND_WINNING_POST].partitions == 1,
	      "winning-post");
	CHECK(c.kind[VOCAB_KIND_WINDOW_POST].priority == 1, "window-post");
	CHECK(c.kind[VOCAB_KIND_SNAP_DEALS].partitions == 16 && c.kind[VOCAB_KIND_POREP].partitions == 10,
	      "snap/porep partitions");
	for (int k = 1; k <= VOCAB_NKINDS; k++)
		CHECK(c.kind[k].log_size >= 14 && c.kind[k].log_size <= 15 && !c.kind[k].deadline_ms,
		      "kind %d size/deadline", k);
	conf_finish(&c);
	CHECK(c.state_dir[0] == '/' && strstr(c.state_dir, "/provisor/default"), "state_dir %s", c.state_dir);
	conf_defaults(&c);
	snprintf(c.name, sizeof c.name, "rig7");
	conf_finish(&c);
	CHECK(strstr(c.state_dir, "/provisor/rig7"), "state_dir follows the name: %s", c.state_dir);
	snprintf(c.state_dir, sizeof c.state_dir, "/srv/x");
	conf_finish(&c);
	CHECK(!strcmp(c.state_dir, "/srv/x"), "explicit state_dir kept");
}

static void test_full(void)
{
	struct conf c;
	char err[512];

	conf_defaults(&c);
	write_file("; a full file\n"
		   "# with both comment styles\n"
		   "\n"
		   "[supervisor]\n"
		   "  name = rig-1        ; inline comment\n"
		   "state_dir=/srv/provisor/rig-1\n"
		   "gpus = 4\n"
		   "workers_per_gpu = 3\n"
		   "synth = 6\n"
		   "backend = cpu\n"
		   "mem_budget = 8GiB\n"
		   "shm_mode = 0644\n"
		   "socket_mode = 660\n"
		   "socket_group = root\n"
		   "max_jobs = 99\n"
		   "max_log_size = 22\n"
		   "preempt_after = 250ms\n"
		   "preempt_grace = 2s\n"
		   "\t\n"
		   "[kind.porep]\n"
		   "log_size = 22\n"
		   "partitions = 11\n"
		   "priority = 5\n"
		   "deadline = 90s\n"
		   "keep_h = yes\n"
		   "[kind.winning-post]\n"
		   "deadline = 1500ms\n"
		   "reserve = 2\n"
		   "slots = gpu.0, gpu.11,gpu.3\n"
		   "[kind.window-post]\n"
		   "partitions = 3\n"
		   "keep_h = false\n"
		   "[kind.snap-deals]\n"
		   "log_size = 12\n"
		   "deadline = 2m\n");
	CHECK(!conf_load(&c, path, err, sizeof err), "full file refused: %s", err);
	CHECK(!strcmp(c.name, "rig-1") && !strcmp(c.state_dir, "/srv/provisor/rig-1"), "name, state_dir");
	CHECK(c.gpus == 4 && c.workers_per_gpu == 3 && c.synth == 6, "slots");
	CHECK(c.backend == VOCAB_BACKEND_CPU && c.mem_budget == 8ull << 30, "backend, budget");
	CHECK(c.shm_mode == 0644 && c.socket_mode == 0660 && !strcmp(c.socket_group, "root"), "modes, group");
	CHECK(c.max_jobs == 99 && c.max_log_size == 22, "limits");
	CHECK(c.kind[VOCAB_KIND_POREP].log_size == 22 && c.kind[VOCAB_KIND_POREP].partitions == 11 &&
	      c.kind[VOCAB_KIND_POREP].priority == 5 && c.kind[VOCAB_KIND_POREP].deadline_ms == 90000, "porep");
	CHECK(c.kind[VOCAB_KIND_WINNING_POST].deadline_ms == 1500 &&
	      c.kind[VOCAB_KIND_WINNING_POST].log_size == 14, "winning-post (rest default)");
	CHECK(c.kind[VOCAB_KIND_WINDOW_POST].partitions == 3, "window-post");
	CHECK(c.kind[VOCAB_KIND_POREP].keep_h == 1 && !c.kind[VOCAB_KIND_WINDOW_POST].keep_h &&
	      !c.kind[VOCAB_KIND_SNAP_DEALS].keep_h, "keep_h (default no)");
	CHECK(c.preempt_after_ms == 250, "preempt_after %llu", (unsigned long long)c.preempt_after_ms);
	CHECK(c.preempt_grace_ms == 2000, "preempt_grace %llu", (unsigned long long)c.preempt_grace_ms);
	CHECK(c.kind[VOCAB_KIND_WINNING_POST].reserve == 2 && c.kind[VOCAB_KIND_POREP].reserve == 0,
	      "reserve");
	CHECK(c.kind[VOCAB_KIND_WINNING_POST].slot_mask[0] == (1u << 0 | 1u << 3 | 1u << 11) &&
	      !c.kind[VOCAB_KIND_WINNING_POST].slot_mask[1] && !c.kind[VOCAB_KIND_POREP].slot_mask[0],
	      "slots mask %#llx", (unsigned long long)c.kind[VOCAB_KIND_WINNING_POST].slot_mask[0]);
	CHECK(c.kind[VOCAB_KIND_SNAP_DEALS].log_size == 12 &&
	      c.kind[VOCAB_KIND_SNAP_DEALS].deadline_ms == 120000, "snap-deals");

	/* an empty file and a comments-only file change nothing */
	struct conf d, e;
	conf_defaults(&d);
	e = d;
	write_file("");
	CHECK(!conf_load(&d, path, err, sizeof err) && !memcmp(&d, &e, sizeof d), "empty file: %s", err);
	write_file("; nothing\n\n   \n# here\n[supervisor]\n");
	CHECK(!conf_load(&d, path, err, sizeof err) && !memcmp(&d, &e, sizeof d), "comments: %s", err);
}

static void test_errors(void)
{
	struct conf c, before;
	char err[512], missing[sizeof dir + 32];

	refuse("[supervisor]\nsynth = 2\n[gpu]\n", 3, "unknown section [gpu]");
	refuse("[kind.stark]\nlog_size = 3\n", 1, "unknown section [kind.stark]");
	refuse("[supervisor]\n\nthreads = 4\n", 3, "unknown key 'threads' in [supervisor]");
	refuse("[kind.porep]\nk = 4\n", 2, "unknown key 'k' in [kind.porep]");
	refuse("synth = 2\n", 1, "outside any section");
	refuse("[supervisor]\nsynth = two\n", 2, "synth: 'two' is not a number");
	refuse("[supervisor]\nsynth = -1\n", 2, "synth: '-1' is not");
	refuse("[supervisor]\nsynth = 0\n", 2, "synth: '0' is not");
	refuse("[supervisor]\ngpus = 99999999999999999999\n", 2, "gpus: ");
	refuse("[supervisor]\nmem_budget = 12XB\n", 2, "mem_budget: '12XB' is not a size");
	refuse("[supervisor]\nmem_budget = 0\n", 2, "mem_budget: '0' is not a size");
	refuse("[supervisor]\nmem_budget = 99999999999T\n", 2, "mem_budget: ");
	refuse("[supervisor]\nshm_mode = 0648\n", 2, "shm_mode: '0648' is not an octal mode");
	refuse("[supervisor]\nsocket_mode = 4755\n", 2, "socket_mode: '4755' is not");
	refuse("[supervisor]\nbackend = opencl\n", 2, "backend: 'opencl' is not auto, cuda, cpu or plugin:/absolute/path.so");
	refuse("[supervisor]\nbackend = plugin:relative.so\n", 2,
	       "backend: 'plugin:relative.so' is not auto, cuda, cpu or plugin:/absolute/path.so");
	refuse("[supervisor]\nname = a/b\n", 2, "name: 'a/b' is not");
	refuse("[supervisor]\nstate_dir = relative\n", 2, "state_dir: 'relative' is not an absolute path");
	refuse("[supervisor]\nsocket_group = no-such-group-xyz\n", 2, "socket_group: ");
	refuse("[kind.porep]\nlog_size = 0\n", 2, "log_size: '0' is not a number in 3..27");
	refuse("[kind.porep]\nlog_size = 2\n", 2, "log_size: '2' is not a number in 3..27");
	refuse("[supervisor]\nmax_log_size = 2\n", 2, "max_log_size: '2' is not a number in 3..27");
	refuse("[kind.porep]\nlog_size = 28\n", 2, "log_size: '28' is not a number in 3..27");
	refuse("[kind.porep]\nlog_size = 21\n", 0, "kind.porep: log_size 21 is outside 3..max_log_size (20)");
	refuse("[kind.snap-deals]\npartitions = 0\n", 2, "partitions: '0' is not a number in 1..64");
	refuse("[kind.snap-deals]\npartitions = 65\n", 2, "partitions: '65' is not a number in 1..64");
	refuse("[kind.porep]\ndeadline = 30\n", 2, "deadline: '30' is not a duration");
	refuse("[supervisor]\npreempt_after = soon\n", 2, "preempt_after: 'soon' is not a duration");
	refuse("[supervisor]\npreempt_grace = 0\n", 2, "preempt_grace: '0' is not a positive duration");
	refuse("[kind.porep]\nreserve = 256\n", 2, "reserve: '256' is not a number in 0..255");
	refuse("[kind.porep]\nslots = gpu.0,\n", 2, "slots: 'gpu.0,' is not a list of GPU slots");
	refuse("[kind.porep]\nslots = 0,1\n", 2, "slots: '0,1' is not a list");
	refuse("[kind.porep]\nslots = gpu.1,gpu.1\n", 2, "slots: 'gpu.1,gpu.1' is not");
	refuse("[kind.porep]\nslots = gpu.256\n", 2, "slots: 'gpu.256' is not");
	refuse("[kind.porep]\nkeep_h = 1\n", 2, "keep_h: '1' is not yes or no");
	refuse("[kind.porep]\nkeep_h = Yes\n", 2, "keep_h: 'Yes' is not yes or no");
	refuse("[kind.porep]\nslots =\n", 2, "slots: '' is not");
	refuse("[supervisor]\ngpus = 1\nworkers_per_gpu = 2\n[kind.porep]\nslots = gpu.2\n", 0,
	       "kind.porep: slots names gpu.2, but there are 2 GPU slots");
	refuse("[supervisor]\ngpus = 1\nworkers_per_gpu = 2\n[kind.porep]\nreserve = 1\n"
	       "[kind.winning-post]\nreserve = 1\n", 0, "reserve: 2 GPU slots reserved of 2");
	refuse("[supervisor]\nsynth = 2\nsynth = 3\n", 3, "duplicate key 'synth'");
	refuse("[supervisor]\nthis line has no equals sign\n", 2, "syntax error");
	refuse("[supervisor\nsynth = 2\n", 1, "syntax error");
	refuse("[supervisor]\ngpus = 200\nworkers_per_gpu = 2\n", 0, "worker slots");
	refuse("[supervisor]\nmem_budget = 1M\n", 0, "larger than mem_budget");
	/* the first error wins, wherever later ones are */
	refuse("[supervisor]\nsynth = 2\nbad = 1\n[nope]\n", 3, "unknown key 'bad'");
	{
		char longline[400];
		memset(longline, 'x', sizeof longline);
		memcpy(longline, "[supervisor]\nname = ", 20);
		longline[sizeof longline - 2] = '\n';
		longline[sizeof longline - 1] = '\0';
		refuse(longline, 2, "line longer than");
	}

	conf_defaults(&c);
	before = c;
	snprintf(missing, sizeof missing, "%s/missing.ini", dir);
	CHECK(conf_load(&c, missing, err, sizeof err) == -1, "missing file accepted");
	CHECK(strstr(err, missing) && strstr(err, "No such file"), "missing: %s", err);
	CHECK(!memcmp(&c, &before, sizeof c), "missing file changed the struct");
	printf("info: e.g. %s\n", err);
}

static void test_values(void)
{
	uint64_t v;
	mode_t m;

	CHECK(!conf_parse_size("4096", &v) && v == 4096, "plain");
	CHECK(!conf_parse_size("64MiB", &v) && v == 64ull << 20, "MiB");
	CHECK(!conf_parse_size("1G", &v) && v == 1ull << 30, "G");
	CHECK(!conf_parse_size("2 gb", &v) && v == 2ull << 30, "gb");
	CHECK(!conf_parse_size("3k", &v) && v == 3072, "k");
	CHECK(!conf_parse_size("7B", &v) && v == 7, "B");
	CHECK(!conf_parse_size("16384T", &v) && v == 16384ull << 40, "T");
	CHECK(conf_parse_size("", &v) && conf_parse_size("G", &v) && conf_parse_size("-1", &v) &&
	      conf_parse_size("1.5G", &v) && conf_parse_size("1GiBx", &v) && conf_parse_size("1iB", &v) &&
	      conf_parse_size("16777216T", &v) && conf_parse_size(" 1", &v), "bad sizes");
	CHECK(!conf_parse_duration_ms("500ms", &v) && v == 500, "ms");
	CHECK(!conf_parse_duration_ms("30s", &v) && v == 30000, "s");
	CHECK(!conf_parse_duration_ms("2m", &v) && v == 120000, "m");
	CHECK(!conf_parse_duration_ms("1h", &v) && v == 3600000, "h");
	CHECK(!conf_parse_duration_ms("0", &v) && v == 0, "0");
	CHECK(conf_parse_duration_ms("5", &v) && conf_parse_duration_ms("5 s", &v) &&
	      conf_parse_duration_ms("s", &v) && conf_parse_duration_ms("5d", &v), "bad durations");
	CHECK(!conf_parse_mode("0640", &m) && m == 0640, "0640");
	CHECK(!conf_parse_mode("7", &m) && m == 07, "7");
	CHECK(conf_parse_mode("", &m) && conf_parse_mode("1777", &m) && conf_parse_mode("08", &m) &&
	      conf_parse_mode("00640", &m), "bad modes");
}

int main(void)
{
	snprintf(dir, sizeof dir, "%s/provisor-conf.XXXXXX", t_tmpdir());
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(path, sizeof path, "%s/provisor.ini", dir);
	atexit(cleanup);
	test_defaults();
	test_full();
	test_errors();
	test_values();
	return 0;
}
