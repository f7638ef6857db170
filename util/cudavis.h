/*
 * cudavis: which physical GPU a CUDA ordinal is, worked out the way the
 * CUDA runtime does it, without CUDA: from a list of the machine's devices
 * (PCI address, UUID, model; from NVML or from /proc/driver/nvidia), the
 * CUDA_VISIBLE_DEVICES value and CUDA_DEVICE_ORDER. Header-only and pure,
 * so that it is tested on a made-up device list (tests/util/cudavis.c).
 *
 * The CUDA runtime's rules, as documented:
 * - it enumerates the devices FASTEST_FIRST (the default: its own speed
 *   heuristic, ties broken by PCI bus id) or, with CUDA_DEVICE_ORDER=
 *   PCI_BUS_ID, by PCI domain, bus, device, function;
 * - CUDA_VISIBLE_DEVICES, when set, is a comma-separated list; each entry
 *   is an index into that enumeration, or a UUID ("GPU-8932f937-..."), or
 *   a unique prefix of one, with or without "GPU-"; the listed devices
 *   become ordinals 0, 1, ... in the order listed; the list ends at the
 *   first entry that names no device (or one named before): only those
 *   before it are visible. Set but empty: no device. MIG entries are not
 *   handled here and end the list.
 *
 * What is assumed: FASTEST_FIRST is taken to equal PCI bus order when every
 * device is the same model (the heuristic then has only the tie-break
 * left; a proving rig's usual case), and is not guessed otherwise: an
 * ordinal that came from an index under FASTEST_FIRST on a mixed rig maps
 * to CUDAVIS_UNKNOWN, so a reader shows no figures rather than another
 * GPU's. UUID entries are exact under either order.
 */
#ifndef UTIL_CUDAVIS_H
#define UTIL_CUDAVIS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CUDAVIS_MAX 64
#define CUDAVIS_UNKNOWN (-1)

struct cudavis_dev {
	uint32_t domain, bus, dev, fn;	/* PCI address */
	char uuid[80];			/* "GPU-..." as NVML and the driver print it, or "" */
	char name[96];			/* the model, for the FASTEST_FIRST rule */
};

/* "0000:3b:00.0" (the driver's folder names), "00000000:3B:00.0" (NVML's
 * busId): 0, or -1 when s is not a PCI address. */
static inline int cudavis_parse_pci(const char *s, struct cudavis_dev *d)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	/* domain (1..8 digits), ':', bus (2), ':', device (2), '.', function (1) */
	static const struct { size_t lo, hi; char sep; } f[4] = {
		{ 1, 8, ':' }, { 2, 2, ':' }, { 2, 2, '.' }, { 1, 1, '\0' } };
	unsigned long v[4];

	for (int i = 0; i < 4; i++) {
		size_t len = strspn(s, hex);

		if (len < f[i].lo || len > f[i].hi || s[len] != f[i].sep)
			return -1;
		v[i] = strtoul(s, NULL, 16);
		s += len + (i < 3);
	}
	if (v[2] > 0x1f || v[3] > 7)
		return -1;
	d->domain = (uint32_t)v[0], d->bus = (uint32_t)v[1], d->dev = (uint32_t)v[2], d->fn = (uint32_t)v[3];
	return 0;
}

static inline int cudavis_pci_cmp(const struct cudavis_dev *a, const struct cudavis_dev *b)
{
	uint64_t x = (uint64_t)a->domain << 32 | a->bus << 16 | a->dev << 8 | a->fn;
	uint64_t y = (uint64_t)b->domain << 32 | b->bus << 16 | b->dev << 8 | b->fn;

	return x < y ? -1 : x > y;
}

/* The UUID entry e (up to len bytes) against the devices: the one index
 * whose UUID it is a prefix of, or -1 (none, or more than one). */
static inline int cudavis_by_uuid(const struct cudavis_dev *devs, int n, const char *e, size_t len)
{
	int hit = -1;

	if (len >= 4 && !strncasecmp(e, "GPU-", 4))
		e += 4, len -= 4;
	if (!len)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *u = devs[i].uuid;
		if (!strncasecmp(u, "GPU-", 4))
			u += 4;
		if (strlen(u) >= len && !strncasecmp(u, e, len)) {
			if (hit >= 0)
				return -1;	/* ambiguous prefix: CUDA refuses it */
			hit = i;
		}
	}
	return hit;
}

/* CUDA's ordinals over devs[0..n): map[i] (for i below the return value,
 * at most max) is the index into devs of CUDA ordinal i, or
 * CUDAVIS_UNKNOWN when the order cannot be known (see above). visible and
 * order are the two variables' values, NULL when unset. Returns how many
 * devices CUDA sees. */
static inline int cudavis_map(const struct cudavis_dev *devs, int n, const char *visible, const char *order,
			      int *map, int max)
{
	int byid[CUDAVIS_MAX], used[CUDAVIS_MAX] = { 0 }, usedidx[CUDAVIS_MAX] = { 0 }, exact = 1, count = 0;

	if (n > CUDAVIS_MAX)
		n = CUDAVIS_MAX;
	/* The PCI bus order (an insertion sort: a few devices). */
	for (int i = 0; i < n; i++) {
		int j = i;
		for (; j > 0 && cudavis_pci_cmp(&devs[byid[j - 1]], &devs[i]) > 0; j--)
			byid[j] = byid[j - 1];
		byid[j] = i;
	}
	if (!order || strcmp(order, "PCI_BUS_ID"))
		for (int i = 1; i < n; i++)
			exact &= !strcmp(devs[i].name, devs[0].name);
	if (!visible) {
		for (int i = 0; i < n && i < max; i++)
			map[i] = exact ? byid[i] : CUDAVIS_UNKNOWN;
		return n < max ? n : max;
	}
	for (const char *p = visible; count < max;) {
		const char *e = p, *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int d;

		while (len && (*e == ' ' || *e == '\t'))
			e++, len--;
		while (len && (e[len - 1] == ' ' || e[len - 1] == '\t'))
			len--;
		if (!len)
			break;
		if (strspn(e, "0123456789") >= len) {	/* an index into the enumeration */
			unsigned long v = 0;
			for (size_t k = 0; k < len && v < (unsigned long)n; k++)
				v = v * 10 + (unsigned long)(e[k] - '0');
			if (v >= (unsigned long)n || usedidx[v])
				break;
			usedidx[v] = 1;
			d = exact ? byid[v] : CUDAVIS_UNKNOWN;
		} else if ((d = cudavis_by_uuid(devs, n, e, len)) < 0) {
			break;
		}
		if (d >= 0) {	/* named before, by index or by UUID */
			if (used[d])
				break;
			used[d] = 1;
		}
		map[count++] = d;
		if (!end)
			break;
		p = end + 1;
	}
	return count;
}

#endif
