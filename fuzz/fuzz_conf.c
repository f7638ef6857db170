/*
 * fuzz_conf: the configuration file parser (conf/conf.h). conf_load takes
 * a path, so the input goes into a memfd made once and is loaded through
 * /proc/self/fd/N. A refused file must leave the struct byte for byte as
 * it was and give "FILE...: reason"; an accepted one must pass conf_check.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf/conf.h"
#include "fuzz/fuzz.h"

static int fuzz_conf_fd = -1;
static char fuzz_conf_path[64];

FUZZ_ENTRY(conf)
{
	struct conf c, before;
	char err[512];
	int rc;

	if (fuzz_conf_fd < 0) {
		fuzz_conf_fd = memfd_create("fuzz-conf", MFD_CLOEXEC);
		FUZZ_ASSERT(fuzz_conf_fd >= 0);
		snprintf(fuzz_conf_path, sizeof fuzz_conf_path, "/proc/self/fd/%d", fuzz_conf_fd);
	}
	FUZZ_ASSERT(ftruncate(fuzz_conf_fd, 0) == 0);
	FUZZ_ASSERT(pwrite(fuzz_conf_fd, data, size, 0) == (ssize_t)size);

	conf_defaults(&c);
	memcpy(&before, &c, sizeof c);
	fuzz_err_fill(err, sizeof err);
	rc = conf_load(&c, fuzz_conf_path, err, sizeof err);
	if (rc) {
		FUZZ_ASSERT(rc == -1);
		fuzz_check_err(err, sizeof err);
		FUZZ_ASSERT(!strncmp(err, fuzz_conf_path, strlen(fuzz_conf_path)));
		FUZZ_ASSERT(!memcmp(&c, &before, sizeof c));
		return 0;
	}
	FUZZ_ASSERT(memchr(c.name, '\0', sizeof c.name));
	FUZZ_ASSERT(memchr(c.state_dir, '\0', sizeof c.state_dir));
	FUZZ_ASSERT(memchr(c.socket_group, '\0', sizeof c.socket_group));
	FUZZ_ASSERT(conf_check(&c, err, sizeof err) == 0);
	return 0;
}
