/*
 * supervisor/loop.c's bookkeeping, without a ring: every loop_what has a
 * name and an unknown one reads "op N"; loop_account counts an iteration
 * in the histogram and in the segment's buckets (at most the bound:
 * 10 us is in the first, 10 us + 1 ns in the second), and an iteration is
 * slow only past SHM_LOOP_SLOW_NS, recording its length, start and name.
 */
#include "supervisor/loop.h"
#include "tests/helpers.h"

#define MS 1000000ull

int main(void)
{
	struct loop_stats st = { 0 };
	char buf[LOOP_WHAT_NAME];
	uint64_t total = 0;

	for (uint32_t w = EV_SIGNAL; w <= EV_IGNORE; w++) {
		const char *n = loop_what_name(w, buf, sizeof buf);
		CHECK(n != buf && n[0] && strlen(n) < LOOP_WHAT_NAME, "loop_what %u has no name", w);
	}
	CHECK(!strcmp(loop_what_name(LOOP_AFTER, buf, sizeof buf), "schedule"), "after hook");
	CHECK(!strcmp(loop_what_name(EV_CHILD_READ, buf, sizeof buf), "child read"), "child read");
	CHECK(!strcmp(loop_what_name(4000000000u, buf, sizeof buf), "op 4000000000"), "fallback: %s", buf);

	CHECK(loop_account(&st, 10000, 1, EV_TICK) == 0, "10 us is not slow");
	CHECK(loop_account(&st, 10001, 2, EV_TICK) == 0, "10 us + 1 is not slow");
	CHECK_EQ_U64(st.le[0], 1);
	CHECK_EQ_U64(st.le[1], 1);
	CHECK(loop_account(&st, SHM_LOOP_SLOW_NS, 3, EV_TICK) == 0, "exactly 50 ms is not slow");
	CHECK_EQ_U64(st.slow_count, 0);
	CHECK_EQ_U64(st.le[11], 1);	/* the 50 ms bucket */
	CHECK(loop_account(&st, SHM_LOOP_SLOW_NS + 1, 777, EV_CHILD_READ) == 1, "50 ms + 1 is slow");
	CHECK_EQ_U64(st.le[12], 1);
	CHECK(st.slow_count == 1 && st.slow_ns == SHM_LOOP_SLOW_NS + 1 && st.slow_mono_ns == 777 &&
	      !strcmp(st.slow_what, "child read"), "slow record: %llu %llu %s",
	      (unsigned long long)st.slow_ns, (unsigned long long)st.slow_mono_ns, st.slow_what);
	CHECK(loop_account(&st, 11000 * MS, 900, 99) == 1, "11 s is slow");
	CHECK_EQ_U64(st.le[SHM_LOOP_NBUCKETS - 1], 1);
	CHECK(st.slow_count == 2 && !strcmp(st.slow_what, "op 99") && st.slow_mono_ns == 900,
	      "second slow record: %s", st.slow_what);
	CHECK(loop_account(&st, 2 * MS, 901, LOOP_AFTER) == 0, "2 ms");
	CHECK(!strcmp(st.slow_what, "op 99"), "a fast iteration keeps the last slow one");
	for (unsigned b = 0; b < SHM_LOOP_NBUCKETS; b++)
		total += st.le[b];
	CHECK_EQ_U64(total, st.hist.n);
	CHECK_EQ_U64(st.hist.n, 6);
	CHECK_EQ_U64(st.hist.max_ns, 11000 * MS);
	for (unsigned b = 1; b < SHM_LOOP_NBUCKETS - 1; b++)
		CHECK(shm_loop_le_ns[b] > shm_loop_le_ns[b - 1], "bucket bounds increase");
	/* the most CPU time one iteration took, and what it did */
	loop_account_cpu(&st, 3 * MS, EV_TICK);
	loop_account_cpu(&st, 1 * MS, 99);
	CHECK(st.cpu_max_ns == 3 * MS && !strcmp(st.cpu_max_what, loop_what_name(EV_TICK, buf, sizeof buf)),
	      "cpu max: %llu %s", (unsigned long long)st.cpu_max_ns, st.cpu_max_what);
	loop_account_cpu(&st, 4 * MS, 99);
	CHECK(st.cpu_max_ns == 4 * MS && !strcmp(st.cpu_max_what, "op 99"), "a new cpu max: %s", st.cpu_max_what);
	printf("info: loop names, buckets and the slow record as documented\n");
	return 0;
}
