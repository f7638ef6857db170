/*
 * fuzz_regress: replay every stored fuzz input through its target, built
 * normally (fuzz/fuzz.h, -DFUZZ_REGRESS): the seed corpora in
 * fuzz/corpus/NAME and the inputs of crashes found and fixed in
 * fuzz/regress/NAME. Passes when nothing crashes or breaks an invariant
 * (a target aborts); under `make asan` it runs with the sanitizers.
 * Usage: fuzz_regress [FUZZDIR] (default "fuzz", from the repository root).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"

static const struct {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
} targets[] = {
	{ "frame", fuzz_frame_one }, { "ctl", fuzz_ctl_one }, { "conf", fuzz_conf_one },
	{ "journal", fuzz_journal_one }, { "pfile", fuzz_pfile_one }, { "shm", fuzz_shm_one },
	{ "point", fuzz_point_one }, { "params", fuzz_params_one }, { "proof", fuzz_proof_one },
};

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc(n ? (size_t)n : 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*size = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Feed every regular file of dir to one; -1 when a file cannot be read,
 * else the count (0 for a missing directory). */
static int replay_dir(const char *dir, int (*one)(const uint8_t *, size_t))
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), count = 0, bad = 0;

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		uint8_t *buf;
		size_t size;

		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!(buf = read_file(path, &size))) {
			fprintf(stderr, "cannot read %s\n", path);
			bad = 1;
			continue;
		}
		fprintf(stderr, "%s\n", path);	/* the last one named is the culprit */
		one(buf, size);
		free(buf);
		count++;
	}
	free(names);
	return bad ? -1 : count;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "fuzz";
	int fail = 0;

	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
		char dir[1024];
		int seeds, crashes;

		snprintf(dir, sizeof dir, "%s/corpus/%s", root, targets[t].name);
		seeds = replay_dir(dir, targets[t].one);
		snprintf(dir, sizeof dir, "%s/regress/%s", root, targets[t].name);
		crashes = replay_dir(dir, targets[t].one);
		if (seeds <= 0 || crashes < 0) {
			fprintf(stderr, "%s: no seed corpus in %s/corpus/%s, or an unreadable input\n",
				targets[t].name, root, targets[t].name);
			fail = 1;
			continue;
		}
		printf("info: fuzz_%s: %d seeds, %d regression inputs replayed\n",
		       targets[t].name, seeds, crashes);
	}
	return fail;
}
