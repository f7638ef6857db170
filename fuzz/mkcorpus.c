/*
 * mkcorpus: write the fuzz seed corpora (fuzz/corpus/NAME/) with the
 * modules' own writers, so every seed starts valid where it should:
 * frames sealed by frame_seal, files by pfile_write_*, a journal by
 * journal_submit/journal_end, a status segment by shm_create, points by
 * the curve's encoders, params and a proof by groth16's writers. A few
 * broken variants of each go beside them. Run by `make fuzz-corpus`;
 * the output is committed (small: a few KB per target).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/curve.h"
#include "format/pfile.h"
#include "groth16/groth16.h"
#include "journal/journal.h"
#include "proto/frame.h"
#include "shm/shm.h"

static const char *root;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "mkcorpus: %s: %s\n", what, why);
	exit(1);
}

static void put(const char *target, const char *name, const void *p, size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, target);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
	if (!(f = fopen(path, "wb")) || fwrite(p, 1, n, f) != n || fclose(f))
		die(path, strerror(errno));
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	if (!f || fseek(f, 0, SEEK_END) || (long)(*n = (size_t)ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc(*n + 1)) || fread(buf, 1, *n, f) != *n)
		die(path, "cannot read");
	fclose(f);
	return buf;
}

static void frame_seed(const char *name, uint16_t type, uint16_t k, const void *payload,
		       size_t n, int corrupt)
{
	uint8_t buf[FRAME_HDR_SIZE + 4096];
	struct frame_hdr h;

	frame_init(&h, type, 7, 1, VOCAB_KIND_POREP, k, 3);
	if (type == FRAME_PART_DATA) {	/* its checksum is the payload's trailer */
		h.payload_len = n;
		frame_seal_hdr(&h);
	} else {
		frame_seal(&h, payload, n);
	}
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, payload, n);
	if (corrupt)
		buf[corrupt] ^= 0x40;
	put("frame", name, buf, sizeof h + n);
}

static void frames(void)
{
	struct frame_hello hello = { .pid = 42, .backend = 1, .desc = "cpu backend" };
	struct frame_synth_req req = { .seed_len = 4, .seed = { 1, 2, 3, 4 } };
	uint8_t part[3 * 2 * 32 + FRAME_TRAILER_BYTES] = { 0 };
	struct frame_h_done h = { .digest = { 1 } };

	for (size_t i = 0; i + FRAME_TRAILER_BYTES < sizeof part; i += 32)
		part[i] = (uint8_t)(i / 32 + 1);	/* a[0] = 1, a[1] = 2, b[0] = 3, ... */
	frame_part_seal(part, 1);

	frame_seed("hello", FRAME_HELLO, 0, &hello, sizeof hello, 0);
	frame_seed("synth_req", FRAME_SYNTH_REQ, 4, &req, sizeof req, 0);
	frame_seed("part_data", FRAME_PART_DATA, 1, part, sizeof part, 0);
	frame_seed("h_done", FRAME_H_DONE, 1, &h, sizeof h, 0);
	frame_seed("fail", FRAME_FAIL, 0, FRAME_FAIL_CHECKSUM, strlen(FRAME_FAIL_CHECKSUM), 0);
	frame_seed("bad_hdr_check", FRAME_H_DONE, 1, &h, sizeof h, 23);
	frame_seed("bad_payload", FRAME_H_DONE, 1, &h, sizeof h, FRAME_HDR_SIZE + 5);
	put("frame", "short", "PVFR\x01", 5);
}

static void ctls(void)
{
	static const char *const lines[][2] = {
		{ "ping", "ping\n" }, { "hello", "hello\n" }, { "drain", "drain" }, { "resume", "resume\n" }, { "stop", "stop\n" },
		{ "submit_full", "submit porep seed=00ff10 k=16 partitions=4\n" },
		{ "submit_kind", "submit winning-post" },
		{ "submit_order", "submit snap-deals partitions=64 k=1 seed=AB\n" },
		{ "cancel", "cancel 18446744073709551615\n" },
		{ "retry", "retry 7\n" },
		{ "worker_enable", "worker enable gpu.0\n" },
		{ "worker_disable", "worker disable synth.3" },
		{ "bad_space", "submit  porep\n" }, { "bad_word", "frobnicate\n" },
		{ "bad_k", "submit window-post k=99\n" }, { "bad_byte", "ping\x01\n" },
		{ "bad_dup", "submit porep k=2 k=3\n" },
	};

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		put("ctl", lines[i][0], lines[i][1], strlen(lines[i][1]));
}

static void confs(void)
{
	static const char *const files[][2] = {
		{ "full", "[supervisor]\nname = rig1\nstate_dir = /tmp/provisor-fuzz\n"
			  "gpus = 2\nworkers_per_gpu = 2\nsynth = 2\nbackend = cpu\n"
			  "mem_budget = 1GiB\nshm_mode = 0640\nsocket_mode = 0600\n"
			  "max_jobs = 1024\nrestart_intensity = 5\nrestart_period = 60s\n"
			  "backoff_max = 10s\nstable_run = 10s\npoison_attempts = 3\n"
			  "heartbeat_timeout = 5s\nstop_timeout = 10s\nmax_log_size = 20\n"
			  "[kind.porep]\nlog_size = 16\npartitions = 10\npriority = 2\n"
			  "deadline = 60s\n[kind.winning-post]\nlog_size = 12\n" },
		{ "small", "; comment\n[supervisor]\ngpus = auto\nsynth = 3\n" },
		{ "kinds", "[kind.snap-deals]\npartitions = 64\n[kind.window-post]\n"
			   "deadline = 500ms\npriority = 0\n" },
		{ "empty", "" },
		{ "bad_key", "[supervisor]\nflux = 3\n" },
		{ "bad_value", "[supervisor]\nmem_budget = 12XB\n" },
		{ "bad_section", "[nope]\nname = x\n" },
		{ "bad_syntax", "[supervisor\nname\n" },
		{ "bad_check", "[supervisor]\nmax_log_size = 8\n[kind.porep]\nlog_size = 16\n" },
	};

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		put("conf", files[i][0], files[i][1], strlen(files[i][1]));
}

static void journals(const char *tmp)
{
	struct journal *j;
	char path[512], warn[256], err[256];
	uint64_t next;
	uint8_t *buf;
	size_t n;

	snprintf(path, sizeof path, "%s/journal", tmp);
	unlink(path);
	if (journal_open(&j, tmp, NULL, NULL, &next, warn, sizeof warn, err, sizeof err))
		die("journal_open", err);
	for (uint64_t id = next; id < next + 3; id++) {
		struct journal_job job = { .id = id, .kind = (uint32_t)id % 4 + 1, .priority = 1,
					   .log_size = 4, .nparts = 2, .seed_len = 3,
					   .seed = { 9, 8, (uint8_t)id }, .submit_wall_ns = 1000,
					   .uid = 1000 + (uint32_t)id };
		if (journal_submit(j, &job, err, sizeof err))
			die("journal_submit", err);
	}
	if (journal_end(j, next + 1, 5, err, sizeof err))
		die("journal_end", err);
	journal_close(j);
	buf = slurp(path, &n);
	put("journal", "jobs", buf, n);
	put("journal", "torn_tail", buf, n - 5);
	buf[40] ^= 1;
	put("journal", "corrupt_middle", buf, n);
	put("journal", "empty", "", 0);
	free(buf);
	unlink(path);
}

static void pfiles(const char *tmp)
{
	struct synth_id id = { .seed = { 0xab, 0xcd }, .seed_len = 2, .partition = 1, .k = 3 };
	struct pfile_result res = { .job_id = 5, .job_kind = VOCAB_KIND_SNAP_DEALS,
				    .partitions = 2, .id = id };
	struct pfile_writer *w;
	fr_t a[8], b[8], c[8];
	char path[512], err[256];
	uint8_t *buf;
	size_t n;

	res.id.partition = 0;
	for (int i = 0; i < 8; i++) {
		fr_from_u64(&a[i], 1 + i);
		fr_from_u64(&b[i], 100 + i);
		fr_from_u64(&c[i], 10000 + i);
	}
	snprintf(path, sizeof path, "%s/seed.pfile", tmp);
	if (pfile_write_partition(path, &id, a, b, c, err, sizeof err))
		die("pfile_write_partition", err);
	buf = slurp(path, &n);
	put("pfile", "partition", buf, n);
	put("pfile", "truncated", buf, n - 7);
	memset(buf + n - 32, 0xff, 32);		/* a non-canonical last element */
	put("pfile", "noncanonical", buf, n);
	free(buf);
	if (pfile_write_h(path, &id, a, err, sizeof err))
		die("pfile_write_h", err);
	buf = slurp(path, &n);
	put("pfile", "h", buf, n);
	buf[8] = 9;				/* version */
	put("pfile", "bad_version", buf, n);
	free(buf);
	/* Result files: what the writer writes, its damage, and one of
	 * circuit v1 (format version 2, refused). */
	if (pfile_result_begin(path, &res, &w, err, sizeof err) ||
	    pfile_result_put(w, a, err, sizeof err) || pfile_result_put(w, b, err, sizeof err) ||
	    pfile_result_commit(w, err, sizeof err))
		die("pfile_result", err);
	buf = slurp(path, &n);
	put("pfile", "result", buf, n);
	buf[n - 1] ^= 1;
	put("pfile", "bad_sum", buf, n);
	buf[n - 1] ^= 1;
	buf[pfile_result2_table_off(3, 2) + 33] ^= 1;	/* partition 1's entry */
	put("pfile", "result_bad_table", buf, n);
	buf[pfile_result2_table_off(3, 2) + 33] ^= 1;
	buf[pfile_result2_part_off(3, 1)] ^= 1;	/* partition 1's H[0], still canonical */
	put("pfile", "result_bad_digest", buf, n);
	buf[pfile_result2_part_off(3, 1)] ^= 1;
	{	/* non-canonical, with a digest and checksum that match it */
		uint8_t *tab = buf + pfile_result2_table_off(3, 2);
		struct pfile_digest d;
		memset(buf + pfile_result2_part_off(3, 1), 0xff, 32);
		pfile_digest_init(&d);
		pfile_digest_update(&d, buf + pfile_result2_part_off(3, 1), 8 * 32);
		pfile_digest_final(&d, tab + 32);
		pfile_result2_sum(buf, tab, 2, tab + 2 * 32);
		put("pfile", "result_noncanonical", buf, n);
	}
	free(buf);
	buf = slurp(path, &n);
	buf[8] = 2;	/* sealed again: refused for its version alone */
	pfile_result2_sum(buf, buf + pfile_result2_table_off(3, 2), 2,
			  buf + pfile_result2_table_off(3, 2) + 2 * 32);
	put("pfile", "result_circuit1", buf, n);
	free(buf);
	{	/* a proofs+H file as the supervisor assembles it: each region a
		 * made-up proof (the reader does not decode it) and H */
		uint64_t size = pfile_res_size(PFILE_KIND_PROOFS_H, 3, 2);
		uint64_t tab = pfile_res_table_off(PFILE_KIND_PROOFS_H, 3, 2);

		buf = calloc(1, size);
		if (!buf)
			die("calloc", "out of memory");
		pfile_res_header(PFILE_KIND_PROOFS_H, &res, buf);
		for (uint32_t p = 0; p < 2; p++) {
			uint8_t *r = buf + pfile_res_part_off(PFILE_KIND_PROOFS_H, 3, p);
			struct pfile_digest d;

			memcpy(r, "PVPROOF1", 8);
			for (int i = 0; i < 8; i++)
				fr_to_bytes(r + PFILE_PROOF_REGION + i * 32, p ? &b[i] : &a[i]);
			pfile_digest_init(&d);
			pfile_digest_update(&d, r, pfile_res_region(PFILE_KIND_PROOFS_H, 3));
			pfile_digest_final(&d, buf + tab + p * 32);
		}
		pfile_result2_sum(buf, buf + tab, 2, buf + tab + 2 * 32);
		put("pfile", "proofs_h", buf, size);
		free(buf);
	}
	put("pfile", "bad_magic", "PROVISIR", 8);
	unlink(path);
}

static void shms(void)
{
	struct shm_config cfg = { .name = NULL, .mode = 0600, .gpu_slots = 2, .synth_slots = 2,
				  .jobs = 4, .events = 8, .control_path = "/run/provisor.sock" };
	struct shm_job job = { .id = 3, .kind = VOCAB_KIND_POREP, .state = 1, .log_size = 4,
			       .nparts = 2 };
	struct shm_seg s;
	char name[64], err[256];
	uint8_t *buf;

	snprintf(name, sizeof name, "mkcorpus-%d", (int)getpid());
	cfg.name = name;
	if (shm_create(&s, &cfg, err, sizeof err))
		die("shm_create", err);
	shm_write_job(&s, 0, &job);
	for (int i = 0; i < 10; i++) {	/* wraps the 8-entry ring */
		struct shm_event ev = { .type = 1 + i % 4, .table = SHM_T_GPU, .slot = 1 };
		snprintf(ev.msg, sizeof ev.msg, "event %d", i);
		shm_post_event(&s, &ev);
	}
	buf = malloc(s.size);
	memcpy(buf, s.base, s.size);
	memset(buf + 24, 0, 4);		/* supervisor pid: not this process */
	put("shm", "segment", buf, s.size);
	put("shm", "header_only", buf, SHM_HEADER_SIZE);
	put("shm", "truncated", buf, s.size - 8);
	buf[0] ^= 1;
	put("shm", "bad_magic", buf, SHM_HEADER_SIZE);
	free(buf);
	shm_destroy(&s);
}

/* point: a selector byte (fuzz_point.c), then the encoding. */
static void point_seed(const char *name, uint8_t sel, const uint8_t *enc, size_t len)
{
	uint8_t buf[1 + G2_UNCOMPRESSED];

	buf[0] = sel;
	memcpy(buf + 1, enc, len);
	put("point", name, buf, 1 + len);
}

static void points(void)
{
	uint8_t e[G2_UNCOMPRESSED];
	g1_affine_t inf1 = { .inf = 1 };
	g2_affine_t inf2 = { .inf = 1 };

	g1_compress(e, &G1_GENERATOR);
	point_seed("g1_compressed", 0, e, G1_COMPRESSED);
	e[0] ^= 0x20;				/* the other root's sort flag */
	point_seed("g1_compressed_neg", 0, e, G1_COMPRESSED);
	g1_serialize(e, &G1_GENERATOR);
	point_seed("g1_uncompressed", 1, e, G1_UNCOMPRESSED);
	point_seed("g1_unchecked", 4, e, G1_UNCOMPRESSED);
	g1_compress(e, &inf1);
	point_seed("g1_infinity", 0, e, G1_COMPRESSED);
	g2_compress(e, &G2_GENERATOR);
	point_seed("g2_compressed", 2, e, G2_COMPRESSED);
	g2_serialize(e, &G2_GENERATOR);
	point_seed("g2_uncompressed", 3, e, G2_UNCOMPRESSED);
	point_seed("g2_unchecked", 5, e, G2_UNCOMPRESSED);
	g2_serialize(e, &inf2);
	point_seed("g2_infinity", 3, e, G2_UNCOMPRESSED);
}

/* A k = 3 params file (about 4.5 KiB) and a proof file that names it. */
static void groth16s(const char *tmp)
{
	static const uint8_t seed[] = { 0x5e, 0xed };
	struct groth16_params p;
	struct groth16_proof_file f = { .id = { .seed = { 1 }, .seed_len = 1, .partition = 2, .k = 3 } };
	uint8_t proof[GROTH16_PROOF_BYTES], *buf;
	char path[512], err[256];
	size_t n;

	if (groth16_setup(&p, seed, sizeof seed, 3, 1, err, sizeof err))
		die("groth16_setup", err);
	snprintf(path, sizeof path, "%s/seed.params", tmp);
	if (groth16_params_write(path, &p, err, sizeof err))
		die("groth16_params_write", err);
	buf = slurp(path, &n);
	unlink(path);
	put("params", "k3", buf, n);
	put("params", "vk_only", buf, GROTH16_PARAMS_HEADER + 1156);
	buf[8] = 2;
	put("params", "bad_version", buf, n);
	free(buf);

	memcpy(f.vk_digest, p.vk_digest, sizeof f.vk_digest);
	fr_from_u64(&f.x[0], 3);
	fr_from_u64(&f.x[1], 4);
	f.proof.a = p.vk.alpha_g1;
	f.proof.b = p.vk.beta_g2;
	f.proof.c = p.vk.delta_g1;
	groth16_params_free(&p);
	groth16_proof_encode(proof, &f);
	put("proof", "proof", proof, sizeof proof);
	proof[152] &= 0x7f;		/* A without its compression flag */
	put("proof", "bad_flag", proof, sizeof proof);
	put("proof", "truncated", proof, sizeof proof - 1);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/provisor-mkcorpus.XXXXXX";

	root = argc > 1 ? argv[1] : "fuzz/corpus";
	mkdir(root, 0755);
	if (!mkdtemp(tmp))
		die("mkdtemp", strerror(errno));
	frames();
	ctls();
	confs();
	journals(tmp);
	pfiles(tmp);
	shms();
	points();
	groth16s(tmp);
	rmdir(tmp);
	return 0;
}
