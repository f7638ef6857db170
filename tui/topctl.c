/*
 * topctl: top's control requests (see topctl.h). The checks follow
 * `provisor cancel` (cli/cmd_ctl.c), which a library may not include:
 * the published path must be STATE/control.sock on a clean absolute path,
 * in a directory of the segment's owner that nobody else can write, and
 * the peer on the socket (SO_PEERCRED, before a byte is sent) must be
 * the supervisor the segment names, with its uid. A refusal is a line for
 * the status bar, never a crash or a request sent elsewhere.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/ctl.h"
#include "tui/topctl.h"
#include "util/text.h"

static int topctl_vet(const struct ctl_peer *p, void *arg, char *err, size_t errlen)
{
	const struct topctl *t = arg;

	if (p->pid == (pid_t)t->s->sup_pid && p->uid == t->uid)
		return 0;
	snprintf(err, errlen, "socket served by pid %d uid %u, not the supervisor (pid %u uid %u)",
		 (int)p->pid, (unsigned)p->uid, t->s->sup_pid, (unsigned)t->uid);
	return -EPERM;
}

/* 0, or -EPERM with why in out. */
static int topctl_check_path(const struct topctl *t, char *out, size_t outlen)
{
	static const char tail[] = "/control.sock";
	const char *path = t->s->control_path;
	size_t n = strlen(path);
	char dir[sizeof t->s->control_path];
	struct stat st;

	if (path[0] != '/' || n <= sizeof tail - 1 || strcmp(path + n - (sizeof tail - 1), tail) ||
	    strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") || !util_is_clean(path)) {
		snprintf(out, outlen, "the segment publishes no usable control socket");
		return -EPERM;
	}
	memcpy(dir, path, n - (sizeof tail - 1));
	dir[n - (sizeof tail - 1)] = '\0';
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != t->uid || (st.st_mode & 022)) {
		snprintf(out, outlen, "state directory not the supervisor's own: refusing its socket");
		return -EPERM;
	}
	if (lstat(path, &st) < 0) {
		snprintf(out, outlen, "no control socket (%s)", strerror(errno));
		return -ENOENT;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != t->uid) {
		snprintf(out, outlen, "control path is not the supervisor's socket");
		return -EPERM;
	}
	return 0;
}

int topctl_send(void *arg, const char *line, char *out, size_t outlen)
{
	const struct topctl *t = arg;
	struct ctl_req req;
	char reply[256], err[256];
	int rc;

	out[0] = '\0';
	if (ctl_parse(line, strlen(line), &req, err, sizeof err)) {
		snprintf(out, outlen, "%s", err);
		return -EINVAL;
	}
	if ((rc = topctl_check_path(t, out, outlen)) < 0)
		return rc;
	rc = ctl_call_vet(t->s->control_path, line, reply, sizeof reply, TOPCTL_TIMEOUT_MS, topctl_vet,
			  (void *)t, err, sizeof err);
	if (rc < 0) {
		snprintf(out, outlen, "%s", rc == -ETIMEDOUT ? "the supervisor does not answer" : err);
		return rc;
	}
	/* "ok[ VALUE]" / "err REASON": the text after the word, cleaned */
	const char *p = strchr(reply, ' ');
	util_clean(out, outlen, p ? p + 1 : "");
	return rc;
}
