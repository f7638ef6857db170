/*
 * log: the supervisor's log lines and events. sup_log writes a line to
 * stderr and, when stderr is not systemd's journal, with a UTC timestamp
 * to the log file STATE/log (run.h), which turns into log.1 at its cap;
 * sup_event posts an event to the status segment's ring and logs it
 * (all but the routine submit, done and start). sup_path formats a path
 * or fails with ENAMETOOLONG.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/run.h"
#include "supervisor/sup.h"

/* The log file, STATE/log (run.h), when stderr is not the journal: every
 * sup_log line goes to stderr and, with a UTC timestamp, there. */
static struct {
	int dirfd, fd;		/* the state directory's, and the file's; -1 = none */
	uint64_t size, max;	/* max: SUP_LOG_MAX, or the test hook PROVISOR_LOG_MAX */
} logf = { -1, -1, 0, SUP_LOG_MAX };

/* Is stderr systemd's journal? systemd sets JOURNAL_STREAM to the
 * "DEVICE:INODE" of the stream it connects (systemd.exec(5)); a child
 * of a unit inherits the variable with another stderr, so both must
 * match. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(2, &st) == 0 &&
	       st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

static int log_reopen(int trunc)
{
	int fd = openat(logf.dirfd, SUP_LOG_FILE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
			(trunc ? O_TRUNC : 0), 0640);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (logf.fd >= 0)
		close(logf.fd);
	logf.fd = fd;
	logf.size = (uint64_t)st.st_size;
	return 0;
}

/* Start writing STATE/log (dirfd: the state directory; a copy of it is
 * kept for the rotation), unless stderr is the journal. 0, or -errno. */
int sup_log_open(int dirfd)
{
	const char *max = secure_getenv("PROVISOR_LOG_MAX");	/* tests: rotate early */

	if (stderr_is_journal())
		return 0;
	if (max && atoll(max) > 0)
		logf.max = (uint64_t)atoll(max);
	if ((logf.dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	return log_reopen(0);
}

void sup_log_close(void)
{
	if (logf.fd >= 0)
		close(logf.fd);
	if (logf.dirfd >= 0)
		close(logf.dirfd);
	logf.fd = logf.dirfd = -1;
}

static void log_file(const char *msg, int len)
{
	char line[1200];
	struct timespec ts;
	struct tm tm;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ provisor[%d]: %.*s\n",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ts.tv_nsec / 1000000, (int)getpid(), len, msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line) {	/* cut, still one line */
		n = sizeof line - 1;
		line[n - 1] = '\n';
	}
	/* At the cap: the file becomes log.1 (replacing the one before) and
	 * a new one begins. */
	if (logf.size + (uint64_t)n > logf.max &&
	    (renameat(logf.dirfd, SUP_LOG_FILE, logf.dirfd, SUP_LOG_FILE ".1") < 0 || log_reopen(1) < 0)) {
		sup_log_close();	/* cannot go on with it: stderr only */
		fprintf(stderr, "provisor[%d]: the log file: %s; logging to stderr only\n", (int)getpid(),
			strerror(errno));
		return;
	}
	if (write(logf.fd, line, (size_t)n) == n)
		logf.size += (uint64_t)n;
}

void sup_log(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof msg)
		n = sizeof msg - 1;
	fprintf(stderr, "provisor[%d]: %s\n", (int)getpid(), msg);
	if (logf.fd >= 0)
		log_file(msg, n);
}

int sup_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

void sup_event(struct sup *s, uint32_t type, int table, uint32_t slot, int32_t code,
	       uint64_t job, uint32_t part, const char *fmt, ...)
{
	struct shm_event ev = { .type = type, .table = (uint32_t)table, .slot = slot, .code = code,
				.job_id = job, .partition = part };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ev.msg, sizeof ev.msg, fmt, ap);
	va_end(ap);
	shm_post_event(&s->seg, &ev);
	if (type != SHM_EV_JOB_SUBMIT && type != SHM_EV_JOB_DONE && type != SHM_EV_START)
		sup_log("%s", ev.msg);
}

