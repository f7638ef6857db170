/*
 * status: the renderings of one snapshot that `provisor status` prints and
 * `provisor exporter` serves: plain text for people, JSON for programs
 * (docs/status-json.md), the Prometheus text exposition format for fleets
 * (docs/metrics.md). All three read only the snapshot, so they agree with
 * each other when made from the same one.
 */
#ifndef TUI_STATUS_H
#define TUI_STATUS_H

#include <stdio.h>

#include "tui/snap.h"

#define STATUS_JSON_VERSION 1

/* What the text shows of the jobs: by default one line each; parts: every
 * job with one line per partition; job: only that job, with its
 * partitions (0: every job). */
struct status_opts {
	int parts;
	uint64_t job;
};

/* Each returns 0, or -EIO/-ENOMEM when writing failed. status_text is
 * status_text_opts with the defaults (one line per job). */
int status_text(FILE *f, const struct snap *s);
int status_text_opts(FILE *f, const struct snap *s, const struct status_opts *o);
int status_json(FILE *f, const struct snap *s);
int status_prom(FILE *f, const struct snap *s);
/* A Prometheus label value from untrusted text (a node's name, a kind
 * from the database): cleaned (util_clean), then \\ and " escaped; into
 * buf, which it returns. */
const char *status_prom_label(char *buf, size_t len, const char *raw);

/* A done job's result file, STATE/results/job-ID.result, where STATE is
 * the directory of the control socket the segment publishes (the
 * supervisor puts both there): 0, or -1 when the segment publishes no
 * socket path or it does not fit. */
int status_result_path(const struct snap *s, uint64_t id, char *buf, size_t len);
/* A job that has ended (done, failed, cancelled): it has no ETA. */
int status_job_ended(uint32_t state);

#endif
