/*
 * Segment text is untrusted, and a dead rig must look dead, through the
 * real commands. A child process plays the supervisor (tests/tui/fake.c):
 * it animates a while (60 ticks, and until every synth slot is busy: work
 * in flight when it dies), then posts an event and a failed job whose texts
 * carry ESC ] 0 ; ... BEL, ESC [ 2 J and a non-ASCII byte, and a header
 * name with those and a quote and a backslash. Then:
 *   - `provisor status`, `status --prometheus` and `top --once` print no
 *     byte below 0x20 but '\n' and none from 0x7f up, and show "\x1b";
 *     the Prometheus name label is escaped (\" and \\);
 *   - after the child is SIGKILLed (its pid dead, heartbeat stopped):
 *     status and top --once (at 32, 40 and 80 columns) exit 3, show
 *     "not running", every slot "unknown" (never busy or idle, never the
 *     dead workers' pid) with "(supervisor gone)" where the row has room
 *     (status; top from 40 columns), and the same uptime in two runs 1.1 s apart.
 * The segment is removed at the end through shm_create/shm_destroy (a
 * stale segment is replaced), whatever its location.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "tests/tui/fake.h"

#define EVIL "\x1b]0;owned\x07\x1b[2J\xe9"

static char name[40], prov[512];
static pid_t child;

static void cleanup(void)
{
	struct shm_config c = { .name = name, .gpu_slots = 1, .synth_slots = 1 };
	struct shm_seg seg;
	char err[256];

	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	if (name[0] && shm_create(&seg, &c, err, sizeof err) == 0)	/* replaces the stale one */
		shm_destroy(&seg);
}

/* The fake supervisor: animate, poison the texts, then only beat. */
static void supervise(int ready)
{
	struct fake f;
	char err[256];

	if (fake_create(&f, name, 2, 2, err, sizeof err) < 0) {
		fprintf(stderr, "fake_create: %s\n", err);
		_exit(1);
	}
	f.min_ms = 2000, f.max_ms = 4000;	/* slots stay busy */
	/* A count of ticks, not a time; the bound only stops a hang (the
	 * parent's checks do not depend on it). */
	for (uint64_t n = 0, t0 = t_now_ns(); t_now_ns() - t0 < 10000000000ull * t_slow(); n++) {
		int busy = 0;

		for (uint32_t i = 0; i < f.nsynth; i++)
			busy += f.synth[i].until != 0;
		if (n >= 60 && busy == (int)f.nsynth)
			break;
		fake_tick(&f);
		usleep(5000);
	}
	struct shm_event ev = { .type = SHM_EV_INFO, .code = 1 };
	snprintf(ev.msg, sizeof ev.msg, "ev " EVIL);
	shm_post_event(&f.seg, &ev);
	struct shm_job j = { .id = 999999, .kind = 1, .state = SHM_JOB_FAILED, .log_size = 16 };
	snprintf(j.reason, sizeof j.reason, "why " EVIL);
	shm_write_job(&f.seg, FAKE_TABLE_JOBS - 1, &j);
	struct shm_header *h = (struct shm_header *)f.seg.base;	/* the owner may */
	snprintf(h->name, sizeof h->name, "nm" EVIL "\"q\\b");
	shm_heartbeat(&f.seg);
	if (write(ready, "1", 1) != 1)
		_exit(1);
	for (;;) {
		shm_heartbeat(&f.seg);
		usleep(20000);
	}
}

static char *run(const char *args, int *rc)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "%s %s", prov, args);
	return t_capture(cmd, rc);
}

static void clean_bytes(const char *what, const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		CHECK(*p >= 0x20 ? *p < 0x7f : *p == '\n', "%s: byte 0x%02x at %zu:\n%s", what, *p,
		      (size_t)(p - (const unsigned char *)out), out);
}

/* The uptime word after "up " in the first line. */
static void uptime(const char *out, char *up, size_t len)
{
	const char *eol = strchr(out, '\n'), *u = strstr(out, " up ");

	CHECK(u && (!eol || u < eol), "no uptime in the first line:\n%s", out);
	snprintf(up, len, "%.*s", (int)strcspn(u + 4, " ,\n"), u + 4);
}

/* Every slot row ("gpu.N"/"synth.N" at the start of a line) is unknown. */
static void slots_unknown(const char *what, const char *out, int want, int gone)
{
	char pid[24];
	int rows = 0;

	snprintf(pid, sizeof pid, " %d ", (int)child);
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, "\n");
		char row[1024];
		if (strncmp(l, "gpu.", 4) && strncmp(l, "synth.", 6))
			continue;
		snprintf(row, sizeof row, "%.*s ", (int)n, l);
		CHECK(strstr(row, " unknown") && !strstr(row, " busy ") && !strstr(row, " idle ") &&
		      !strstr(row, pid) && (!gone || strstr(row, "(supervisor gone)")),
		      "%s: slot row of a dead rig: '%s'", what, row);
		rows++;
	}
	CHECK(rows == want, "%s: %d slot rows, want %d:\n%s", what, rows, want, out);
}

int main(void)
{
	const char *bin = getenv("BIN") ? getenv("BIN") : "bin";
	char args[256], up1[32], up2[32];
	int fd[2], rc;

	snprintf(prov, sizeof prov, "%s/provisor", bin);
	if (access(prov, X_OK))
		T_SKIP("no %s: build it first", prov);
	snprintf(name, sizeof name, "t-dead-%d", (int)getpid());
	atexit(cleanup);
	CHECK(pipe(fd) == 0, "pipe");
	child = fork();
	CHECK(child >= 0, "fork");
	if (child == 0) {
		close(fd[0]);
		supervise(fd[1]);
	}
	close(fd[1]);
	CHECK(read(fd[0], args, 1) == 1, "the fake supervisor did not start");
	close(fd[0]);

	/* Alive: the poisoned texts come out as \xNN. */
	snprintf(args, sizeof args, "status --name %s", name);
	char *txt = run(args, &rc);
	CHECK(rc == 0, "status exit %d:\n%s", rc, txt);
	clean_bytes("status", txt);
	CHECK(strstr(txt, "ev \\x1b]0;owned\\x07\\x1b[2J\\xe9"), "status: event text:\n%s", txt);
	CHECK(strstr(txt, "reason: why \\x1b]0;owned\\x07\\x1b[2J\\xe9"), "status: job reason:\n%s", txt);
	CHECK(strstr(txt, "instance nm\\x1b]0;"), "status: instance name:\n%s", txt);
	free(txt);
	snprintf(args, sizeof args, "status --name %s --prometheus", name);
	txt = run(args, &rc);
	CHECK(rc == 0, "status --prometheus exit %d", rc);
	clean_bytes("status --prometheus", txt);
	CHECK(strstr(txt, "provisor_supervisor_info{name=\"nm\\\\x1b]0;owned\\\\x07\\\\x1b[2J\\\\xe9\\\"q\\\\b\","),
	      "status --prometheus: name label not escaped:\n%s", txt);
	free(txt);
	snprintf(args, sizeof args, "top --name %s --once --width 150 -d 1 --ascii", name);
	txt = run(args, &rc);
	CHECK(rc == 0, "top --once exit %d", rc);
	clean_bytes("top --once", txt);
	CHECK(strstr(txt, "ev \\x1b]0;owned\\x07\\x1b[2J\\xe9") && strstr(txt, "nm\\x1b]0;"),
	      "top --once: event text or name:\n%s", txt);
	free(txt);

	/* Dead. */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	snprintf(args, sizeof args, "status --name %s", name);
	txt = run(args, &rc);
	CHECK(rc == 3 && strstr(txt, "not running"), "status of a dead rig: exit %d:\n%s", rc, txt);
	clean_bytes("status, dead", txt);
	slots_unknown("status", txt, 4, 1);
	uptime(txt, up1, sizeof up1);
	free(txt);
	usleep(1100000);
	txt = run(args, &rc);
	uptime(txt, up2, sizeof up2);
	CHECK(!strcmp(up1, up2), "status: uptime of a dead rig moved: %s, then %s", up1, up2);
	free(txt);

	static const int widths[] = { 32, 40, 80 };
	for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		snprintf(args, sizeof args, "top --name %s --once --width %d -d 1 --ascii", name, widths[w]);
		txt = run(args, &rc);
		CHECK(rc == 3, "top --once --width %d of a dead rig: exit %d", widths[w], rc);
		clean_bytes("top --once, dead", txt);
		CHECK(strstr(txt, "not running"), "top --width %d: no 'not running':\n%s", widths[w], txt);
		slots_unknown("top --once", txt, 4, widths[w] >= 40);
		uptime(txt, up1, sizeof up1);
		free(txt);
		usleep(1100000);
		txt = run(args, &rc);
		uptime(txt, up2, sizeof up2);
		CHECK(!strcmp(up1, up2), "top --width %d: uptime of a dead rig moved: %s, then %s",
		      widths[w], up1, up2);
		free(txt);
	}
	printf("info: escapes shown as \\xNN in status, prometheus and top; dead rig: not running, "
	       "slots unknown, uptime frozen at %s\n", up1);
	return 0;
}
