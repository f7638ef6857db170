/*
 * fuzz_ctl: the control request parser (ctl/ctl.h). The input is one
 * request line as it arrives on the socket. A refused line gives -EINVAL
 * with a reason and leaves the request untouched; an accepted one must
 * format back into a line of at most CTL_MAX_LINE bytes that parses to
 * the same request, and formatting that again gives the same bytes.
 */
#include <errno.h>
#include <string.h>

#include "ctl/ctl.h"
#include "fuzz/fuzz.h"

static int fuzz_ctl_same(const struct ctl_req *a, const struct ctl_req *b)
{
	return a->op == b->op && a->kind == b->kind && a->seed_len == b->seed_len &&
	       a->seed_len <= sizeof a->seed && !memcmp(a->seed, b->seed, a->seed_len) &&
	       a->log_size == b->log_size && a->partitions == b->partitions &&
	       a->job == b->job && a->slot_table == b->slot_table && a->slot == b->slot;
}

FUZZ_ENTRY(ctl)
{
	struct ctl_req req, before, again;
	char err[128], line[CTL_MAX_LINE + 64], line2[sizeof line];
	int rc, n, n2;

	memset(&req, 0x5a, sizeof req);
	before = req;
	fuzz_err_fill(err, sizeof err);
	rc = ctl_parse((const char *)data, size, &req, err, sizeof err);
	if (rc) {
		FUZZ_ASSERT(rc == -EINVAL);
		fuzz_check_err(err, sizeof err);
		FUZZ_ASSERT(!memcmp(&req, &before, sizeof req));
		return 0;
	}
	n = ctl_format(&req, line, sizeof line);
	FUZZ_ASSERT(n > 0 && n <= CTL_MAX_LINE && line[n - 1] == '\n');
	FUZZ_ASSERT(strlen(line) == (size_t)n);
	memset(&again, 0, sizeof again);
	fuzz_err_fill(err, sizeof err);
	rc = ctl_parse(line, (size_t)n, &again, err, sizeof err);
	if (rc)
		fprintf(stderr, "fuzz_ctl: formatted line \"%.*s\" refused: %s\n", n - 1, line, err);
	FUZZ_ASSERT(rc == 0);
	FUZZ_ASSERT(fuzz_ctl_same(&req, &again));
	n2 = ctl_format(&again, line2, sizeof line2);
	FUZZ_ASSERT(n2 == n && !memcmp(line, line2, (size_t)n));
	return 0;
}
