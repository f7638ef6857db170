/*
 * seg: create, open, validate and close the status segment.
 *
 * Validation happens once, when a segment is mapped: the table descriptors
 * are checked against the mapped size and copied into the caller's
 * struct shm_seg, so that a writer scribbling over the header afterwards
 * cannot send a reader outside its mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shm/shm.h"
#include "util/text.h"
#include "util/util.h"

static const uint32_t payload_sizes[SHM_NTABLES] = {
	[SHM_T_SUP] = sizeof(struct shm_sup),
	[SHM_T_GPU] = sizeof(struct shm_slot),
	[SHM_T_SYNTH] = sizeof(struct shm_slot),
	[SHM_T_JOB] = sizeof(struct shm_job),
	[SHM_T_EVENT] = sizeof(struct shm_event),
};

static const char *const table_names[SHM_NTABLES] = {
	"supervisor", "gpu slot", "synth slot", "job", "event",
};

#define SHM_MAX_RECORDS (1u << 20)

uint64_t shm_now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t shm_now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int shm_name_check(const char *name, char *err, size_t errlen)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > SHM_NAME_MAX)
		return util_fail(err, errlen, -EINVAL,
			    "instance name must be 1 to %d characters", SHM_NAME_MAX);
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		char shown[4 * SHM_NAME_MAX + 8], ch[8];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return util_fail(err, errlen, -EINVAL,
				    "instance name '%s' has '%s'; use letters, digits, '_', '-', '.'",
				    util_clean(shown, sizeof shown, name),
				    util_cleann(ch, sizeof ch, &name[i], 1));
	}
	if (name[0] == '.')
		return util_fail(err, errlen, -EINVAL, "instance name must not start with '.'");
	return 0;
}

/* Where this process's instances keep their segments: a directory only
 * its uid can create files in (docs/shm-layout.md, "Where the segment
 * lives"). Root's: /run/provisor. Another user's: $XDG_RUNTIME_DIR/provisor
 * when that is set and absolute, else /dev/shm/provisor-UID. */
/* Whose is /run/provisor? Only root can make a directory in /run (when
 * /run is root's and writable by nobody else), so its owner is the one
 * root chose: root itself, or a service user that systemd gave it to
 * (RuntimeDirectory=provisor with User=). 0 when it is missing or is not
 * such a directory. */
uid_t shm_system_owner(void)
{
	struct stat run, st;

	if (lstat("/run", &run) < 0 || !S_ISDIR(run.st_mode) || run.st_uid != 0 || (run.st_mode & 022) ||
	    lstat(SHM_SYSTEM_DIR, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	return st.st_uid;
}

int shm_base_dir(uid_t uid, char *buf, size_t len)
{
	const char *xdg = uid == geteuid() ? secure_getenv("XDG_RUNTIME_DIR") : NULL;
	int n;

	if (uid == 0 || uid == shm_system_owner())
		n = snprintf(buf, len, "%s", SHM_SYSTEM_DIR);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/provisor", xdg);
	else
		n = snprintf(buf, len, "/dev/shm/provisor-%u", (unsigned)uid);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int shm_path(const char *name, char *buf, size_t len)
{
	char base[sizeof ((struct shm_seg *)0)->path];
	int n;

	if (shm_base_dir(geteuid(), base, sizeof base) < 0)
		return -ENAMETOOLONG;
	n = snprintf(buf, len, "%s/%s%s", base, name, SHM_SUFFIX);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* May a directory hold uid's segments? It must be a real directory (not
 * a symlink), owned by uid, and writable by nobody else. */
static int base_ok(const char *dir, const struct stat *st, uid_t uid, char *err, size_t errlen)
{
	if (!S_ISDIR(st->st_mode))
		return util_fail(err, errlen, -ENOTDIR, "%s is not a directory", dir);
	if (st->st_uid != uid)
		return util_fail(err, errlen, -EPERM,
			    "%s is owned by uid %u, not uid %u: refusing the segments in it",
			    dir, (unsigned)st->st_uid, (unsigned)uid);
	if (st->st_mode & 022)
		return util_fail(err, errlen, -EPERM,
			    "%s is writable by group or others (mode %04o): refusing the segments in it; "
			    "chmod go-w %s", dir, (unsigned)(st->st_mode & 07777), dir);
	return 0;
}

/* Open uid's base directory (O_PATH-like, for openat), creating it when
 * create is set. -ENOENT when it is missing and create is not. */
static int base_open(uid_t uid, int create, char *dir, size_t dirlen, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (shm_base_dir(uid, dir, dirlen) < 0)
		return util_fail(err, errlen, -ENAMETOOLONG, "runtime directory path too long");
	if (create && mkdir(dir, uid == 0 ? 0755 : 0700) < 0 && errno != EEXIST)
		return util_fail(err, errlen, -errno, "mkdir %s: %s", dir, strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return util_fail(err, errlen, -ENOENT, "no %s", dir);
		if (errno == ELOOP || errno == ENOTDIR)
			return util_fail(err, errlen, -ENOTDIR, "%s is not a directory (a symlink?)", dir);
		return util_fail(err, errlen, -errno, "open %s: %s", dir, strerror(errno));
	}
	if (fstat(fd, &st) < 0)
		rc = util_fail(err, errlen, -errno, "fstat %s: %s", dir, strerror(errno));
	else
		rc = base_ok(dir, &st, uid, err, errlen);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

int shm_validate(const void *base, size_t size, char *err, size_t errlen)
{
	const struct shm_header *h = base;
	uint64_t magic, end[SHM_NTABLES], start[SHM_NTABLES];

	if (size < SHM_HEADER_SIZE)
		return util_fail(err, errlen, -EBADMSG,
			    "status segment truncated: %zu bytes, the header alone is %u",
			    size, SHM_HEADER_SIZE);
	magic = atomic_load_explicit(&h->magic, memory_order_acquire);
	if (magic == 0)
		return util_fail(err, errlen, -EAGAIN,
			    "status segment not initialized yet (supervisor starting?)");
	if (magic != SHM_MAGIC)
		return util_fail(err, errlen, -EBADMSG,
			    "not a provisor status segment (magic 0x%016llx)",
			    (unsigned long long)magic);
	if (h->abi_version != SHM_ABI_VERSION)
		return util_fail(err, errlen, -EPROTO,
			    "status segment ABI version %u, this reader knows only %u",
			    h->abi_version, SHM_ABI_VERSION);
	if (h->header_size != SHM_HEADER_SIZE)
		return util_fail(err, errlen, -EBADMSG, "status segment header size %u, expected %u",
			    h->header_size, SHM_HEADER_SIZE);
	if (h->segment_size > size)
		return util_fail(err, errlen, -EBADMSG,
			    "status segment truncated: header says %llu bytes, only %zu mapped",
			    (unsigned long long)h->segment_size, size);
	if (h->ntables < SHM_NTABLES || h->ntables > SHM_MAX_TABLES)
		return util_fail(err, errlen, -EBADMSG, "status segment has %u tables, expected %u..%u",
			    h->ntables, SHM_NTABLES, SHM_MAX_TABLES);
	for (int t = 0; t < SHM_NTABLES; t++) {
		const struct shm_table *tb = &h->tables[t];
		uint64_t bytes;

		if (tb->payload_size != payload_sizes[t])
			return util_fail(err, errlen, -EBADMSG,
				    "%s records carry %u bytes, ABI %u says %u",
				    table_names[t], tb->payload_size, SHM_ABI_VERSION, payload_sizes[t]);
		if (tb->rec_size < 8 + 2 * (uint64_t)tb->payload_size || tb->rec_size % 8)
			return util_fail(err, errlen, -EBADMSG, "%s record size %u is invalid",
				    table_names[t], tb->rec_size);
		if (tb->count == 0 || tb->count > SHM_MAX_RECORDS ||
		    (t == SHM_T_SUP && tb->count != 1))
			return util_fail(err, errlen, -EBADMSG, "%s table count %u is out of range",
				    table_names[t], tb->count);
		if (tb->offset % 8 || tb->offset < SHM_HEADER_SIZE)
			return util_fail(err, errlen, -EBADMSG, "%s table offset %llu is invalid",
				    table_names[t], (unsigned long long)tb->offset);
		bytes = (uint64_t)tb->count * tb->rec_size;	/* < 2^52: no overflow */
		if (tb->offset > h->segment_size || bytes > h->segment_size - tb->offset)
			return util_fail(err, errlen, -EBADMSG,
				    "%s table (%u x %u bytes at %llu) overruns the %llu-byte segment",
				    table_names[t], tb->count, tb->rec_size,
				    (unsigned long long)tb->offset,
				    (unsigned long long)h->segment_size);
		start[t] = tb->offset;
		end[t] = tb->offset + bytes;
	}
	for (int a = 0; a < SHM_NTABLES; a++)
		for (int b = a + 1; b < SHM_NTABLES; b++)
			if (start[a] < end[b] && start[b] < end[a])
				return util_fail(err, errlen, -EBADMSG, "%s and %s tables overlap",
					    table_names[a], table_names[b]);
	return 0;
}

/* Keep the validated table descriptors: later header writes cannot move
 * a reader outside its mapping. */
static void adopt(struct shm_seg *s, const void *base, size_t size)
{
	s->base = (uint8_t *)base;
	s->size = size;
	memcpy(s->tab, ((const struct shm_header *)base)->tables, sizeof s->tab);
}

static int map_fd(struct shm_seg *s, int fd, int writable, char *err, size_t errlen)
{
	struct stat st;
	void *p;
	int rc;

	if (fstat(fd, &st) < 0)
		return util_fail(err, errlen, -errno, "fstat %s: %s", s->path, strerror(errno));
	if (st.st_size < (off_t)SHM_HEADER_SIZE)
		return util_fail(err, errlen, st.st_size ? -EBADMSG : -EAGAIN,
			    "status segment %s truncated: %lld bytes, the header alone is %u",
			    s->path, (long long)st.st_size, SHM_HEADER_SIZE);
	p = mmap(NULL, (size_t)st.st_size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
		 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return util_fail(err, errlen, -errno, "mmap %s: %s", s->path, strerror(errno));
	rc = shm_validate(p, (size_t)st.st_size, err, errlen);
	if (rc < 0) {
		munmap(p, (size_t)st.st_size);
		return rc;
	}
	adopt(s, p, (size_t)st.st_size);
	s->mapped = 1;
	s->writable = writable;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return 0;
}

/* Open NAME's segment in uid's base directory: -ENOENT when there is
 * none; the file must be a regular file owned by uid (not a symlink). */
static int open_in(struct shm_seg *s, uid_t uid, const char *name, int writable,
		   char *err, size_t errlen)
{
	char dir[sizeof s->path - SHM_NAME_MAX - 16], file[SHM_NAME_MAX + 16];
	struct stat st;
	int dfd, fd, rc;

	dfd = base_open(uid, 0, dir, sizeof dir, err, errlen);
	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof file, "%s%s", name, SHM_SUFFIX);
	snprintf(s->path, sizeof s->path, "%s/%s", dir, file);
	fd = openat(dfd, file, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0) {
		if (errno == ENOENT)
			return util_fail(err, errlen, -ENOENT, "no provisor instance '%s' (no %s)", name, s->path);
		if (errno == ELOOP)
			return util_fail(err, errlen, -ELOOP, "%s is a symbolic link: refusing it", s->path);
		return util_fail(err, errlen, -errno, "open %s: %s", s->path, strerror(errno));
	}
	if (fstat(fd, &st) < 0)
		rc = util_fail(err, errlen, -errno, "fstat %s: %s", s->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = util_fail(err, errlen, -EBADMSG, "%s is not a regular file: refusing it", s->path);
	else if (st.st_uid != uid)
		rc = util_fail(err, errlen, -EPERM,
			  "status segment %s is owned by uid %u, not uid %u: refusing it",
			  s->path, (unsigned)st.st_uid, (unsigned)uid);
	else if (st.st_mode & 022)	/* anyone else could have written what we read */
		rc = util_fail(err, errlen, -EPERM,
			  "status segment %s is writable by group or others (mode %04o): refusing it",
			  s->path, (unsigned)(st.st_mode & 07777));
	else
		rc = map_fd(s, fd, writable, err, errlen);
	close(fd);
	if (rc == 0)
		s->uid = uid;
	return rc;
}

/* This user's own instance NAME, else the system's (/run/provisor, owned
 * by root or by the service user root gave it to, shm_system_owner): the
 * first place that has one is the answer (a refusal there is not passed
 * over). Root looks in the system's directory only. */
static int open_named(struct shm_seg *s, const char *name, int writable,
		      char *err, size_t errlen)
{
	uid_t me = geteuid(), sys = shm_system_owner(), first = me ? me : sys;
	int rc;

	memset(s, 0, sizeof *s);
	if ((rc = shm_name_check(name, err, errlen)) < 0)
		return rc;
	rc = open_in(s, first, name, writable, err, errlen);
	if (rc == -ENOENT && first != sys) {
		char mine[sizeof s->path];
		snprintf(mine, sizeof mine, "%s", s->path);
		rc = open_in(s, sys, name, writable, err, errlen);
		if (rc == -ENOENT)
			util_fail(err, errlen, -ENOENT, "no provisor instance '%s' (no %s or %s)", name,
			     mine[0] ? mine : "runtime directory", s->path);
	}
	return rc;
}

int shm_open_rw(struct shm_seg *s, const char *name, char *err, size_t errlen)
{
	return open_named(s, name, 1, err, errlen);
}

int shm_open_ro(struct shm_seg *s, const char *name, char *err, size_t errlen)
{
	return open_named(s, name, 0, err, errlen);
}

int shm_slot_attach_fd(struct shm_slot_writer *w, int fd, enum shm_table_id t, uint32_t i,
		       char *err, size_t errlen)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), off, len;
	struct shm_seg whole = { 0 };
	struct stat st;
	void *p;
	int rc;

	memset(w, 0, sizeof *w);
	snprintf(whole.path, sizeof whole.path, "status segment fd %d", fd);
	if (fstat(fd, &st) < 0)
		return util_fail(err, errlen, -errno, "status segment fd %d: %s", fd, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return util_fail(err, errlen, -EBADF, "status segment fd %d is not a regular file", fd);
	if ((rc = map_fd(&whole, fd, 0, err, errlen)) < 0)	/* read-only, to validate */
		return rc;
	if ((t != SHM_T_GPU && t != SHM_T_SYNTH) || i >= whole.tab[t].count) {
		shm_close(&whole);
		return util_fail(err, errlen, -ERANGE, "no slot %u in that table of the status segment", i);
	}
	off = whole.tab[t].offset + (uint64_t)i * whole.tab[t].rec_size;
	len = whole.tab[t].rec_size;
	shm_close(&whole);
	if (off % page || len % page)	/* a record sharing a page with another */
		return util_fail(err, errlen, -EBADMSG,
			    "the status segment's slot records are not page-aligned (offset %llu, "
			    "%llu bytes): refusing to map a neighbour's record writable",
			    (unsigned long long)off, (unsigned long long)len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED)
		return util_fail(err, errlen, -errno, "mmap of slot %u: %s", i, strerror(errno));
	rc = shm_slot_take(w, p);
	if (rc < 0) {
		munmap(p, len);
		return util_fail(err, errlen, rc, "slot %u is being written by another process", i);
	}
	w->map_len = len;
	return 0;
}

void shm_slot_detach(struct shm_slot_writer *w)
{
	if (w->rec && w->map_len)
		munmap(w->rec, w->map_len);
	w->rec = NULL;
	w->map_len = 0;
}

int shm_attach_buffer(struct shm_seg *s, const void *buf, size_t size, char *err, size_t errlen)
{
	int rc;

	memset(s, 0, sizeof *s);
	if ((rc = shm_validate(buf, size, err, errlen)) < 0)
		return rc;
	adopt(s, buf, size);
	snprintf(s->path, sizeof s->path, "(buffer)");
	return 0;
}

void shm_close(struct shm_seg *s)
{
	if (s->base && s->mapped)	/* buffers are the caller's */
		munmap(s->base, s->size);
	s->base = NULL;
}

void shm_destroy(struct shm_seg *s)
{
	if (s->owner && s->path[0])
		unlink(s->path);
	shm_close(s);
}

/* Is pid a live process? A zombie (killed, not yet reaped by a parent
 * that may never reap it) is not. */
static int pid_alive(pid_t pid)
{
	pid_t ppid;
	char st;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return 0;
	if (util_proc_stat(pid, &st, &ppid) < 0)
		return 1;	/* no /proc: trust kill() */
	return st != 'Z' && st != 'X';
}

/* A segment left by a supervisor that is gone may be replaced. */
static int stale_owner(int dfd, const char *file, pid_t *pid)
{
	struct shm_seg old = { 0 };
	struct stat st;
	int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*pid = 0;
	if (fd < 0)
		return 1;
	strcpy(old.path, "(old)");
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && map_fd(&old, fd, 0, NULL, 0) == 0) {
		*pid = (pid_t)shm_hdr(&old)->supervisor_pid;
		shm_close(&old);
	}
	close(fd);
	return *pid <= 0 || *pid == getpid() || !pid_alive(*pid);
}

static void layout_tables(struct shm_header *h, const struct shm_config *c)
{
	const uint32_t counts[SHM_NTABLES] = {
		[SHM_T_SUP] = 1, [SHM_T_GPU] = c->gpu_slots, [SHM_T_SYNTH] = c->synth_slots,
		[SHM_T_JOB] = c->jobs, [SHM_T_EVENT] = c->events,
	};
	uint64_t off = SHM_HEADER_SIZE, page = (uint64_t)sysconf(_SC_PAGESIZE);

	h->ntables = SHM_NTABLES;
	for (int t = 0; t < SHM_NTABLES; t++) {
		struct shm_table *tb = &h->tables[t];

		tb->offset = off;
		tb->count = counts[t];
		tb->payload_size = payload_sizes[t];
		tb->rec_size = (uint32_t)round_up(8 + 2 * (uint64_t)payload_sizes[t], SHM_ALIGN);
		if (t == SHM_T_GPU || t == SHM_T_SYNTH) {
			/* A worker maps its own slot, and nothing else, writable
			 * (shm_slot_attach_fd): each slot on pages of its own. */
			tb->offset = round_up(off, page);
			tb->rec_size = (uint32_t)round_up(tb->rec_size, page);
		}
		off = tb->offset + (uint64_t)tb->count * tb->rec_size;
	}
	h->segment_size = round_up(off, page);
}

int shm_create(struct shm_seg *s, const struct shm_config *cfg, char *err, size_t errlen)
{
	struct shm_config c = *cfg;
	struct shm_header tmp = { 0 };
	struct shm_header *h;
	char dir[sizeof s->path - SHM_NAME_MAX - 16], file[SHM_NAME_MAX + 16];
	pid_t pid;
	int fd = -1, dfd, rc;

	memset(s, 0, sizeof *s);
	if (!c.name)
		c.name = "default";
	if (!c.mode)
		c.mode = 0640;
	if (!c.jobs)
		c.jobs = 256;
	if (!c.events)
		c.events = 1024;
	if ((rc = shm_name_check(c.name, err, errlen)) < 0)
		return rc;
	if (c.control_path && strlen(c.control_path) >= sizeof tmp.control_path)
		return util_fail(err, errlen, -ENAMETOOLONG, "control socket path longer than %zu bytes: %s",
			    sizeof tmp.control_path - 1, c.control_path);
	if (c.gpu_slots < 1 || c.gpu_slots > 4096 || c.synth_slots < 1 ||
	    c.synth_slots > 4096 || c.jobs > 65536 || c.events > 65536)
		return util_fail(err, errlen, -EINVAL,
			    "segment sizes out of range: gpu slots %u, synth slots %u (1..4096), jobs %u, events %u (..65536)",
			    c.gpu_slots, c.synth_slots, c.jobs, c.events);
	layout_tables(&tmp, &c);
	dfd = base_open(geteuid(), 1, dir, sizeof dir, err, errlen);
	if (dfd < 0)
		return dfd;
	snprintf(file, sizeof file, "%s%s", c.name, SHM_SUFFIX);
	snprintf(s->path, sizeof s->path, "%s/%s", dir, file);
	for (int attempt = 0; attempt < 2 && fd < 0; attempt++) {
		fd = openat(dfd, file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
		if (!stale_owner(dfd, file, &pid)) {
			close(dfd);
			return util_fail(err, errlen, -EEXIST,
				    "instance '%s' is already running (supervisor pid %d)",
				    c.name, (int)pid);
		}
		unlinkat(dfd, file, 0);	/* ours: nobody else can write this directory */
	}
	if (fd < 0) {
		rc = util_fail(err, errlen, -errno, "create %s: %s", s->path, strerror(errno));
		close(dfd);
		return rc;
	}
	close(dfd);
	s->owner = 1;
	s->uid = geteuid();
	if ((c.has_group && fchown(fd, (uid_t)-1, c.group) < 0) ||
	    fchmod(fd, c.mode & 0777) < 0 || ftruncate(fd, (off_t)tmp.segment_size) < 0) {
		rc = util_fail(err, errlen, -errno, "sizing %s: %s", s->path, strerror(errno));
		goto fail;
	}
	h = mmap(NULL, tmp.segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		rc = util_fail(err, errlen, -errno, "mmap %s: %s", s->path, strerror(errno));
		goto fail;
	}
	s->mapped = 1;
	s->writable = 1;

	h->abi_version = SHM_ABI_VERSION;
	h->header_size = SHM_HEADER_SIZE;
	h->segment_size = tmp.segment_size;
	h->ntables = tmp.ntables;
	memcpy(h->tables, tmp.tables, sizeof h->tables);
	h->supervisor_pid = (uint32_t)getpid();
	if (getrandom(h->boot_id, sizeof h->boot_id, 0) != sizeof h->boot_id) {
		uint64_t x = shm_now_wall() ^ ((uint64_t)getpid() << 32);
		memcpy(h->boot_id, &x, sizeof x);
	}
	h->start_mono_ns = shm_now_mono();
	h->start_wall_ns = shm_now_wall();
	atomic_store_explicit(&h->heartbeat_mono_ns, h->start_mono_ns, memory_order_relaxed);
	snprintf(h->name, sizeof h->name, "%s", c.name);
	if (c.control_path)
		snprintf(h->control_path, sizeof h->control_path, "%s", c.control_path);
	adopt(s, h, tmp.segment_size);
	/* Readers accept the segment only once they see the magic. */
	atomic_store_explicit(&h->magic, SHM_MAGIC, memory_order_release);

	struct stat st;
	if (fstat(fd, &st) == 0) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	shm_destroy(s);
	return rc;
}

enum shm_health shm_health(const struct shm_seg *s, uint64_t stale_ns, uint64_t *age_ns)
{
	const struct shm_header *h = shm_hdr(s);
	uint64_t beat = atomic_load_explicit(&h->heartbeat_mono_ns, memory_order_acquire);
	uint64_t now = shm_now_mono(), age = now > beat ? now - beat : 0;
	pid_t pid = (pid_t)h->supervisor_pid;
	struct stat st;
	int fd;

	if (age_ns)
		*age_ns = age;
	if (!pid_alive(pid))
		return SHM_HEALTH_NOT_RUNNING;
	if (s->ino) {
		fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return SHM_HEALTH_NOT_RUNNING;
		int moved = fstat(fd, &st) == 0 && (st.st_ino != s->ino || st.st_dev != s->dev);
		close(fd);
		if (moved)
			return SHM_HEALTH_RESTARTED;
	}
	return age > stale_ns ? SHM_HEALTH_NOT_RESPONDING : SHM_HEALTH_RUNNING;
}

const char *shm_health_name(enum shm_health h)
{
	switch (h) {
	case SHM_HEALTH_RUNNING: return "running";
	case SHM_HEALTH_NOT_RESPONDING: return "not responding";
	case SHM_HEALTH_NOT_RUNNING: return "not running";
	case SHM_HEALTH_RESTARTED: return "restarted";
	}
	return "unknown";
}
