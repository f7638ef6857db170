/*
 * pcpu: the CPU backend as plugin code (gpuworker/backend.h), shared by
 * plugins/cpu.c, which exports it as it is, and plugins/misbehave.c,
 * which wraps it. The same computation as the built-in cpu backend (the
 * H-term, then the MSMs), linked into the plugin itself: nothing of the
 * gpuworker's is called.
 */
#ifndef PLUGINS_PCPU_H
#define PLUGINS_PCPU_H

#include "gpuworker/backend.h"

int pcpu_init(struct provisor_be_init *in, void **ctx);
int pcpu_prove(void *ctx, const struct provisor_be_part *p, struct provisor_be_out *out);
void pcpu_abandon(void *ctx, uint64_t ticket);
void pcpu_fini(void *ctx);

#endif
