/*
 * Benchmark: the pipeline under load, through a real supervisor with real
 * children (CPU backend here). A stream of snap-deals and porep jobs with
 * small partitions (k = 12) is submitted at once; the supervisor's and the
 * gpuworkers' traces (PROVISOR_TRACE_DIR) then give:
 *   - dispatch latency: a partition ready in the supervisor (its synth's
 *     PART_DATA header read: the synth has begun streaming its rows) ->
 *     the relayed header read by a gpuworker ("A" in its trace). Not to
 *     the gpuworker's begin: the payload is whole only once the synth has
 *     made every row, so that span is synthesis, not dispatch;
 *   - GPU-slot idle gap: a gpuworker finishing one H-term -> beginning
 *     the next, counted only when the next was already whole in the
 *     worker ("W") before the H-term finished: work was waiting;
 *   - the supervisor's CPU time as a share of all the processes' CPU.
 */
#include <sys/resource.h>

#include "tests/pipeline/harness.h"

#define MAXP 8192

/* R (supervisor): job, part, t. A (gpuworker): gen, job, part, t. W: gen, t.
 * B: gen, job, part, t, and proved_before: when the same worker finished
 * the H-term before this one (0 for its first). */
struct rec { uint64_t gen, job, part, t, proved_before; };

static struct sv sv;
static struct rec ready[MAXP], arrived[MAXP], whole[MAXP], begin[MAXP];
static uint64_t gaps[MAXP], lat[MAXP];
static uint64_t solo_lat[MAXP];
static unsigned nready, narrived, nwhole, nbegin, ngap, nlat, nsolo;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The latest R of (job, part) at or before t; 0 when none. */
static uint64_t ready_at(uint64_t job, uint64_t part, uint64_t before)
{
	uint64_t best = 0;
	for (unsigned i = 0; i < nready; i++)
		if (ready[i].job == job && ready[i].part == part && ready[i].t <= before && ready[i].t > best)
			best = ready[i].t;
	return best;
}

/* The time of generation gen in recs (A or W); 0 when none. */
static uint64_t gen_at(const struct rec *recs, unsigned n, uint64_t gen)
{
	for (unsigned i = 0; i < n; i++)
		if (recs[i].gen == gen)
			return recs[i].t;
	return 0;
}

static void read_traces(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[600], line[256];

	while (d && (e = readdir(d))) {
		int gpu = !strncmp(e->d_name, "gpu.", 4);
		if (!gpu && strncmp(e->d_name, "sup.", 4))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		uint64_t proved = 0;
		unsigned first = nbegin;
		while (f && fgets(line, sizeof line, f)) {
			unsigned long long a, b, c, g;
			if (!gpu && sscanf(line, "R %llu %llu %llu", &a, &b, &c) == 3 && nready < MAXP)
				ready[nready++] = (struct rec){ 0, a, b, c, 0 };
			else if (gpu && sscanf(line, "A %llu %llu %llu %llu", &g, &a, &b, &c) == 4 &&
				 narrived < MAXP)
				arrived[narrived++] = (struct rec){ g, a, b, c, 0 };
			else if (gpu && sscanf(line, "W %llu %llu", &g, &a) == 2 && nwhole < MAXP)
				whole[nwhole++] = (struct rec){ g, 0, 0, a, 0 };
			else if (gpu && sscanf(line, "B %llu %llu %llu %llu", &g, &a, &b, &c) == 4 && nbegin < MAXP) {
				begin[nbegin++] = (struct rec){ g, a, b, c, nbegin > first ? proved : 0 };
			} else if (gpu && sscanf(line, "P %llu %llu", &g, &a) == 2) {
				proved = a;
			}
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

static uint64_t proc_cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof buf, f)) {
		char *p = strrchr(buf, ')');
		if (p)
			sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
	}
	if (f)
		fclose(f);
	return ut + st;
}

int main(void)
{
	char dir[200], cmd[300], reply[256];
	uint64_t ids[64];
	int n = 0, status;
	struct shm_job j;
	struct rusage ru;

	snprintf(dir, sizeof dir, "/tmp/provisor-bench-%d", (int)getpid());
	mkdir(dir, 0700);
	setenv("PROVISOR_TRACE_DIR", dir, 1);
	sv_start(&sv, "bench", NULL);
	uint64_t t0 = t_now_ns();
	for (int i = 0; i < 16; i++)
		ids[n++] = sv_submit(&sv, i % 4 == 3 ? "porep k=12" : "snap-deals k=12");
	for (int i = 0; i < n; i++)
		sv_wait(&sv, ids[i], 300, &j);
	double wall = (double)(t_now_ns() - t0) / 1e9;
	/* Then one partition at a time: dispatch with a GPU waiting. */
	uint64_t solo[40];
	for (int i = 0; i < 40; i++) {
		solo[i] = sv_submit(&sv, "winning-post k=12");
		sv_wait(&sv, solo[i], 60, &j);
	}
	uint64_t sup_ticks = proc_cpu_ticks(sv.pid);
	sv_req(&sv, "stop\n", reply, sizeof reply);
	if (wait4(sv.pid, &status, 0, &ru) == sv.pid)
		sv.pid = 0;
	double total = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	double sup = (double)sup_ticks / (double)sysconf(_SC_CLK_TCK);

	read_traces(dir);
	for (unsigned i = 0; i < nbegin; i++) {
		uint64_t a = gen_at(arrived, narrived, begin[i].gen);
		uint64_t w = gen_at(whole, nwhole, begin[i].gen);
		uint64_t r = a ? ready_at(begin[i].job, begin[i].part, a) : 0;
		int is_solo = begin[i].job >= solo[0];
		if (r && is_solo)
			solo_lat[nsolo++] = a - r;
		if (is_solo)
			continue;
		if (r)
			lat[nlat++] = a - r;
		/* An idle gap counts only when the next one was whole in the
		 * worker before it finished the previous: work was waiting. */
		if (w && begin[i].proved_before && w <= begin[i].proved_before)
			gaps[ngap++] = begin[i].t > begin[i].proved_before ?
				       begin[i].t - begin[i].proved_before : 0;
	}
	qsort(lat, nlat, sizeof lat[0], cmp_u64);
	qsort(solo_lat, nsolo, sizeof solo_lat[0], cmp_u64);
	qsort(gaps, ngap, sizeof gaps[0], cmp_u64);
	printf("pipeline: %u partitions of 2^12 (12 snap-deals + 4 porep jobs) in %.2f s, 2 CPU gpuworkers, 2 synth\n",
	       nlat, wall);
	if (nsolo)
		printf("  dispatch latency ready -> header in a gpuworker, GPU waiting: p50 %.1f us, p99 %.1f us (%u partitions)\n",
		       (double)solo_lat[nsolo / 2] / 1e3, (double)solo_lat[nsolo * 99 / 100] / 1e3, nsolo);
	if (nlat)
		printf("  ready -> header in a gpuworker under saturation (includes queueing):  p50 %.1f us, p99 %.1f us\n",
		       (double)lat[nlat / 2] / 1e3, (double)lat[nlat * 99 / 100] / 1e3);
	if (ngap)
		printf("  GPU-slot idle gap between partitions:       p50 %.1f us, p99 %.1f us (%u gaps)\n",
		       (double)gaps[ngap / 2] / 1e3, (double)gaps[ngap * 99 / 100] / 1e3, ngap);
	printf("  supervisor CPU %.3f s of %.3f s for all processes (whole run): %.2f%%\n", sup, total,
	       total > 0 ? 100.0 * sup / total : 0.0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
