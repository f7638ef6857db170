/*
 * util/cudavis.h on made-up rigs (no NVML, no CUDA): CUDA's ordinals
 * follow PCI bus order whatever order the list comes in; an index entry
 * of CUDA_VISIBLE_DEVICES picks from that order, a UUID or a unique
 * prefix of one (with or without "GPU-", any case) picks its device; the
 * list ends at the first entry naming nothing, an ambiguous prefix, a MIG
 * entry or a device named before; set but empty is no device; on a rig of
 * mixed models an index under FASTEST_FIRST maps to unknown, never to a
 * guess, while PCI_BUS_ID and UUIDs stay exact; PCI addresses parse in
 * the driver's and NVML's spellings and nothing else.
 */
#include "tests/helpers.h"
#include "util/cudavis.h"

/* Listed as NVML might list them: not in bus order. */
static struct cudavis_dev rig[4] = {
	{ 0, 0x81, 0, 0, "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", "NVIDIA H200" },
	{ 0, 0x01, 0, 0, "GPU-8932a000-1111-2222-3333-444455556666", "NVIDIA H200" },
	{ 0, 0x41, 0, 0, "GPU-cccc0000-1111-2222-3333-444455556666", "NVIDIA H200" },
	{ 0, 0xc1, 0, 0, "GPU-dddd0000-1111-2222-3333-444455556666", "NVIDIA H200" },
};

/* want: the devices' list indexes for ordinals 0.., 'U' for unknown. */
static void expect(const char *vis, const char *order, const char *want)
{
	int map[CUDAVIS_MAX], n = cudavis_map(rig, 4, vis, order, map, CUDAVIS_MAX);
	char got[3 * CUDAVIS_MAX + 1] = "";

	for (int i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%c", i ? " " : "",
			 map[i] == CUDAVIS_UNKNOWN ? 'U' : '0' + map[i]);
	CHECK(!strcmp(got, want), "CUDA_VISIBLE_DEVICES=%s CUDA_DEVICE_ORDER=%s: ordinals -> [%s], want [%s]",
	      vis ? vis : "(unset)", order ? order : "(unset)", got, want);
}

static void check_pci(void)
{
	struct cudavis_dev d;

	CHECK(cudavis_parse_pci("0000:3b:00.0", &d) == 0 && d.domain == 0 && d.bus == 0x3b && d.dev == 0 &&
	      d.fn == 0, "the driver's spelling");
	CHECK(cudavis_parse_pci("00000001:3B:1f.7", &d) == 0 && d.domain == 1 && d.bus == 0x3b &&
	      d.dev == 0x1f && d.fn == 7, "NVML's spelling");
	static const char *bad[] = { "", "0000:3b:00", "0000:3b:00.0x", "0000:100:00.0", "0000:3b:20.0",
				     "0000:3b:00.8", "GPU-8932", ".." };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(cudavis_parse_pci(bad[i], &d) == -1, "'%s' taken as a PCI address", bad[i]);
}

int main(void)
{
	check_pci();
	/* Bus order 0x01, 0x41, 0x81, 0xc1 is list 1, 2, 0, 3. */
	expect(NULL, NULL, "1 2 0 3");
	expect(NULL, "PCI_BUS_ID", "1 2 0 3");
	expect("", NULL, "");
	expect("2", NULL, "0");
	expect("3,0", NULL, "3 1");
	expect(" 1 , 2 ", NULL, "2 0");
	expect("1,7,2", NULL, "2");		/* 7 names nothing: the list ends */
	expect("0,0,1", NULL, "1");		/* named twice */
	expect("-1,0", NULL, "");
	expect("99999999999999999999999,0", NULL, "");
	expect("GPU-cccc0000-1111-2222-3333-444455556666", NULL, "2");
	expect("gpu-CCCC,dddd", NULL, "2 3");	/* prefixes, any case, GPU- optional */
	expect("GPU-8932", NULL, "");		/* two devices start so: ambiguous */
	expect("GPU-8932f,GPU-8932a", NULL, "0 1");
	expect("2,GPU-8932f", NULL, "0");	/* index 2 is that device */
	expect("1,MIG-GPU-8932f937/1/0", NULL, "2");
	expect("1x", NULL, "");
	expect("0,", NULL, "1");
	expect(",0", NULL, "");

	int map[2];
	CHECK(cudavis_map(rig, 4, NULL, NULL, map, 2) == 2 && map[0] == 1 && map[1] == 2, "max caps the map");
	CHECK(cudavis_map(rig, 0, "0", NULL, map, 2) == 0, "no devices: nothing visible");

	/* A mixed rig: the default order is CUDA's speed heuristic. */
	snprintf(rig[3].name, sizeof rig[3].name, "NVIDIA A100-SXM4-80GB");
	expect(NULL, NULL, "U U U U");
	expect(NULL, "FASTEST_FIRST", "U U U U");
	expect(NULL, "PCI_BUS_ID", "1 2 0 3");
	expect("3,1", "PCI_BUS_ID", "3 2");
	expect("GPU-dddd,1", NULL, "3 U");	/* the UUID is exact, the index is not */
	expect("1,1", NULL, "U");
	puts("ok: CUDA's ordinals from PCI order, CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER");
	return 0;
}
