/*
 * resident: the validated, in-memory form of a params file, kept on disk
 * so that a worker's load is one read-only shared mmap (groth16.h).
 *
 * Layout (host-local; every integer native-endian, as the arrays are):
 *
 *   0      the header page (RES_PAGE bytes): struct res_hdr, the rest zero
 *   off_h  h     nh        g1_affine_t
 *   off_l  l     nvars - npub
 *   off_a  a     nvars
 *   off_b1 b_g1  nvars
 *   off_b2 b_g2  nvars     g2_affine_t
 *
 * Each array starts on a page. The header carries a BLAKE2b-256 of itself
 * (with that field zero), so a torn or foreign file is refused; the arrays
 * are not hashed again: the file is written only by the process that
 * validated its source, in a directory workers cannot write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "groth16/groth16_priv.h"
#include "util/util.h"

#define RES_PAGE 4096u
static const uint8_t res_magic[8] = { 'P', 'V', 'R', 'E', 'S', 'I', 'D', 'T' };

struct res_hdr {
	uint8_t magic[8];
	uint32_t version, layout;	/* layout: sizeof g1_affine_t << 16 | sizeof g2_affine_t */
	uint32_t k, nvars, npub, flags;
	uint64_t nh;
	struct groth16_source src;
	uint8_t vk_digest[GROTH16_DIGEST], circuit[GROTH16_DIGEST];
	struct groth16_vk vk;
	uint64_t off[5], total;		/* h, l, a, b_g1, b_g2; the file's size */
	char src_path[256];		/* the source's path when it was built (for people) */
	uint8_t sum[GROTH16_DIGEST];	/* BLAKE2b-256 of the header with sum zero */
};
_Static_assert(sizeof(struct res_hdr) <= RES_PAGE, "resident header fits its page");

static const uint32_t res_layout = (uint32_t)sizeof(g1_affine_t) << 16 | (uint32_t)sizeof(g2_affine_t);

static uint64_t page_up(uint64_t x)
{
	return (x + RES_PAGE - 1) & ~(uint64_t)(RES_PAGE - 1);
}

/* The arrays' offsets and the file's size, from the counts. */
static void res_offsets(struct res_hdr *h)
{
	uint64_t m = h->nvars, len[5] = {
		h->nh * sizeof(g1_affine_t), (m - h->npub) * sizeof(g1_affine_t), m * sizeof(g1_affine_t),
		m * sizeof(g1_affine_t), m * sizeof(g2_affine_t),
	}, at = RES_PAGE;

	for (int i = 0; i < 5; i++) {
		h->off[i] = at;
		at = page_up(at + len[i]);
	}
	h->total = at;
}

static void res_sum(const struct res_hdr *h, uint8_t out[GROTH16_DIGEST])
{
	struct res_hdr t;

	memcpy(&t, h, sizeof t);	/* padding included: the file's bytes */
	memset(t.sum, 0, sizeof t.sum);
	crypto_generichash(out, GROTH16_DIGEST, (const uint8_t *)&t, sizeof t, NULL, 0);
}

int groth16_source_of(int fd, struct groth16_source *src)
{
	struct stat st;

	memset(src, 0, sizeof *src);
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < GROTH16_DIGEST)
		return -EINVAL;
	src->size = (uint64_t)st.st_size;
	src->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	src->ino = (uint64_t)st.st_ino;
	src->dev = (uint64_t)st.st_dev;
	if (pread(fd, src->trailer, GROTH16_DIGEST, st.st_size - GROTH16_DIGEST) != GROTH16_DIGEST)
		return -EIO;
	return 0;
}

void groth16_resident_name(const struct groth16_params *p, char *buf, size_t len)
{
	char hex[17];

	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", p->vk_digest[i]);
	snprintf(buf, len, "k%u-%s.resident", p->k, hex);
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *q = buf;

	while (len) {
		ssize_t w = pwrite(fd, q, len > (1u << 30) ? 1u << 30 : len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		q += w;
		off += (uint64_t)w;
		len -= (size_t)w;
	}
	return 0;
}

int groth16_resident_build(const char *src_path, int dfd, const char *name, struct groth16_params *vk_out,
			   char *err, size_t errlen)
{
	struct groth16_params p;
	struct res_hdr *h;
	char tmp[300];
	int fd, sfd, rc;

	sfd = util_open_regular(src_path, 0, err, errlen);
	if (sfd < 0)
		return -1;
	h = calloc(1, RES_PAGE);
	if (!h) {
		close(sfd);
		return util_fail(err, errlen, -1, "out of memory");
	}
	rc = groth16_source_of(sfd, &h->src);
	close(sfd);
	if (rc) {
		free(h);
		return util_fail(err, errlen, -1, "%s: %s", src_path,
				 rc == -EINVAL ? "not a regular params file" : strerror(-rc));
	}
	if (groth16_params_read(src_path, &p, 0, err, errlen)) {
		free(h);
		return -1;
	}
	memcpy(h->magic, res_magic, sizeof res_magic);
	h->version = GROTH16_RESIDENT_VERSION;
	h->layout = res_layout;
	h->k = p.k;
	h->nvars = p.nvars;
	h->npub = p.npub;
	h->flags = p.flags;
	h->nh = p.nh;
	memcpy(h->vk_digest, p.vk_digest, GROTH16_DIGEST);
	memcpy(h->circuit, p.circuit, GROTH16_DIGEST);
	h->vk = p.vk;
	snprintf(h->src_path, sizeof h->src_path, "%s", src_path);
	res_offsets(h);
	res_sum(h, h->sum);
	snprintf(tmp, sizeof tmp, ".%s.tmp%d", name, (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		goto fail;
	}
	uint64_t m = p.nvars;
	if ((rc = write_at(fd, h, RES_PAGE, 0)) ||
	    (rc = write_at(fd, p.h, p.nh * sizeof *p.h, h->off[0])) ||
	    (rc = write_at(fd, p.l, (m - p.npub) * sizeof *p.l, h->off[1])) ||
	    (rc = write_at(fd, p.a, m * sizeof *p.a, h->off[2])) ||
	    (rc = write_at(fd, p.b_g1, m * sizeof *p.b_g1, h->off[3])) ||
	    (rc = write_at(fd, p.b_g2, m * sizeof *p.b_g2, h->off[4])))
		goto fail_fd;
	if (ftruncate(fd, (off_t)h->total) < 0 || fsync(fd) < 0 || renameat(dfd, tmp, dfd, name) < 0) {
		rc = -errno;
		goto fail_fd;
	}
	close(fd);
	fsync(dfd);
	groth16_params_free(&p);
	*vk_out = p;
	free(h);
	return 0;
fail_fd:
	close(fd);
	unlinkat(dfd, tmp, 0);
fail:
	groth16_params_free(&p);
	free(h);
	return util_fail(err, errlen, -1, "writing the resident form %s: %s", name, strerror(-rc));
}

/* Read and check the header of fd; its size must be the header's total. */
static int res_read_hdr(int fd, struct res_hdr *h, char *err, size_t errlen)
{
	uint8_t want[GROTH16_DIGEST];
	struct res_hdr t;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return util_fail(err, errlen, -1, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return util_fail(err, errlen, -1, "not a regular file");
	if (pread(fd, h, sizeof *h, 0) != (ssize_t)sizeof *h)
		return util_fail(err, errlen, -1, "shorter than a resident header");
	if (memcmp(h->magic, res_magic, sizeof res_magic))
		return util_fail(err, errlen, -1, "not a resident params file (bad magic)");
	if (h->version != GROTH16_RESIDENT_VERSION || h->layout != res_layout)
		return util_fail(err, errlen, -1, "resident version %u layout 0x%x is not this build's %u 0x%x",
				 h->version, h->layout, GROTH16_RESIDENT_VERSION, res_layout);
	res_sum(h, want);
	if (memcmp(want, h->sum, GROTH16_DIGEST))
		return util_fail(err, errlen, -1, "header checksum mismatch (corrupt)");
	if (h->k < SYNTH_LOG_MIN || h->k > VOCAB_LOG_MAX || h->nvars != synth_nvars(h->k) ||
	    h->npub != GROTH16_NPUB || h->nh != ((uint64_t)1 << h->k) - 1)
		return util_fail(err, errlen, -1, "counts do not match a k=%u circuit", h->k);
	memcpy(&t, h, sizeof t);
	res_offsets(&t);
	if (memcmp(t.off, h->off, sizeof t.off) || t.total != h->total)
		return util_fail(err, errlen, -1, "offsets do not match its counts");
	if ((uint64_t)st.st_size != h->total)
		return util_fail(err, errlen, -1, "%llu bytes, not the %llu its header says",
				 (unsigned long long)st.st_size, (unsigned long long)h->total);
	return 0;
}

static void res_to_params(const struct res_hdr *h, struct groth16_params *p)
{
	memset(p, 0, sizeof *p);
	p->k = h->k;
	p->nvars = h->nvars;
	p->npub = h->npub;
	p->flags = h->flags;
	p->nh = h->nh;
	memcpy(p->vk_digest, h->vk_digest, GROTH16_DIGEST);
	memcpy(p->circuit, h->circuit, GROTH16_DIGEST);
	p->vk = h->vk;
}

int groth16_resident_header(int fd, struct groth16_params *p, struct groth16_source *src, char *err, size_t errlen)
{
	return groth16_resident_info(fd, p, src, NULL, 0, err, errlen);
}

int groth16_resident_info(int fd, struct groth16_params *p, struct groth16_source *src, char *path, size_t plen,
			  char *err, size_t errlen)
{
	struct res_hdr h;

	if (res_read_hdr(fd, &h, err, errlen))
		return -1;
	res_to_params(&h, p);
	if (src)
		*src = h.src;
	if (path && plen) {
		h.src_path[sizeof h.src_path - 1] = '\0';
		snprintf(path, plen, "%s", h.src_path);
	}
	return 0;
}

int groth16_resident_fresh(int dfd, const char *name, const char *src_path, const struct groth16_params *vk,
			   char *why, size_t whylen)
{
	struct groth16_source want, have;
	struct groth16_params hp;
	int fd, sfd, rc;

	why[0] = '\0';
	sfd = open(src_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (sfd < 0 || groth16_source_of(sfd, &want)) {
		snprintf(why, whylen, "%s: cannot read it", src_path);
		if (sfd >= 0)
			close(sfd);
		return -1;
	}
	close(sfd);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, whylen, "none yet");
		return 0;
	}
	rc = groth16_resident_header(fd, &hp, &have, why, whylen);
	close(fd);
	if (rc)
		return 0;
	if (memcmp(&have, &want, sizeof have) || memcmp(hp.vk_digest, vk->vk_digest, sizeof hp.vk_digest) ||
	    hp.k != vk->k) {
		snprintf(why, whylen, "made from another version of the file");
		return 0;
	}
	return 1;
}

int groth16_resident_map(int fd, struct groth16_params *p, void (*progress)(void *arg, uint64_t done, uint64_t total),
			 void *arg, char *err, size_t errlen)
{
	struct res_hdr h;
	volatile const uint8_t *q;
	uint8_t *map;
	uint64_t step = 64u << 20;
	unsigned sink = 0;

	if (res_read_hdr(fd, &h, err, errlen))
		return -1;
	map = mmap(NULL, h.total, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return util_fail(err, errlen, -1, "mmap of %llu bytes: %s", (unsigned long long)h.total,
				 strerror(errno));
	madvise(map, h.total, MADV_WILLNEED);
	q = map;
	for (uint64_t at = 0; at < h.total; at += RES_PAGE) {
		sink += q[at];
		if (progress && at % step == 0)
			progress(arg, at, h.total);
	}
	(void)sink;
	if (progress)
		progress(arg, h.total, h.total);
	res_to_params(&h, p);
	p->map = map;
	p->map_len = h.total;
	p->h = (g1_affine_t *)(map + h.off[0]);
	p->l = (g1_affine_t *)(map + h.off[1]);
	p->a = (g1_affine_t *)(map + h.off[2]);
	p->b_g1 = (g1_affine_t *)(map + h.off[3]);
	p->b_g2 = (g2_affine_t *)(map + h.off[4]);
	return 0;
}
