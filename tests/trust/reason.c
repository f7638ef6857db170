/*
 * A worker's FAIL reason is untrusted text. A gpuworker and a synth that
 * each send one whose reason holds terminal escape sequences (ESC ] 0 ;
 * ... BEL, ESC [ 2 J, a colour, a non-ASCII byte: fault "frame:hostile")
 * get their partitions requeued and the job still verifies; the reason
 * reaches the event ring and the supervisor's log shown as \xNN, and not
 * one raw control or non-ASCII byte reaches either.
 */
#include "tests/crash/common.h"

static struct sv sv;

static int clean_bytes(const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

int main(void)
{
	struct shm_event ev;
	int shown = 0;

	crash_fault("gpu.0:frame:hostile,synth.0:frame:hostile");
	sv_start(&sv, "reason", NULL);
	uint64_t id = sv_submit(&sv, "snap-deals k=10");
	crash_job_ok(&sv, id, 60);

	uint64_t head = shm_event_head(&sv.seg);
	for (uint64_t q = head; q > 0 && head - q < 1024; q--) {
		if (shm_read_event(&sv.seg, q, &ev))
			continue;
		CHECK(clean_bytes(ev.msg, sizeof ev.msg), "event %llu holds a raw control byte: '%s'",
		      (unsigned long long)q, ev.msg);
		if (strstr(ev.msg, "\\x1b]0;pwned")) {
			if (!shown)
				printf("info: event: %s\n", ev.msg);
			shown++;
		}
	}
	CHECK(shown >= 2, "%d events show the hostile reasons (a gpu and a synth sent one)", shown);
	crash_stop(&sv);

	FILE *f = fopen(sv.log, "r");
	char line[1024];
	int logged = 0;
	CHECK(f, "open %s", sv.log);
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		CHECK(clean_bytes(line, sizeof line), "the log holds a raw control byte: '%s'", line);
		logged += strstr(line, "\\x1b[2J") != NULL;
	}
	fclose(f);
	CHECK(logged >= 2, "%d log lines show the hostile reasons", logged);
	sv_check_clean(&sv);
	return 0;
}
