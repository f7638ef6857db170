/*
 * cpu.so: the CPU backend as a plugin (`--backend plugin:.../cpu.so`):
 * the built-in cpu backend's computation behind the plugin ABI, the
 * reference for wrapping a prover library (docs/backend-abi.md), and
 * what bench/proofs.sh's plugin mode holds against the built-in one.
 */
#include "plugins/pcpu.h"

static const struct provisor_backend cpu_table = {
	.abi_version = PROVISOR_BACKEND_ABI, .name = "cpu-plugin", .init = pcpu_init,
	.prove = pcpu_prove, .abandon = pcpu_abandon, .fini = pcpu_fini,
};

const struct provisor_backend *provisor_backend_v1(void);

const struct provisor_backend *provisor_backend_v1(void)
{
	return &cpu_table;
}
