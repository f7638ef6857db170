/*
 * `provisor params list|load|evict`: the resident params of a state
 * directory (STATE/params, groth16/resident.c), what CuZK's PreloadSRS and
 * EvictSRS do for its daemon.
 *
 *   list            every resident file: k, size, how much of it is in
 *                   memory (mincore), its source, and whether the source
 *                   still matches it
 *   load PARAMS     validate PARAMS once (every point) into its resident
 *                   form, unless the one there is still bound to it, and
 *                   read it into memory: a start or a worker after it
 *                   finds it warm. The supervisor runs this at its start
 *                   for a kind whose params have no fresh resident form,
 *                   so that the validation's memory is never its own.
 *   evict NAME      drop NAME's pages from memory (a running worker's
 *                   mapping keeps what it uses); --remove deletes the
 *                   file, so the next start validates again
 *
 * The state directory: --state-dir DIR, else the running instance NAME's
 * (--name, default "default"). Bad arguments: exit 2; failures: 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "groth16/groth16.h"
#include "util/text.h"

static const struct option cmd_params_options[] = {
	{ "state-dir", required_argument, NULL, 'd' },
	{ "name", required_argument, NULL, 'n' },
	{ "remove", no_argument, NULL, 'r' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Percent of fd's len bytes in the page cache. */
static double in_memory(int fd, uint64_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t pages = (size_t)((len + (uint64_t)pg - 1) / (uint64_t)pg), in = 0;
	unsigned char *vec;
	void *map;

	if (!len || (map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED)
		return 0;
	vec = malloc(pages);
	if (vec && mincore(map, len, vec) == 0)
		for (size_t i = 0; i < pages; i++)
			in += vec[i] & 1;
	free(vec);
	munmap(map, len);
	return 100.0 * (double)in / (double)pages;
}

/* Read fd whole (into the page cache): 0 or -errno. */
static int warm(int fd)
{
	static char buf[1 << 20];
	ssize_t r;

	posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
	while ((r = read(fd, buf, sizeof buf)) > 0)
		;
	return r < 0 ? -errno : 0;
}

/* STATE/params, made when create: its fd, or -1 with one line said. */
static int params_dir(const char *state, int create)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof path, "%s/params", state);
	if (create && mkdir(path, 0750) < 0 && errno != EEXIST) {
		fprintf(stderr, "provisor params: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "provisor params: %s: %s\n", path,
			errno == ENOENT ? "no resident params here (provisor params load makes them)" : strerror(errno));
	return fd;
}

static int params_list(int dfd, const char *state)
{
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	int n = 0;

	if (!d) {
		fprintf(stderr, "provisor params: %s/params: %s\n", state, strerror(errno));
		return 1;
	}
	printf("%-28s %3s %10s %7s %-6s %s\n", "RESIDENT", "K", "MIB", "MEMORY", "SOURCE", "PATH");
	while ((e = readdir(d))) {
		struct groth16_params p;
		struct stat st;
		char src[256], why[300], shown[300];
		const char *dot = strrchr(e->d_name, '.');
		int fd, fresh;

		if (e->d_name[0] == '.' || !dot || strcmp(dot, ".resident"))
			continue;
		fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || groth16_resident_info(fd, &p, NULL, src, sizeof src, why, sizeof why)) {
			printf("%-28s   - %10s %7s %-6s damaged: %s\n", e->d_name, "-", "-", "-",
			       fd < 0 ? strerror(errno) : why);
			if (fd >= 0)
				close(fd);
			n++;
			continue;
		}
		struct groth16_params svk;
		fresh = groth16_params_read(src, &svk, 1, why, sizeof why) ? -1
			: groth16_resident_fresh(dfd, e->d_name, src, &svk, why, sizeof why);
		printf("%-28s %3u %10.1f %6.1f%% %-6s %s\n", e->d_name, p.k, (double)st.st_size / 1048576.0,
		       in_memory(fd, (uint64_t)st.st_size), fresh == 1 ? "same" : fresh == 0 ? "stale" : "gone",
		       util_clean(shown, sizeof shown, src));
		close(fd);
		n++;
	}
	closedir(d);
	if (!n)
		printf("(none in %s/params)\n", state);
	return fflush(stdout) ? 1 : 0;
}

static int params_load(int dfd, const char *path, int quiet)
{
	struct groth16_params vk;
	char name[64], why[400];
	double t0 = now_s();
	int fresh, fd;

	if (groth16_params_read(path, &vk, 1, why, sizeof why)) {
		fprintf(stderr, "provisor params: %s\n", why);
		return 1;
	}
	groth16_resident_name(&vk, name, sizeof name);
	fresh = groth16_resident_fresh(dfd, name, path, &vk, why, sizeof why);
	if (fresh < 0) {
		fprintf(stderr, "provisor params: %s\n", why);
		return 1;
	}
	if (!fresh) {
		if (groth16_resident_build(path, dfd, name, &vk, why, sizeof why)) {
			fprintf(stderr, "provisor params: %s\n", why);
			return 1;
		}
		if (!quiet)
			printf("%s (k=%u): validated in %.2f s into params/%s\n", path, vk.k, now_s() - t0, name);
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	t0 = now_s();
	if (fd < 0 || warm(fd)) {
		fprintf(stderr, "provisor params: params/%s: %s\n", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (!quiet) {
		struct stat st;
		fstat(fd, &st);
		printf("params/%s: %s, %.1f MiB read into memory in %.2f s\n", name,
		       fresh ? "already resident and valid" : "resident", (double)st.st_size / 1048576.0,
		       now_s() - t0);
	}
	close(fd);
	return 0;
}

/* NAME (a resident file in STATE/params) or PARAMS (its source). */
static int params_evict(int dfd, const char *what, int remove_it)
{
	struct groth16_params vk;
	char name[64], why[400];
	int fd;

	if (strchr(what, '/') || faccessat(dfd, what, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
		if (groth16_params_read(what, &vk, 1, why, sizeof why)) {
			fprintf(stderr, "provisor params: %s is neither a resident file here nor a params file: %s\n",
				what, why);
			return 1;
		}
		groth16_resident_name(&vk, name, sizeof name);
	} else {
		snprintf(name, sizeof name, "%s", what);
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "provisor params: params/%s: %s\n", name, strerror(errno));
		return 1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (remove_it && unlinkat(dfd, name, 0) < 0) {
		fprintf(stderr, "provisor params: params/%s: %s\n", name, strerror(errno));
		return 1;
	}
	printf("params/%s: %s\n", name, remove_it ? "removed (the next start validates its source again)"
						  : "evicted from memory (what running workers map stays)");
	return 0;
}

static int cmd_params(int argc, char **argv)
{
	const char *state = NULL, *name = "default", *sub;
	char dir[PATH_MAX];
	int opt, remove_it = 0, quiet = 0, dfd, rc;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'd': state = optarg; break;
		case 'n': name = optarg; break;
		case 'r': remove_it = 1; break;
		case 'q': quiet = 1; break;
		case 'h': return cli_help("params");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("params", "missing list, load or evict");
	sub = argv[optind++];
	if (strcmp(sub, "list") && strcmp(sub, "load") && strcmp(sub, "evict"))
		return cli_usage_error("params", "'%s' is not list, load or evict", sub);
	if (!strcmp(sub, "list") ? optind != argc : optind + 1 != argc)
		return cli_usage_error("params", "%s takes %s", sub, !strcmp(sub, "list") ? "no argument" :
				       !strcmp(sub, "load") ? "one argument, PARAMS" : "one argument, NAME or PARAMS");
	if (remove_it && strcmp(sub, "evict"))
		return cli_usage_error("params", "--remove is for evict");
	if (!state) {
		if (cli_state_dir(name, dir, sizeof dir) < 0)
			return 1;
		state = dir;
	}
	if ((dfd = params_dir(state, !strcmp(sub, "load"))) < 0)
		return 1;
	if (!strcmp(sub, "list"))
		rc = params_list(dfd, state);
	else if (!strcmp(sub, "load"))
		rc = params_load(dfd, argv[optind], quiet);
	else
		rc = params_evict(dfd, argv[optind], remove_it);
	close(dfd);
	return rc;
}

const struct cli_entry cli_cmd_params = {
	.name = "params",
	.usage = "params list | load PARAMS | evict NAME|PARAMS [--remove]  [--state-dir DIR | --name NAME]",
	.help = "The resident params of a state directory (STATE/params): each params file\n"
		"validated once, every point, then mapped read-only by every gpuworker.\n"
		"  list               each resident file: k, size, how much is in memory,\n"
		"                     whether its source still matches, the source's path\n"
		"  load PARAMS        validate PARAMS into its resident form (unless the one\n"
		"                     there still matches it) and read it into memory\n"
		"  evict NAME|PARAMS  drop its pages from memory\n"
		"  --remove           evict: delete the resident file too (the next start\n"
		"                     validates its source again)\n"
		"  --quiet            load: print nothing on success\n"
		"  --state-dir DIR    the state directory (default: instance NAME's)\n"
		CLI_HELP_NAME,
	.options = cmd_params_options,
	.optstring = ":d:n:rqh",
	.exec = cmd_params,
};
