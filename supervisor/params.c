/*
 * params: the kinds' Groth16 parameters, made resident at start.
 *
 * `[kind.NAME] params = PATH` makes that kind's jobs end in proofs (and
 * `keep_h = yes` in proofs with each partition's H beside its proof). At
 * start, before any child runs, each file is opened and its header and
 * verifying key read (a missing, mismatched or damaged file is refused
 * here, in one line). Its resident form (groth16/resident.c) is looked up
 * in STATE/params by k and verifying-key digest; when absent, or bound to
 * another version of the source (size, mtime, inode, device, trailer),
 * the source is validated in full, every point on its curve, and the
 * resident form written, by a child (`provisor params load`), so that the
 * decoded key never sits in the supervisor's memory. That happens once per params file: every later
 * start, and every worker's load, is a read-only mmap with no re-check.
 *
 * Workers get the resident files as descriptors (fd 4 onwards, in the
 * order of s->params; --params N says how many), opened read-only here:
 * they cannot reach STATE/params, and the page cache holds one copy for
 * all of them. The supervisor itself keeps only the verifying keys.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format/pfile.h"
#include "supervisor/sup.h"

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Run `provisor params load PATH --state-dir STATE --quiet`: the
 * validation's memory (the whole key, decoded) is a child's, never the
 * supervisor's. 0, or -1 with the child's last line in err. */
static int validate_in_child(struct sup *s, const char *path, char *err, size_t errlen)
{
	char exe[4200], out[2048];
	int pfd[2], status;
	size_t have = 0;
	pid_t pid;

	snprintf(exe, sizeof exe, "%s/provisor", s->bindir);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		char *argv[] = { exe, "params", "load", (char *)path, "--state-dir", s->conf.state_dir, "--quiet", NULL };

		if (dup2(pfd[1], 2) < 0)
			_exit(127);
		execv(exe, argv);
		fprintf(stderr, "provisor params: exec %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (ssize_t r; (r = read(pfd[0], out + have, sizeof out - 1 - have)) != 0;) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		have += (size_t)r;
		if (have == sizeof out - 1) {	/* keep the tail: the last line is the one */
			memmove(out, out + sizeof out / 2, have - sizeof out / 2);
			have -= sizeof out / 2;
		}
	}
	close(pfd[0]);
	out[have] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	while (have && out[have - 1] == '\n')
		out[--have] = '\0';
	const char *last = strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out;
	if (!strncmp(last, "provisor params: ", 17))
		last += 17;
	snprintf(err, errlen, "%.300s", *last ? last : "validation failed");
	return -1;
}

/* The resident form of the params at path (whose vk is in *vk) in dfd:
 * reused when bound to this very file, else validated again (by a
 * child). Its fd, or -1. */
static int resident_open(struct sup *s, int dfd, const char *path, const struct groth16_params *vk, char *name,
			 size_t nlen, char *err, size_t errlen)
{
	struct timespec t0;
	char why[300];
	int fd, fresh;

	groth16_resident_name(vk, name, nlen);
	fresh = groth16_resident_fresh(dfd, name, path, vk, why, sizeof why);
	if (fresh < 0) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (!fresh) {
		sup_log("params %s (k=%u): validating every point once (resident form %s: %s), then keeping "
			"it as params/%s", path, vk->k, name, why, name);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (validate_in_child(s, path, err, errlen))
			return -1;
		sup_log("params %s: validated in %.1f s", path, secs_since(&t0));
	}
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		snprintf(err, errlen, "params/%s: %s", name, strerror(errno));
	return fd;
}

/* params_dir: the params file in dir for k into out (left "" when there
 * is none). Files that are not params files are passed over; two for one
 * k are refused (which would be meant?). 0, or -1 with one line. */
static int find_in_dir(const char *dir, uint32_t k, char *out, size_t len, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	out[0] = '\0';
	if (!d) {
		snprintf(err, errlen, "params_dir %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct groth16_params vk;
		char path[600], why[300];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || groth16_params_read(path, &vk, 1, why, sizeof why))
			continue;
		if (vk.k != k)
			continue;
		if (out[0]) {
			snprintf(err, errlen, "params_dir %s has two params files for k=%u: %s and %s", dir, k, out,
				 e->d_name);
			closedir(d);
			return -1;
		}
		if (strlen(path) >= len) {
			snprintf(err, errlen, "params_dir: %s: path too long", path);
			closedir(d);
			return -1;
		}
		snprintf(out, len, "%s", path);
	}
	closedir(d);
	return 0;
}

int params_prepare(struct sup *s, char *err, size_t errlen)
{
	int dfd = -1;

	for (uint32_t k = 1; k <= VOCAB_NKINDS && s->conf.params_dir[0]; k++) {
		struct conf_kind *ck = &s->conf.kind[k];

		if (ck->params[0])
			continue;	/* its own file wins */
		if (find_in_dir(s->conf.params_dir, ck->log_size, ck->params, sizeof ck->params, err, errlen))
			return -1;
		if (!ck->params[0])
			sup_log("params_dir %s: no params for k=%u: kind %s keeps H output", s->conf.params_dir,
				ck->log_size, vocab_kind_name(k));
	}
	/* After params_dir: only now is it known which kinds prove. */
	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++)
		if (s->conf.kind[k].keep_h && !s->conf.kind[k].params[0]) {
			snprintf(err, errlen, "kind.%s: keep_h = yes needs params (%s); without them its jobs "
				 "end in H alone", vocab_kind_name(k),
				 s->conf.params_dir[0] ? "none for its log_size in params_dir" : "none set");
			return -1;
		}

	for (uint32_t k = 1; k <= VOCAB_NKINDS; k++) {
		const char *path = s->conf.kind[k].params;
		struct groth16_params vk;
		char why[400];
		uint32_t i;

		if (!path[0])
			continue;
		if (groth16_params_read(path, &vk, 1, why, sizeof why)) {
			snprintf(err, errlen, "kind.%s: params %s", vocab_kind_name(k), why);
			goto fail;
		}
		if (vk.k != s->conf.kind[k].log_size) {
			snprintf(err, errlen, "kind.%s: params %s are for k=%u, but its log_size is %u",
				 vocab_kind_name(k), path, vk.k, s->conf.kind[k].log_size);
			goto fail;
		}
		for (i = 0; i < s->nparams; i++)
			if (!memcmp(s->params[i].vk.vk_digest, vk.vk_digest, sizeof vk.vk_digest))
				break;
		if (i == s->nparams) {
			struct sup_params *sp = &s->params[i];
			struct stat st;
			int fd;

			if (dfd < 0) {
				if (mkdirat(s->state_fd, "params", 0750) < 0 && errno != EEXIST) {
					snprintf(err, errlen, "%s/params: %s", s->conf.state_dir, strerror(errno));
					goto fail;
				}
				dfd = openat(s->state_fd, "params", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (dfd < 0) {
					snprintf(err, errlen, "%s/params: %s", s->conf.state_dir, strerror(errno));
					goto fail;
				}
			}
			fd = resident_open(s, dfd, path, &vk, sp->name, sizeof sp->name, why, sizeof why);
			if (fd < 0) {
				snprintf(err, errlen, "kind.%s: %s", vocab_kind_name(k), why);
				goto fail;
			}
			/* Above the descriptors children get (0..3, then 4 + i). */
			sp->fd = fcntl(fd, F_DUPFD_CLOEXEC, SUP_PARAMS_FD_MIN);
			close(fd);
			if (sp->fd < 0 || fstat(sp->fd, &st) < 0) {
				snprintf(err, errlen, "params/%s: %s", sp->name, strerror(errno));
				goto fail;
			}
			sp->vk = vk;
			sp->bytes = (uint64_t)st.st_size;
			snprintf(sp->path, sizeof sp->path, "%s", path);
			s->nparams++;
			sup_log("params %s: k=%u, resident %.1f MiB, for kind %s", path, vk.k,
				(double)sp->bytes / 1048576.0, vocab_kind_name(k));
		}
		s->kind_params[k] = (uint8_t)(i + 1);
	}
	if (dfd >= 0)
		close(dfd);
	if (params_mem(s) && params_mem(s) >= s->conf.mem_budget) {
		snprintf(err, errlen, "params need %.1f MiB resident, more than mem_budget (%.1f MiB)",
			 (double)params_mem(s) / 1048576.0, (double)s->conf.mem_budget / 1048576.0);
		return -1;
	}
	return 0;
fail:
	if (dfd >= 0)
		close(dfd);
	return -1;
}

uint64_t params_mem(const struct sup *s)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nparams; i++)
		sum += s->params[i].bytes;
	return sum;
}

int params_job_output(const struct sup *s, uint32_t kind, uint32_t k, uint8_t *params, uint8_t *file_kind,
		      char *err, size_t errlen)
{
	uint8_t i = kind <= VOCAB_NKINDS ? s->kind_params[kind] : 0;

	*params = 0;
	*file_kind = PFILE_KIND_RESULT;
	if (!i)
		return 0;
	if (s->params[i - 1].vk.k != k) {
		if (!err)
			return 0;
		snprintf(err, errlen, "kind %s proves with params for log size %u; %u has none",
			 vocab_kind_name(kind), s->params[i - 1].vk.k, k);
		return -EINVAL;
	}
	*params = i;
	*file_kind = s->conf.kind[kind].keep_h ? PFILE_KIND_PROOFS_H : PFILE_KIND_PROOFS;
	return 0;
}

void params_close(struct sup *s)
{
	for (uint32_t i = 0; i < s->nparams; i++)
		if (s->params[i].fd >= 0)
			close(s->params[i].fd);
	s->nparams = 0;
}
