/*
 * cmd_status: `provisor status [--name NAME] [--json] [--prometheus]`.
 * One snapshot of the status segment, printed; it never talks to the
 * supervisor, so it answers while the supervisor is hung. Exit 0 when the
 * supervisor is running, 3 when the segment shows it not running or not
 * responding (the data printed is its last), 1 when there is no segment.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/cmds.h"
#include "tui/snap.h"
#include "tui/status.h"

static int usage(void)
{
	fprintf(stderr, "usage: provisor status [--name NAME] [--json] [--prometheus]\n");
	return 2;
}

int cmd_status(int argc, char **argv)
{
	const char *name = "default";
	int json = 0, prom = 0, rc;
	struct snap_reader r;
	struct snap s = { 0 };
	char err[256];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--prometheus"))
			prom = 1;
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strncmp(argv[i], "--name=", 7))
			name = argv[i] + 7;
		else
			return usage();
	}
	if (json && prom)
		return usage();
	if (snap_reader_init(&r, name, err, sizeof err) < 0) {
		fprintf(stderr, "provisor status: %s\n", err);
		return 2;
	}
	rc = snap_take(&r, &s);
	if (!s.attached)
		snprintf(s.name, sizeof s.name, "%s", name);
	if (rc < 0 && !json && !prom) {
		fprintf(stderr, "provisor status: %s\n", rc == -ENOMEM ? "out of memory" : s.err);
		snap_reader_close(&r);
		return 1;
	}
	rc = json ? status_json(stdout, &s) : prom ? status_prom(stdout, &s) : status_text(stdout, &s);
	if (fflush(stdout) || rc < 0) {
		fprintf(stderr, "provisor status: writing the output: %s\n", strerror(errno));
		rc = 1;
	} else if (!s.attached)
		rc = 1;
	else
		rc = s.health == SHM_HEALTH_RUNNING ? 0 : 3;
	snap_free(&s);
	snap_reader_close(&r);
	return rc;
}
