/*
 * A plugin that cannot be loaded (no such file; a file that is no shared
 * object) is refused in one line naming it, and every gpu slot is
 * disabled as "bad backend" at once, with no restart; the supervisor
 * still stops cleanly.
 */
#include "tests/plugin/plugin.h"

static struct sv sv_missing, sv_notso;

static void refused(struct sv *v, const char *tag, const char *path, const char *why)
{
	struct shm_slot s;
	char arg[300];

	snprintf(arg, sizeof arg, "plugin:%s", path);
	sv_start(v, tag, "--gpus", "1", "--workers-per-gpu", "2", "--backend", arg, NULL);
	for (uint32_t i = 0; i < 2; i++) {
		crash_wait_state(v, SHM_T_GPU, i, SHM_SLOT_DISABLED, 20000 * (int)t_slow(), &s);
		CHECK_EQ_U64(s.disable_reason, SHM_DISABLE_BAD_BACKEND);
		CHECK_EQ_U64(s.restarts, 0);
	}
	CHECK(plug_sh("grep -q 'plugin %s: cannot load: .*%s' %s", path, why, v->log) == 0,
	      "no clear line about %s", path);
	crash_stop(v);
	sv_check_clean(v);
}

int main(void)
{
	char notso[300];

	refused(&sv_missing, "plugmissing", "/nonexistent/backend.so", "No such file");
	snprintf(notso, sizeof notso, "%s/provisor-test-notso-%d.so", t_tmpdir(), (int)getpid());
	FILE *f = fopen(notso, "w");
	CHECK(f && fputs("not an ELF file\n", f) >= 0 && fclose(f) == 0, "write %s", notso);
	chmod(notso, 0644);
	refused(&sv_notso, "plugnotso", notso, "");
	unlink(notso);
	return 0;
}
