/*
 * confine: a worker's user, no_new_privs and Landlock (see confine.h).
 *
 * Landlock's constants past ABI 1 are defined here when the system's
 * headers predate them (Debian 12's describe ABI 1): the values are the
 * kernel's stable ABI. A right the running kernel does not know is left
 * out of the ruleset, as the Landlock documentation asks.
 */
#include "proto/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <linux/landlock.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/util.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define CONFINE_NET_BIND_TCP (1ULL << 0)
#define CONFINE_NET_CONNECT_TCP (1ULL << 1)
#define CONFINE_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define CONFINE_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes the size. */
struct confine_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

int confine_parse_user(const char *spec, uid_t *uid, gid_t *gid)
{
	const char *colon = spec ? strchr(spec, ':') : NULL;
	char u[16];
	uint64_t a, b;

	if (!colon || (size_t)(colon - spec) >= sizeof u)
		return -1;
	memcpy(u, spec, (size_t)(colon - spec));
	u[colon - spec] = '\0';
	if (util_num(u, UTIL_NUM_DIGITS, 0, 0xfffffffeu, &a) ||
	    util_num(colon + 1, UTIL_NUM_DIGITS, 0, 0xfffffffeu, &b))
		return -1;
	*uid = (uid_t)a;
	*gid = (gid_t)b;
	return 0;
}

static int confine_user(uid_t uid, gid_t gid, char *err, size_t errlen)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;
	pid_t parent = getppid();
	int deathsig = 0;

	/* The kernel clears the parent-death signal when the credentials
	 * change: without it again, a worker busy in a long proof (or hung)
	 * would outlive a supervisor killed with SIGKILL. */
	if (prctl(PR_GET_PDEATHSIG, &deathsig) < 0)
		deathsig = 0;
	if (geteuid() == 0 && setgroups(0, NULL) < 0)
		return util_fail(err, errlen, -1, "setgroups: %s", strerror(errno));
	if (setresgid(gid, gid, gid) < 0)
		return util_fail(err, errlen, -1, "setresgid(%u): %s", (unsigned)gid, strerror(errno));
	if (setresuid(uid, uid, uid) < 0)
		return util_fail(err, errlen, -1, "setresuid(%u): %s", (unsigned)uid, strerror(errno));
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 || r != uid || e != uid ||
	    s != uid || rg != gid || eg != gid || sg != gid)
		return util_fail(err, errlen, -1, "still not uid %u gid %u after the change",
				 (unsigned)uid, (unsigned)gid);
	if (deathsig && prctl(PR_SET_PDEATHSIG, deathsig) < 0)
		return util_fail(err, errlen, -1, "PR_SET_PDEATHSIG: %s", strerror(errno));
	if (deathsig && getppid() != parent)	/* it died before the signal was armed again */
		return util_fail(err, errlen, -1, "the parent process is gone");
	return 0;
}

/* Allow access on path (a directory or file) if it exists. */
static int confine_allow(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access & handled };
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return errno == ENOENT || errno == EACCES ? 0 : -1;
	pb.parent_fd = fd;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	if (rc < 0 && errno == EINVAL) {	/* a file: only the rights a file can have */
		pb.allowed_access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
				     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
				     LANDLOCK_ACCESS_FS_IOCTL_DEV;
		rc = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	}
	close(fd);
	return rc;
}

int confine_landlock(int *abi_out, char *err, size_t errlen)
{
	static const char *const ro[] = { "/usr", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys",
					  "/bin", "/sbin", "/opt" };
	static const char *const dev[] = { "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
					   "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
					   "/dev/nvidia-modeset" };
	uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;	/* ABI 1: bits 0..12 */
	uint64_t rx = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
		      LANDLOCK_ACCESS_FS_READ_DIR;
	uint64_t rw = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
	struct confine_ruleset_attr attr = { 0 };
	size_t attr_size = sizeof attr.handled_access_fs;
	int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int ruleset, bad = 0;
	glob_t g;

	*abi_out = 0;
	if (abi < 1 && errno == EPERM)	/* a seccomp filter (a unit's) forbids it */
		return util_fail(err, errlen, -1, "Landlock is forbidden by a system call filter; "
				 "allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self");
	if (abi < 1)
		return 0;	/* no Landlock in this kernel: the user is the boundary */
	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	attr.handled_access_fs = all;
	if (abi >= 4) {
		attr.handled_access_net = CONFINE_NET_BIND_TCP | CONFINE_NET_CONNECT_TCP;
		attr_size = offsetof(struct confine_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = CONFINE_SCOPE_ABSTRACT_UNIX | CONFINE_SCOPE_SIGNAL;
		attr_size = sizeof attr;
	}
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (ruleset < 0)
		return util_fail(err, errlen, -1, "landlock_create_ruleset (ABI %d): %s", abi, strerror(errno));
	for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
		bad |= confine_allow(ruleset, ro[i], rx, all) < 0;
	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
		bad |= confine_allow(ruleset, dev[i], rw, all) < 0;
	if (glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			bad |= confine_allow(ruleset, g.gl_pathv[i], rw, all) < 0;
		globfree(&g);
	}
	if (bad || syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
		int e = errno;
		close(ruleset);
		return util_fail(err, errlen, -1, "landlock (ABI %d): %s", abi, strerror(e));
	}
	close(ruleset);
	*abi_out = abi;
	return 0;
}

int confine_identity(int have_user, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	if (have_user && confine_user(uid, gid, err, errlen) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return util_fail(err, errlen, -1, "no_new_privs: %s", strerror(errno));
	return 0;
}

int confine_worker(int have_user, uid_t uid, gid_t gid, int *landlock_abi, char *err, size_t errlen)
{
	*landlock_abi = 0;
	if (confine_identity(have_user, uid, gid, err, errlen) < 0)
		return -1;
	return confine_landlock(landlock_abi, err, errlen);
}
