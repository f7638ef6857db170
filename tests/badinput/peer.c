/*
 * Least privilege on the control socket (supervisor/ctlsrv.c): a peer of
 * another uid is refused, even when the socket file's mode would let it
 * connect; with socket_group set, the socket file belongs to that group
 * with mode 0660, and a peer whose gid or supplementary groups include it
 * is served, while one outside it still is not. Needs root (to become
 * nobody in a child); skips otherwise.
 */
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "tests/crash/common.h"

static struct sv sv;

/* Ping the socket as uid, gid and supplementary groups (ngroups of
 * them); returns ctl_call's result (0 ok, 1 err, <0 failure) and the
 * reply or the error text in out. */
static int ping_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups, char *out, size_t len)
{
	int pfd[2], status;
	pid_t pid;
	ssize_t n;

	CHECK(pipe(pfd) == 0, "pipe");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		char reply[256], err[256], msg[600];
		int rc;
		close(pfd[0]);
		if (setgroups((size_t)ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
			_exit(100);
		rc = ctl_call(sv.sock, "ping\n", reply, sizeof reply, 5000, err, sizeof err);
		n = snprintf(msg, sizeof msg, "%s", rc < 0 ? err : reply);
		(void)!write(pfd[1], msg, (size_t)n);
		_exit(rc < 0 ? 50 : rc);
	}
	close(pfd[1]);
	n = read(pfd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child");
	CHECK(WEXITSTATUS(status) != 100, "could not become uid %u gid %u", uid, gid);
	return WEXITSTATUS(status) == 50 ? -1 : WEXITSTATUS(status);
}

/* Others must be able to reach the socket file for the peer check (not
 * the file mode) to be what refuses them. */
static void open_dir(void)
{
	CHECK(chmod(sv.dir, 0755) == 0, "chmod %s", sv.dir);
}

int main(void)
{
	struct passwd *nobody = getpwnam("nobody");
	struct group *ng = getgrnam("nogroup");
	char out[600], conf[512];
	struct stat st;
	gid_t other = 1, g;
	int rc;

	if (geteuid() != 0)
		T_SKIP("needs root to run a client as another user");
	if (!nobody || !ng)
		T_SKIP("needs user nobody and group nogroup");
	g = ng->gr_gid;
	if (other == g)
		other = 2;

	/* No socket_group: a world-connectable socket, yet nobody is refused. */
	sv_start(&sv, "peer", "--config", crash_config("[supervisor]\nsocket_mode = 0666\n"), NULL);
	open_dir();
	CHECK(sv_req(&sv, "ping\n", out, sizeof out) == 0, "root's ping: %s", out);
	rc = ping_as(nobody->pw_uid, g, &g, 1, out, sizeof out);
	CHECK(rc == 1 && strstr(out, "permission denied"), "nobody got %d '%s'", rc, out);
	printf("info: another uid: %s\n", out);
	crash_stop(&sv);
	snprintf(conf, sizeof conf, "rm -rf '%s' '%s'", sv.dir, sv.log);
	CHECK(system(conf) == 0, "%s", conf);

	/* socket_group = nogroup: the file is root:nogroup 0660. */
	sv_start(&sv, "peerg", "--config", crash_config("[supervisor]\nsocket_group = nogroup\n"), NULL);
	open_dir();
	CHECK(stat(sv.sock, &st) == 0, "stat %s", sv.sock);
	CHECK(st.st_gid == g && (st.st_mode & 0777) == 0660, "socket is gid %u mode %o", st.st_gid,
	      st.st_mode & 0777);
	rc = ping_as(nobody->pw_uid, g, &g, 1, out, sizeof out);
	CHECK(rc == 0 && !strcmp(out, "ok pong"), "nobody:nogroup got %d '%s'", rc, out);
	rc = ping_as(nobody->pw_uid, other, &g, 1, out, sizeof out);
	CHECK(rc == 0 && !strcmp(out, "ok pong"), "nobody with nogroup as a supplementary group got %d '%s'",
	      rc, out);
	/* Outside the group: the file mode refuses the connect itself. */
	rc = ping_as(nobody->pw_uid, other, &other, 1, out, sizeof out);
	CHECK(rc != 0, "nobody outside the group got '%s'", out);
	printf("info: outside the group: %s\n", out);
	/* And if the file mode let it through, the peer check still would not. */
	CHECK(chmod(sv.sock, 0666) == 0, "chmod");
	rc = ping_as(nobody->pw_uid, other, &other, 1, out, sizeof out);
	CHECK(rc == 1 && strstr(out, "permission denied"), "outside the group, socket 0666: %d '%s'", rc, out);
	CHECK(sv_req(&sv, "ping\n", out, sizeof out) == 0, "root's ping: %s", out);
	crash_stop(&sv);
	sv_check_clean(&sv);
	if (!getenv("KEEP_LOG"))
		unlink(sv.log);	/* passed: the harness keeps only the dir's removal */
	return 0;
}
