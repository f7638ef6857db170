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

/* Each returns 0, or -EIO/-ENOMEM when writing failed. */
int status_text(FILE *f, const struct snap *s);
int status_json(FILE *f, const struct snap *s);
int status_prom(FILE *f, const struct snap *s);

#endif
