/*
 * A long run: at least 1000 partitions through one supervisor. Its open
 * fds and its memory must stay flat: measured after a warm-up and again
 * after 1024 more partitions, the fd count is equal and its private
 * memory (RssAnon; the status segment's shared pages are not counted)
 * grew by less than 128 KiB: a leak of 128 bytes per partition shows.
 * Under a sanitizer, whose runtime keeps growing its own books, only the
 * fds are compared, and the run is shorter: 512 partitions of warm-up
 * and 512 more, 1024 in all.
 */
#include "tests/crash/common.h"

static struct sv sv;

static int count_fds(pid_t pid)
{
	char path[64];
	int n = 0;
	struct dirent *e;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "RssAnon: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* Submit n snap-deals jobs (16 partitions each) and wait for them all. */
static void run(int n)
{
	uint64_t ids[64];
	for (int done = 0; done < n;) {
		int k = n - done < 64 ? n - done : 64;
		for (int i = 0; i < k; i++)
			ids[i] = sv_submit(&sv, "snap-deals k=8");
		for (int i = 0; i < k; i++)
			crash_job_ok(&sv, ids[i], 120);
		done += k;
	}
}

int main(void)
{
	sv_start(&sv, "longrun", NULL);
	/* Warm-up past the job table's size (256), whose zeroed pages are
	 * first touched as jobs fill it: after that nothing may grow. */
	int warm = T_SIZE(272, 32), more = T_SIZE(64, 32);
	run(warm);
	int fds0 = count_fds(sv.pid);
	long rss0 = rss_kib(sv.pid);
	run(more);	/* 1024 partitions (512 under a sanitizer) */
	struct shm_sup sup;
	sv_wait_tick(&sv);	/* the count published since the last job's end */
	CHECK(shm_read_sup(&sv.seg, &sup) == 0, "sup record");
	int fds1 = count_fds(sv.pid);
	long rss1 = rss_kib(sv.pid);
	printf("info: %llu partitions: supervisor fds %d -> %d, private memory %ld -> %ld KiB\n",
	       (unsigned long long)sup.parts_done, fds0, fds1, rss0, rss1);
	CHECK(sup.parts_done >= (uint64_t)(warm + more) * 16 && sup.parts_done >= 1000, "only %llu partitions",
	      (unsigned long long)sup.parts_done);
	CHECK(fds1 == fds0, "fds grew from %d to %d", fds0, fds1);
	/* A sanitizer's runtime keeps growing its own books: only the fds
	 * can be compared there. */
	if (!T_SANITIZER)
		CHECK(rss1 - rss0 < 128, "private memory grew by %ld KiB over 1024 partitions",
		      rss1 - rss0);
	crash_stop(&sv);
	sv_check_clean(&sv);
	return 0;
}
