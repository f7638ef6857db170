/*
 * supervisor/gpus.c, the procfs fallback count, on a made-up driver tree
 * (three devices, folders not in bus order, one without an information
 * file): every device when CUDA_VISIBLE_DEVICES is unset; only those it
 * lets through when set (indices, UUID prefixes, the list ending at the
 * first bad entry, empty meaning none); 0 for a tree that is not there.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "supervisor/gpus.h"

static char root[256];

static void dev(const char *pci, const char *model, const char *uuid)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", root, pci);
	CHECK(mkdir(p, 0755) == 0, "mkdir %s", p);
	if (!model)
		return;
	snprintf(p, sizeof p, "%s/%s/information", root, pci);
	CHECK((f = fopen(p, "w")), "fopen %s", p);
	fprintf(f, "Model: \t\t %s\nIRQ:   \t\t 42\nGPU UUID: \t %s\nVideo BIOS: \t ??.??\n"
		"Bus Location: \t %s\n", model, uuid, pci);
	fclose(f);
}

static void expect(const char *vis, const char *order, int want)
{
	int got = sup_gpus_procfs(root, vis, order);

	CHECK(got == want, "CUDA_VISIBLE_DEVICES=%s CUDA_DEVICE_ORDER=%s: %d GPU(s), want %d",
	      vis ? vis : "(unset)", order ? order : "(unset)", got, want);
}

int main(void)
{
	snprintf(root, sizeof root, "%s/gpus.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(root), "mkdtemp");
	dev("0000:c1:00.0", "NVIDIA H200", "GPU-cccc0000-1111-2222-3333-444455556666");
	dev("0000:01:00.0", "NVIDIA H200", "GPU-aaaa0000-1111-2222-3333-444455556666");
	dev("0000:41:00.0", NULL, NULL);	/* its information unreadable */

	expect(NULL, NULL, 3);
	expect(NULL, "PCI_BUS_ID", 3);
	expect("", NULL, 0);
	expect("1", NULL, 1);
	expect("2,0", NULL, 2);
	expect("0,2,9,1", NULL, 2);		/* 9 ends the list */
	expect("3", NULL, 0);
	expect("GPU-cccc", NULL, 1);
	expect("aaaa0000,GPU-CCCC0000-1111", NULL, 2);
	expect("GPU-eeee", NULL, 0);
	expect("0,0", NULL, 1);
	char gone[300];
	snprintf(gone, sizeof gone, "%s/none", root);
	CHECK(sup_gpus_procfs(gone, NULL, NULL) == 0, "no tree: 0");

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0, "%s", cmd);
	puts("ok: the procfs count honours CUDA_VISIBLE_DEVICES");
	return 0;
}
