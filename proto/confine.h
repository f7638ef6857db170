/*
 * confine: what a worker gives up before it runs code provisor did not
 * write (a CUDA stack, a prover library), once it holds every descriptor
 * its work needs (its pipes, the files channel, its slot's page, its
 * params, its trace file).
 *
 *   1. its user: the supervisor's worker_user, passed as --user UID:GID
 *      (setgroups to none, then gid and uid, real, effective and saved;
 *      checked after). A root supervisor always passes one, never uid 0.
 *   2. no_new_privs: no set-uid program can give any of it back.
 *   3. Landlock (Linux 5.13 on, best effort by the ABI the kernel has):
 *      no file system access but reading and executing the system's
 *      directories (/usr, /lib, /lib64, /etc, /proc, /sys) and reading
 *      and writing a few device nodes (/dev/null, /dev/zero, /dev/urandom,
 *      /dev/nvidia*); on ABI 4 and later no TCP bind or connect; on ABI 6
 *      and later no signal to, and no abstract unix socket of, a process
 *      outside the worker (the supervisor, other workers).
 *
 * So a worker with the same uid as its supervisor (an unprivileged
 * supervisor cannot change it) still cannot open the state directory,
 * the segment, or another user's files.
 */
#ifndef PROTO_CONFINE_H
#define PROTO_CONFINE_H

#include <stddef.h>
#include <sys/types.h>

/* "UID:GID", decimal: 0, or -1 for anything else. */
int confine_parse_user(const char *spec, uid_t *uid, gid_t *gid);

/* Steps 1 (when have_user) to 3. 0, or -1 with err set: the worker must
 * then exit, never run unconfined. *landlock_abi gets the Landlock ABI
 * applied (0: none, the kernel lacks it). */
int confine_worker(int have_user, uid_t uid, gid_t gid, int *landlock_abi, char *err, size_t errlen);
/* The same in two steps, for a worker that must read something between
 * them (a backend plugin, gpuworker/main.c): steps 1 and 2, then step 3.
 * Each 0, or -1 with err set. */
int confine_identity(int have_user, uid_t uid, gid_t gid, char *err, size_t errlen);
int confine_landlock(int *landlock_abi, char *err, size_t errlen);

#endif
