/*
 * jobs_journal: the journal while the supervisor runs (journal/journal.h).
 *
 * Every end appends a record that only a compaction drops, so submit and
 * cancel churn would grow the file until the next start. Once it is due
 * (JOURNAL_COMPACT_MIN bytes and four times what the last compaction
 * left), the journal is compacted at the end of the job that made it so:
 * it keeps only the unfinished jobs (at most the job table's) and the
 * highest id, so the loop waits for a read of the file and two fsyncs of
 * a small one, once per many thousands of records.
 *
 * A compaction drops the records of ended jobs that are still in the job
 * table and may be retried: a RETRY of such a job would name an id the
 * journal no longer has (ignored at replay, the retried job lost at a
 * restart). So those jobs are marked, and their retry journals their
 * SUBMIT again instead.
 */
#include <string.h>

#include "journal/journal.h"
#include "supervisor/sup.h"

void jobs_journal_trim(struct sup *s)
{
	uint64_t before, after;
	char jerr[200];

	if (!s->journal || !journal_compact_due(s->journal, s->journal_compact_min))
		return;
	loop_flush(&s->loop);	/* a submit's fdatasync queued holds the old fd */
	if (journal_compact(s->journal, &before, &after, jerr, sizeof jerr) < 0) {
		sup_log("compacting the journal: %s", jerr);
		return;
	}
	for (uint32_t i = 0; i < s->njobs; i++)
		if (s->jobs[i].id && !jobs_active(&s->jobs[i]))
			s->jobs[i].unjournaled = 1;
	sup_log("journal compacted: %llu -> %llu bytes", (unsigned long long)before,
		(unsigned long long)after);
}

int jobs_journal_retry(struct sup *s, int ji, char *err, size_t errlen)
{
	struct job *j = &s->jobs[ji];
	struct journal_job jj = { .id = j->id, .kind = j->kind, .priority = j->priority,
				  .log_size = j->log_size, .nparts = j->nparts, .seed_len = j->seed_len,
				  .submit_wall_ns = j->submit_wall_ns, .uid = (uint32_t)j->uid };
	int rc;

	if (!j->unjournaled)
		return journal_retry_nosync(s->journal, j->id, err, errlen);
	memcpy(jj.seed, j->seed, j->seed_len);
	if ((rc = journal_resubmit_nosync(s->journal, &jj, err, errlen)) == 0)
		j->unjournaled = 0;
	return rc;
}
