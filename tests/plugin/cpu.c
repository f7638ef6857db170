/*
 * cpu.so, the CPU backend as a plugin, proves as the built-in one does:
 * two porep jobs (one under a sanitizer) through it end done with every
 * proof verified by the pairing, its slots publish backend "plugin" and
 * its workers log which plugin they loaded; then the same jobs through
 * the built-in cpu backend, same params, end the same way with results
 * of the same size.
 */
#include "tests/plugin/plugin.h"

static struct sv sv_plugin, sv_builtin;

static void two_jobs(struct sv *v, const char *plugin, uint32_t backend, off_t *size)
{
	struct stat st;
	char path[400];

	plug_start(v, plugin ? "plugcpu" : "builtin", plugin, NULL, NULL);
	uint64_t a = sv_submit(v, "porep"), b = T_SANITIZER ? 0 : sv_submit(v, "porep");	/* one is enough there */
	plug_proofs_ok(v, a, 120);
	if (b)
		plug_proofs_ok(v, b, 120);
	for (uint32_t i = 0; i < 2; i++)
		CHECK_EQ_U64(plug_slot(v, i).backend, backend);
	snprintf(path, sizeof path, "%s/results/job-%llu.result", v->dir, (unsigned long long)a);
	CHECK(stat(path, &st) == 0, "stat %s", path);
	*size = st.st_size;
	crash_stop(v);
	sv_check_clean(v);
}

int main(void)
{
	off_t plugin_size, builtin_size;

	two_jobs(&sv_plugin, "cpu", VOCAB_BACKEND_PLUGIN, &plugin_size);
	CHECK(plug_sh("grep -q 'backend plugin cpu-plugin (/.*/cpu.so)' %s", sv_plugin.log) == 0,
	      "no worker said it loaded cpu.so");
	two_jobs(&sv_builtin, NULL, VOCAB_BACKEND_CPU, &builtin_size);
	CHECK(plugin_size == builtin_size && plugin_size == 80 + 4 * (376 + 32) + 32,
	      "result sizes: plugin %lld, built-in %lld", (long long)plugin_size, (long long)builtin_size);
	printf("info: 2 + 2 porep jobs, 16 proofs verified, through cpu.so and the built-in cpu backend\n");
	return 0;
}
