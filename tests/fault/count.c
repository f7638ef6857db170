/*
 * fault_count: COUNT across restarts, as the supervisor's restarts see it.
 * With COUNT 2 and a state file the first and second runs fire and the
 * third starts normally, whichever kind of worker each run is (one rule
 * with WHO any shares its count); each rule of several keeps its own
 * count in the same file; inf fires every time and needs no state file.
 */
#include <sys/stat.h>

#include "tests/fault/common.h"

/* One run of prog: 1 when the start rule fired (exit code, nothing on
 * stdout), 0 when it said HELLO and ended cleanly at EOF. */
static int run(const char *prog, const char *rule, int code)
{
	struct t_child c;
	struct frame_hdr h;
	char log[4096];
	int st, rc, fired;

	tf_spawn(&c, prog, "0", rule, 1);
	CHECK(t_readable(c.out, 5000), "%s: neither HELLO nor exit within 5 s", prog);
	rc = frame_read_full(c.out, &h, sizeof h);
	fired = rc == 1;
	if (!fired) {
		CHECK(rc == 0 && h.type == FRAME_HELLO, "%s: no HELLO (%d)", prog, rc);
		close(c.in);
		c.in = -1;
		code = 0;
	}
	st = t_wait(&c, 5000);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == code, "%s \"%s\": status 0x%x, "
	      "want exit %d", prog, rule, st, code);
	t_read_log(&c, log, sizeof log);
	CHECK(t_count_lines(log, "fault:") == fired, "%s: %s", prog, log);
	t_close_fds(&c);
	return fired;
}

static long state_size(void)
{
	struct stat sb;

	return stat(tf_state, &sb) == 0 ? (long)sb.st_size : -1;
}

int main(void)
{
	const char *two = "any:start:exit=9:2";
	const char *pair = "gpu:start:exit=5,gpu:start:exit=6:2";

	tf_setup("fcount", 1, 1);
	unlink(tf_state);
	CHECK(run("gpuworker", two, 9) == 1, "1st run did not fire");
	CHECK(state_size() == 1, "state file holds %ld bytes after one firing", state_size());
	CHECK(run("synth", two, 9) == 1, "2nd run did not fire");
	CHECK(run("gpuworker", two, 9) == 0, "3rd run fired");
	CHECK(run("synth", two, 9) == 0, "4th run fired");
	CHECK(state_size() == 2, "state file holds %ld bytes after two firings", state_size());

	/* Two rules at one point: the first until spent, then the second. */
	unlink(tf_state);
	CHECK(run("gpuworker", pair, 5) == 1, "rule 1 did not fire first");
	CHECK(run("gpuworker", pair, 6) == 1, "rule 2 did not fire once rule 1 was spent");
	CHECK(run("gpuworker", pair, 6) == 1, "rule 2 did not fire twice");
	CHECK(run("gpuworker", pair, 0) == 0, "a spent rule fired");
	CHECK(run("synth", pair, 0) == 0, "a gpu rule fired in synth");

	/* inf: every run, no state file needed. */
	unsetenv("PROVISOR_FAULT_STATE");
	for (int i = 0; i < 3; i++)
		CHECK(run("synth", "synth:start:exit=3:inf", 3) == 1, "inf run %d did not fire", i);
	return 0;
}
