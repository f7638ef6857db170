/*
 * noble client: see client.h. The child is started with posix_spawnp
 * (node found on PATH; a missing node is ENOENT from the spawn itself),
 * its stdin and stdout on pipes made close-on-exec in the parent, so
 * that a second client's oracle does not hold the first one's pipes.
 */
#include "tests/noble/client.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An answer may take long only when node is starved of CPU (a sanitizer
 * run beside others); a wedged oracle still ends in a clear line. */
#define NOBLE_ANSWER_MS 60000

static struct noble *noble_open_list;

static void noble_atexit(void)
{
	while (noble_open_list)
		noble_stop(noble_open_list);
}

/* The oracle's folder: see client.h. dir has PATH_MAX bytes. */
static void noble_dir(char *dir)
{
	static const char up[] = "/../../tests/noble";
	const char *env = getenv("PROVISOR_NOBLE_DIR");
	char probe[PATH_MAX + 16];
	struct stat st;
	ssize_t k;

	if (env && env[0]) {
		snprintf(dir, PATH_MAX, "%s", env);
		return;
	}
	/* .../bin/tests/NAME: keep the folder, append up. */
	k = readlink("/proc/self/exe", dir, PATH_MAX - sizeof up);
	if (k > 0) {
		dir[k] = 0;
		char *slash = strrchr(dir, '/');

		if (slash) {
			memcpy(slash, up, sizeof up);
			snprintf(probe, sizeof probe, "%s/oracle.mjs", dir);
			if (stat(probe, &st) == 0)
				return;
		}
	}
	snprintf(dir, PATH_MAX, "tests/noble");
}

int noble_start(struct noble *n, char *why, size_t whylen)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, e;
	posix_spawn_file_actions_t fa;
	struct stat st;

	memset(n, 0, sizeof *n);
	n->pid = -1;
	n->to = n->from = -1;
	noble_dir(dir);
	snprintf(path, sizeof path, "%s/node_modules/@noble/curves/package.json", dir);
	if (stat(path, &st) != 0) {
		snprintf(why, whylen, "%s: no %s", NOBLE_SKIP_REASON, path);
		return -ENOENT;
	}
	snprintf(path, sizeof path, "%s/oracle.mjs", dir);

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
		e = -errno;
		snprintf(why, whylen, "pipe2: %s", strerror(errno));
		goto fail;
	}
	/* dup2 onto 0 and 1 clears close-on-exec for the child's copies. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	char *argv[] = { "node", path, NULL };
	e = posix_spawnp(&n->pid, "node", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e != 0) {
		n->pid = -1;
		snprintf(why, whylen, e == ENOENT ? NOBLE_SKIP_REASON ": node not found on PATH"
						  : "posix_spawnp node: %s", strerror(e));
		e = -e;
		goto fail;
	}
	close(in[0]);
	close(out[1]);
	n->to = in[1];
	n->from = out[0];
	signal(SIGPIPE, SIG_IGN);
	if (!noble_open_list)
		atexit(noble_atexit);
	n->next = noble_open_list;
	noble_open_list = n;

	/* The handshake: the oracle loaded noble and answers. */
	const char *v = noble_call(n, "version");
	if (!v || strncmp(v, "@noble/curves ", 14) != 0) {
		snprintf(why, whylen, "%s did not start: %s", path, v ? v : "no answer");
		noble_stop(n);
		return -EPROTO;
	}
	snprintf(n->version, sizeof n->version, "%s", v);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
	return e;
}

static int noble_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Reads until buf holds a whole line; its length (with '\n'), or -errno. */
static ssize_t noble_read_line(struct noble *n)
{
	for (;;) {
		char *nl = n->len ? memchr(n->buf, '\n', n->len) : NULL;

		if (nl)
			return nl - n->buf + 1;
		if (n->len + 4096 > n->cap) {
			size_t cap = n->cap ? 2 * n->cap : 16384;
			char *b = realloc(n->buf, cap);

			if (!b)
				return -ENOMEM;
			n->buf = b;
			n->cap = cap;
		}
		struct pollfd pfd = { .fd = n->from, .events = POLLIN };
		int r = poll(&pfd, 1, NOBLE_ANSWER_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		ssize_t k = read(n->from, n->buf + n->len, n->cap - n->len - 1);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EPIPE;	/* the oracle exited */
		n->len += (size_t)k;
	}
}

const char *noble_call(struct noble *n, const char *fmt, ...)
{
	char *req = NULL;
	va_list ap;
	int k, e;

	if (n->to < 0)
		return NULL;
	/* Drop the previous answer. */
	if (n->line_len) {
		memmove(n->buf, n->buf + n->line_len, n->len - n->line_len);
		n->len -= n->line_len;
		n->line_len = 0;
	}
	va_start(ap, fmt);
	k = vasprintf(&req, fmt, ap);
	va_end(ap);
	if (k < 0) {
		fprintf(stderr, "noble: out of memory for a request\n");
		return NULL;
	}
	req[k] = '\n';	/* vasprintf's NUL becomes the newline */
	e = noble_write_all(n->to, req, (size_t)k + 1);
	free(req);
	if (e < 0) {
		fprintf(stderr, "noble: writing to the oracle: %s\n", strerror(-e));
		return NULL;
	}
	ssize_t len = noble_read_line(n);

	if (len < 0) {
		fprintf(stderr, "noble: reading the oracle's answer: %s\n", strerror((int)-len));
		return NULL;
	}
	n->line_len = (size_t)len;
	n->buf[len - 1] = 0;
	return n->buf;
}

int noble_stop(struct noble *n)
{
	int st = -1;

	for (struct noble **p = &noble_open_list; *p; p = &(*p)->next)
		if (*p == n) {
			*p = n->next;
			break;
		}
	if (n->to >= 0)
		close(n->to);	/* EOF on its stdin: the oracle exits */
	if (n->from >= 0)
		close(n->from);
	n->to = n->from = -1;
	if (n->pid > 0) {
		while (waitpid(n->pid, &st, 0) < 0 && errno == EINTR)
			;
		n->pid = -1;
	}
	free(n->buf);
	n->buf = NULL;
	n->cap = n->len = n->line_len = 0;
	return st;
}

char *noble_hex(char *out, const uint8_t *b, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * len] = 0;
	return out;
}

static int noble_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int noble_unhex(uint8_t *out, size_t len, const char *s)
{
	if (strlen(s) != 2 * len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int hi = noble_nibble(s[2 * i]), lo = noble_nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
