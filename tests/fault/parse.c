/*
 * fault_parse: PROVISOR_FAULT as the workers read it. Each malformed form
 * ends bin/gpuworker and bin/synth alike with exit 1 before HELLO and one
 * stderr line that names what was wrong; each valid set of rules lets the
 * worker start and serve as usual when no rule of its own fires (rules for
 * another kind or slot, rules at points not reached, unset or empty).
 */
#include "tests/fault/common.h"

static const struct { const char *rule, *why; } bad[] = {
	{ "gpu:during:explode", "unknown ACTION \"explode\"" },
	{ "gpux:during:kill", "unknown WHO \"gpux\"" },
	{ "gpu.:during:kill", "unknown WHO \"gpu.\"" },
	{ "synth.70000:during:kill", "unknown WHO \"synth.70000\"" },
	{ "GPU:during:kill", "unknown WHO \"GPU\"" },
	{ "gpu:middle:kill", "unknown POINT \"middle\"" },
	{ "gpu:during", "not WHO:POINT:ACTION[:COUNT]" },
	{ "gpu:during:kill:1:2", "not WHO:POINT:ACTION[:COUNT]" },
	{ "::", "not WHO:POINT:ACTION[:COUNT]" },
	{ "gpu:during:kill:0", "bad COUNT \"0\"" },
	{ "gpu:during:kill:-1", "bad COUNT \"-1\"" },
	{ "gpu:during:kill:", "bad COUNT \"\"" },
	{ "gpu:during:kill:2x", "bad COUNT \"2x\"" },
	{ "gpu:during:exit=", "bad exit code \"\"" },
	{ "gpu:during:exit=256", "bad exit code \"256\"" },
	{ "gpu:during:corrupt", "corrupt and hostile go with the frame point" },
	{ "synth:frame:exit", "corrupt and hostile go with the frame point" },
	{ "gpu:after:hostile", "corrupt and hostile go with the frame point" },
	{ "gpu:during:flip", "flip goes with the store point" },
	{ "gpu:store:kill", "flip goes with the store point" },
	{ "gpu:during:kill:3@0", "bad SKIP \"0\"" },
	{ "gpu:during:kill:3@x", "bad SKIP \"x\"" },
	{ "gpu:during:kill,", "an empty rule" },
	{ ",gpu:during:kill", "an empty rule" },
	{ "any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,"
	  "any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,"
	  "any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,"
	  "any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,any:start:exit:inf,"
	  "any:start:exit:inf", "more than 16 rules" },
};

/* Rules that parse and that nothing in a HELLO-then-EOF run fires. */
static const char *const good[] = {
	NULL,
	"",
	"gpu.1:start:exit,synth.1:start:exit",
	"gpu.0:frame:corrupt:inf,synth.0:frame:corrupt:3",
	"any:before:exit=0:1000000,any:during:segv,any:after:abort,any:shm:hang,any:during:stop",
	"gpu:during:kill:inf,synth:after:exit=255:inf,any:before:hang,gpu.3:during:hold",
	"gpu.0:store:flip:2@3,gpu:during:kill:inf@5,any:store:flip",
};

static const char *const progs[] = { "gpuworker", "synth" };

static void one_bad(const char *prog, const char *rule, const char *why)
{
	struct t_child c;
	char log[4096];
	uint8_t b;

	tf_spawn(&c, prog, "0", rule, 0);
	int st = t_wait(&c, 5000);

	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s \"%s\": status 0x%x, log %s",
	      prog, rule, st, log);
	CHECK(read(c.out, &b, 1) == 0, "%s \"%s\": it wrote a frame", prog, rule);
	CHECK(t_count_lines(log, "") == 1 && !strncmp(log, "fault: ", 7) && strstr(log, why),
	      "%s \"%s\": want one line with '%s', got:\n%s", prog, rule, why, log);
	t_close_fds(&c);
}

static void one_good(const char *prog, const char *rule)
{
	struct t_child c;
	char log[4096];

	tf_spawn(&c, prog, "0", rule, 0);
	tf_hello(&c);
	close(c.in);
	c.in = -1;
	int st = t_wait(&c, 5000);

	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s \"%s\": status 0x%x, log %s",
	      prog, rule ? rule : "(unset)", st, log);
	CHECK(!strstr(log, "fault:"), "%s \"%s\": %s", prog, rule, log);
	t_close_fds(&c);
}

int main(void)
{
	struct t_child c;
	char log[4096];

	tf_setup("fparse", 1, 1);
	for (size_t p = 0; p < 2; p++) {
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			one_bad(progs[p], bad[i].rule, bad[i].why);
		for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
			one_good(progs[p], good[i]);
	}
	/* A finite COUNT, even of another worker's rule, needs a state file. */
	unsetenv("PROVISOR_FAULT_STATE");
	tf_spawn(&c, "synth", "0", "gpu.3:during:kill", 0);
	int st = t_wait(&c, 5000);

	t_read_log(&c, log, sizeof log);
	CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1 &&
	      t_count_lines(log, "") == 1 && strstr(log, "PROVISOR_FAULT_STATE is not set"),
	      "no state file: status 0x%x, log %s", st, log);
	t_close_fds(&c);
	printf("info: %zu malformed forms refused and %zu valid sets accepted by both workers\n",
	       sizeof bad / sizeof bad[0], sizeof good / sizeof good[0]);
	return 0;
}
