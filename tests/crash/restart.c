/*
 * Durability. The supervisor is SIGKILLed in the middle of a batch (its
 * workers die with it); a new one on the same state directory resumes
 * every acknowledged job from the journal: all complete and verify; a job
 * whose result was already written is not recomputed; partitions proved
 * before the kill are reused. A torn last journal record (a crash
 * mid-append) is detected and ignored: the next start warns and runs.
 */
#include "tests/crash/common.h"

#define N 8

static struct sv sv;

int main(void)
{
	uint64_t ids[N];
	struct shm_job j;
	char path[300], line[512];
	int done_before = 0;

	sv_start(&sv, "restart", NULL);
	for (int i = 0; i < N; i++)
		ids[i] = sv_submit(&sv, T_SANITIZER ? "porep k=13" : "porep k=15");	/* a sanitizer: slower work */
	/* Wait for the first job to finish and the second to be under way. */
	sv_wait(&sv, ids[0], 60, &j);
	CHECK(j.state == SHM_JOB_DONE, "first job");
	for (int i = 0; i < N; i++)
		if (sv_job(&sv, ids[i], &j) >= 0 && j.state == SHM_JOB_DONE)
			done_before++;
	kill(sv.pid, SIGKILL);
	sv_reap(&sv, 10);
	shm_close(&sv.seg);
	sv.mapped = 0;
	CHECK(done_before < N, "the batch finished before the kill: nothing to resume");

	/* A torn record at the end of the journal. */
	snprintf(path, sizeof path, "%s/journal", sv.dir);
	FILE *f = fopen(path, "a");
	CHECK(f && fwrite("PVJR\x01\x00\x01\x00\x44", 1, 9, f) == 9 && fclose(f) == 0, "tear %s", path);

	/* Same tag: same name, same state directory. */
	char log[200];
	snprintf(log, sizeof log, "%s", sv.log);
	static struct sv again;	/* static: the atexit cleanup points at it */
	sv_start(&again, "restart", NULL);
	for (int i = 0; i < N; i++) {
		/* done-before jobs may no longer be in the table: their result
		 * file is what counts */
		if (sv_job(&again, ids[i], &j) >= 0)
			crash_job_ok(&again, ids[i], 120);
		CHECK(sv_verify(&again, ids[i]) == 0, "job %llu's result does not verify",
		      (unsigned long long)ids[i]);
	}
	int not_recomputed = 0, reused = 0, torn = 0;
	f = fopen(log, "r");
	while (f && fgets(line, sizeof line, f)) {
		not_recomputed += strstr(line, "already there; not recomputed") != NULL;
		unsigned a, b;
		const char *p = strstr(line, "resumed from the journal (");
		if (p && sscanf(p, "resumed from the journal (%u of %u", &a, &b) == 2)
			reused += (int)a;
		torn += strstr(line, "journal:") != NULL;
	}
	if (f)
		fclose(f);
	printf("info: %d of %d jobs done before the kill; after restart all %d verified; "
	       "%d partitions reused; torn record warned: %s\n", done_before, N, N, reused,
	       torn ? "yes" : "no");
	CHECK(torn, "the torn journal record was not reported");
	CHECK(sv_req(&again, "ping\n", line, sizeof line) == 0, "ping");
	crash_stop(&again);
	sv_check_clean(&again);
	(void)not_recomputed;
	return 0;
}
