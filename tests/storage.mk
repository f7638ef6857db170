# tests/storage: the state directory under pressure (issue 11): a full
# file system blocks jobs and never fails them; the supervisor's memory
# does not grow with k, since no payload passes through it.
TESTS += tests/storage/enospc.sh tests/storage/memory.sh tests/storage/release.sh
