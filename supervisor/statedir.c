/*
 * statedir: the supervisor's claim on its state directory.
 *
 * The state directory holds the journal, the results and the control
 * socket, and root may run the supervisor, so nothing in it may be
 * something another user could have made (docs/security.md, "The state
 * directory"):
 *
 *   - its path is made absolute and lexically clean before anything is
 *     published, so that every client finds the same directory;
 *   - every directory on the path must be owned by root or by us, and be
 *     writable by nobody else (a sticky directory such as /tmp excepted,
 *     where only the owner of an entry may replace it); a symlink on the
 *     path must be owned by root or by us;
 *   - the state directory itself must be owned by us and not writable by
 *     group or others; with socket_group it is given to that group (g+rx)
 *     so that members can reach the socket;
 *   - one supervisor at a time: an exclusive flock on STATE/lock for the
 *     supervisor's life. The file names its holder ("NAME PID"), so a
 *     second supervisor is refused with one line that says who holds it.
 *     The lock file is removed at exit; a locker checks that the file it
 *     locked is still the one at that name, so removal cannot let two in.
 *
 * Every check refuses with one line that says what is wrong and how to
 * fix it; nothing is created before the checks on what already exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/run.h"
#include "supervisor/sup.h"
#include "util/text.h"
#include "util/util.h"

int statedir_absolute(char *dir, size_t len, char *err, size_t errlen)
{
	char in[PATH_MAX * 2], out[PATH_MAX];
	size_t o = 0;
	char *save, *w;

	if (!dir[0])
		return util_fail(err, errlen, -EINVAL, "state directory is empty");
	if (dir[0] == '/') {
		snprintf(in, sizeof in, "%s", dir);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return util_fail(err, errlen, -errno, "state directory %s is relative, and the "
				       "current directory is unknown: %s", dir, strerror(errno));
		snprintf(in, sizeof in, "%s/%s", cwd, dir);
	}
	/* "." and empty components go; ".." takes one back (lexically: the
	 * checks below look at the directories this names, symlinks and all) */
	for (w = strtok_r(in, "/", &save); w; w = strtok_r(NULL, "/", &save)) {
		size_t n = strlen(w);
		if (!strcmp(w, "."))
			continue;
		if (!strcmp(w, "..")) {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		if (o + 1 + n >= sizeof out)
			return util_fail(err, errlen, -ENAMETOOLONG, "state directory path too long");
		out[o++] = '/';
		memcpy(out + o, w, n);
		o += n;
	}
	if (!o)
		return util_fail(err, errlen, -EINVAL, "state directory cannot be /");
	out[o] = '\0';
	if (o >= len)
		return util_fail(err, errlen, -ENAMETOOLONG, "state directory path too long");
	memcpy(dir, out, o + 1);
	return 0;
}

/* May this existing path component hold what root stores in it? A reader
 * (provisor log) takes a state directory of its own or of root's. */
static int sd_check_component(const char *path, int last, int reader, char *err, size_t errlen)
{
	uid_t me = geteuid();
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		if (last)
			return util_fail(err, errlen, -ELOOP,
				       "state directory %s is a symbolic link; give the directory itself", path);
		if (st.st_uid != 0 && st.st_uid != me)
			return util_fail(err, errlen, -EPERM,
				       "state directory path: %s is a symbolic link owned by uid %u, "
				       "who could point it elsewhere; use a path without it", path,
				       (unsigned)st.st_uid);
		if (stat(path, &st) < 0)
			return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return util_fail(err, errlen, -ENOTDIR, "state directory path: %s is not a directory", path);
	if (last) {
		if (reader && st.st_uid != me && st.st_uid != 0)
			return util_fail(err, errlen, -EPERM,
				       "state directory %s is owned by uid %u, neither you (uid %u) nor root, "
				       "who could have put anything in it: refusing to read from it", path,
				       (unsigned)st.st_uid, (unsigned)me);
		if (!reader && st.st_uid != me)
			return util_fail(err, errlen, -EPERM,
				       "state directory %s is owned by uid %u, not by this supervisor's uid %u; "
				       "chown it or choose another", path, (unsigned)st.st_uid, (unsigned)me);
		if (st.st_mode & 022)
			return util_fail(err, errlen, -EPERM,
				       "state directory %s is writable by group or others (mode %04o); "
				       "chmod go-w it or choose another", path, (unsigned)(st.st_mode & 07777));
		return 0;
	}
	if (st.st_uid != 0 && st.st_uid != me)
		return util_fail(err, errlen, -EPERM,
			       "state directory path: %s is owned by uid %u, who could replace what "
			       "is in it; use a directory owned by root or by uid %u", path,
			       (unsigned)st.st_uid, (unsigned)me);
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		return util_fail(err, errlen, -EPERM,
			       "state directory path: %s is writable by group or others (mode %04o) "
			       "without the sticky bit; use another place", path,
			       (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Check every component of dir that exists; create the missing ones
 * (mode 0750) when create is set. */
static int sd_walk(const char *dir, int create, int reader, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);
	int rc;

	if (n >= sizeof buf)
		return util_fail(err, errlen, -ENAMETOOLONG, "state directory path too long");
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1;; p++) {
		int last = !*p;
		if (*p && *p != '/')
			continue;
		*p = '\0';
		rc = sd_check_component(buf, last, reader, err, errlen);
		if (rc == -ENOENT) {
			if (!create)
				return 0;	/* the rest is ours to create */
			if (mkdir(buf, 0750) < 0 && errno != EEXIST)
				return util_fail(err, errlen, -errno, "state directory: mkdir %s: %s",
					       buf, strerror(errno));
			rc = sd_check_component(buf, last, reader, err, errlen);
		}
		if (rc == -ENOENT || (rc < 0 && !err[0]))
			return util_fail(err, errlen, rc, "state directory: %s: %s", buf, strerror(-rc));
		if (rc < 0)
			return rc;
		if (last)
			return 0;
		*p = '/';
	}
}

int statedir_check(const char *dir, char *err, size_t errlen)
{
	err[0] = '\0';
	return sd_walk(dir, 0, 0, err, errlen);
}

int statedir_check_reader(const char *dir, char *err, size_t errlen)
{
	err[0] = '\0';
	return sd_walk(dir, 0, 1, err, errlen);
}

/* Lock STATE/lock: 0, -EBUSY (held: err names the holder), or -errno. */
static int sd_lock(struct sup *s, char *err, size_t errlen)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat a, b;
		char who[128] = "", shown[200];
		int fd = openat(s->state_fd, STATEDIR_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
		ssize_t n;

		if (fd < 0)
			return util_fail(err, errlen, -errno, "%s/%s: %s", s->conf.state_dir, STATEDIR_LOCK,
				       errno == ELOOP ? "a symbolic link; remove it" : strerror(errno));
		if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode) || a.st_uid != geteuid()) {
			close(fd);
			return util_fail(err, errlen, -EPERM, "%s/%s is not a regular file of ours; remove it",
				       s->conf.state_dir, STATEDIR_LOCK);
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;
			char name[SHM_NAME_MAX + 2];
			unsigned pid;
			statedir_read_lock(fd, name, &pid);
			close(fd);
			if (e != EWOULDBLOCK)
				return util_fail(err, errlen, -e, "lock %s/%s: %s", s->conf.state_dir,
					       STATEDIR_LOCK, strerror(e));
			return util_fail(err, errlen, -EBUSY,
				       "state directory %s is in use by instance '%s' (supervisor pid %u); "
				       "give each instance its own state_dir", s->conf.state_dir,
				       util_clean(shown, sizeof shown, name), pid);
		}
		/* Still the file at that name? A holder that was removing it
		 * as we opened it leaves us a lock on a file nobody else sees. */
		if (fstatat(s->state_fd, STATEDIR_LOCK, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			n = snprintf(who, sizeof who, "%s %d\n", s->conf.name, (int)getpid());
			if (ftruncate(fd, 0) < 0 || pwrite(fd, who, (size_t)n, 0) != n) {
				int e = errno;
				close(fd);
				return util_fail(err, errlen, -e, "write %s/%s: %s", s->conf.state_dir,
					       STATEDIR_LOCK, strerror(e));
			}
			s->lock_fd = fd;
			return 0;
		}
		close(fd);
	}
	return util_fail(err, errlen, -EBUSY, "could not lock %s/%s: it keeps being replaced",
		       s->conf.state_dir, STATEDIR_LOCK);
}

int statedir_open(struct sup *s, char *err, size_t errlen)
{
	const char *dir = s->conf.state_dir;
	struct stat st;
	int rc;

	err[0] = '\0';
	if ((rc = sd_walk(dir, 1, 0, err, errlen)) < 0)
		return rc;
	s->state_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->state_fd < 0)
		return util_fail(err, errlen, -errno, "state directory %s: %s", dir, strerror(errno));
	/* the checks again, on what we opened: it may have moved */
	if (fstat(s->state_fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))
		return util_fail(err, errlen, -EPERM, "state directory %s changed while it was checked", dir);
	if (s->has_group && ((st.st_gid != s->group && fchown(s->state_fd, (uid_t)-1, s->group) < 0) ||
			     fchmod(s->state_fd, (st.st_mode & 0700) | 0050) < 0))
		return util_fail(err, errlen, -errno, "state directory %s: giving it to socket_group %s: %s",
			       dir, s->conf.socket_group, strerror(errno));
	if ((rc = sd_lock(s, err, errlen)) < 0)
		return rc;
	return 0;
}

int statedir_read_lock(int fd, char *name, unsigned *pid)
{
	char who[128];
	ssize_t n = pread(fd, who, sizeof who - 1, 0);

	who[n > 0 ? n : 0] = '\0';
	if (sscanf(who, "%33s %u", name, pid) == 2)
		return 0;
	strcpy(name, "?");
	*pid = 0;
	return -1;
}

void statedir_close(struct sup *s)
{
	if (s->lock_fd >= 0) {
		/* removed while still held: the next locker checks the name */
		unlinkat(s->state_fd, STATEDIR_LOCK, 0);
		close(s->lock_fd);
		s->lock_fd = -1;
	}
	if (s->state_fd >= 0) {
		close(s->state_fd);
		s->state_fd = -1;
	}
}
