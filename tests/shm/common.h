/*
 * Helpers for the status segment tests: a segment with a name unique to
 * this test process, removed at exit even when a check fails.
 */
#ifndef TESTS_SHM_COMMON_H
#define TESTS_SHM_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "shm/shm.h"
#include "tests/helpers.h"

static struct shm_seg t_seg;
static pid_t t_seg_pid;

static void t_seg_cleanup(void)
{
	if (getpid() == t_seg_pid && t_seg.owner)
		shm_destroy(&t_seg);
}

/* Create a segment named "t-TAG-PID" and return it; exit(1) on failure. */
static inline struct shm_seg *t_seg_create(const char *tag, uint32_t gpu, uint32_t synth)
{
	char name[SHM_NAME_MAX + 1], err[256];
	struct shm_config c = { .name = name, .gpu_slots = gpu, .synth_slots = synth };

	snprintf(name, sizeof name, "t-%s-%d", tag, (int)getpid());
	if (shm_create(&t_seg, &c, err, sizeof err) < 0)
		T_FAIL("shm_create: %s", err);
	t_seg_pid = getpid();
	atexit(t_seg_cleanup);
	return &t_seg;
}

#endif
