/*
 * misbehave.so: a backend plugin that fails on request, for the tests of
 * the supervisor's isolation (tests/crash/plugin_*.c). It is the CPU
 * plugin (plugins/pcpu.h) with one misbehaviour, chosen by the
 * environment variable PROVISOR_MISBEHAVE, read at init (the worker
 * cannot open a file then: it is confined):
 *
 *   MODE        on every gpu slot
 *   MODE@SLOT   on gpu slot SLOT only (the others prove correctly)
 *
 * MODE is one of:
 *   crash    prove dies of SIGSEGV
 *   hang     prove never returns, and ignores abandon
 *   leak     prove leaks 64 MiB (touched), then proves correctly
 *   garbage  prove returns 77, which is no status
 *   wrong    prove returns a wrong proof (A and C swapped: valid points
 *            that fail the pairing), or a wrong H (one bit of H[0])
 *   nomem    prove returns PROVISOR_BE_NOMEM
 *   lost     prove returns PROVISOR_BE_DEVICE_LOST
 *   baddev   init returns PROVISOR_BE_DEVICE_LOST
 *   abi      the table says abi_version 999 (every slot: the entry
 *            point, called before init, knows no slot)
 *   snoop    reads its own library file from the entry point (before
 *            Landlock) and again in init (after it), and says in init's
 *            line what each got; then behaves (every slot)
 * Unset or empty: it behaves. An unknown MODE: init fails (internal).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins/pcpu.h"

enum mb_mode { MB_NONE, MB_CRASH, MB_HANG, MB_LEAK, MB_GARBAGE, MB_WRONG, MB_NOMEM, MB_LOST, MB_BADDEV, MB_ABI,
	       MB_SNOOP };
static const char *const mb_names[] = { "", "crash", "hang", "leak", "garbage", "wrong", "nomem", "lost",
					"baddev", "abi", "snoop" };
static enum mb_mode mb_mode;
static int mb_entry_errno = -1;	/* snoop: the entry point's read of its own file (0: it could) */

/* Open this library's own file for reading: 0, or the errno. */
static int mb_read_self(void)
{
	Dl_info info;
	int fd;

	if (!dladdr((void *)mb_read_self, &info) || !info.dli_fname)
		return ENOENT;
	fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The mode named in PROVISOR_MISBEHAVE for this slot (slot < 0: any);
 * -1 when it names none. */
static int mb_parse(int slot)
{
	const char *v = getenv("PROVISOR_MISBEHAVE"), *at;
	size_t len;

	if (!v || !*v)
		return MB_NONE;
	at = strchr(v, '@');
	len = at ? (size_t)(at - v) : strlen(v);
	if (at && slot >= 0 && atoi(at + 1) != slot)
		return MB_NONE;
	for (size_t m = 1; m < sizeof mb_names / sizeof mb_names[0]; m++)
		if (strlen(mb_names[m]) == len && !strncmp(v, mb_names[m], len))
			return (int)m;
	return -1;
}

static int mb_init(struct provisor_be_init *in, void **ctx)
{
	int m = mb_parse((int)in->slot);

	if (m < 0) {
		snprintf(in->desc, in->desc_len, "PROVISOR_MISBEHAVE: unknown mode");
		return PROVISOR_BE_INTERNAL;
	}
	mb_mode = (enum mb_mode)m;
	if (mb_mode == MB_BADDEV) {
		snprintf(in->desc, in->desc_len, "misbehave: device %d refused on request", in->device);
		return PROVISOR_BE_DEVICE_LOST;
	}
	int rc = pcpu_init(in, ctx);
	if (rc == PROVISOR_BE_OK && mb_mode == MB_SNOOP) {
		int e = mb_read_self();
		snprintf(in->desc, in->desc_len, "snoop: own file read before Landlock: %s; in init: %s",
			 mb_entry_errno ? strerror(mb_entry_errno) : "ok", e ? strerror(e) : "ok");
	} else if (rc == PROVISOR_BE_OK && mb_mode)
		snprintf(in->desc, in->desc_len, "misbehaving: %s", mb_names[mb_mode]);
	return rc;
}

static int mb_prove(void *ctx, const struct provisor_be_part *p, struct provisor_be_out *out)
{
	int rc;

	switch (mb_mode) {
	case MB_CRASH:
		raise(SIGSEGV);
		return PROVISOR_BE_INTERNAL;
	case MB_HANG:
		for (;;)
			pause();
	case MB_LEAK: {
		size_t n = 64u << 20;
		char *leak = malloc(n);
		if (leak)
			memset(leak, 0x5a, n);	/* touched, so it counts */
		break;
	}
	case MB_GARBAGE:
		return 77;
	case MB_NOMEM:
		snprintf(out->err, out->err_len, "misbehave: out of memory on request");
		return PROVISOR_BE_NOMEM;
	case MB_LOST:
		snprintf(out->err, out->err_len, "misbehave: device lost on request");
		return PROVISOR_BE_DEVICE_LOST;
	default:
		break;
	}
	rc = pcpu_prove(ctx, p, out);
	if (rc == PROVISOR_BE_OK && mb_mode == MB_WRONG) {
		if (p->params) {
			g1_affine_t t = out->proof->a;
			out->proof->a = out->proof->c;
			out->proof->c = t;
		} else {
			out->h[0].l[0] ^= 1;
		}
	}
	return rc;
}

static struct provisor_backend mb_table = {
	.abi_version = PROVISOR_BACKEND_ABI, .name = "misbehave", .init = mb_init,
	.prove = mb_prove, .abandon = pcpu_abandon, .fini = pcpu_fini,
};

const struct provisor_backend *provisor_backend_v1(void);

const struct provisor_backend *provisor_backend_v1(void)
{
	if (mb_parse(-1) == MB_ABI)
		mb_table.abi_version = 999;
	if (mb_parse(-1) == MB_SNOOP)
		mb_entry_errno = mb_read_self();
	return &mb_table;
}
