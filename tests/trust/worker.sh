#!/usr/bin/env bash
# An exploited worker does not own the rig (issue 21, docs/security.md
# "Workers"). A root supervisor runs its workers as worker_user (a user of
# the test's own); tests/trust/probe.so, put in front of the gpuworker,
# takes over its first fdatasync (the end of storing a result, after the
# worker's start and confinement) and tries what a probe of the rig did:
#   - it runs as the worker user, not root;
#   - no descriptor of it is a directory to climb out of with "..";
#   - reading the journal, creating results/job-777.result, a symlink
#     results/job-778.result -> /etc/hostname and a file in jobs/,
#     opening the status segment (read-write or read-only), the
#     supervisor's memory, a file in /tmp, and signalling the supervisor
#     are all refused;
#   - of the segment it has one page mapped writable: its own slot;
#   - a helper it forks that leaves its process group (setsid) does not
#     outlive it: once the gpuworker is killed and reaped, the helper is
#     gone too.
# The job still ends in results that verify, nothing was created in the
# state directory, and the other slots were never quarantined.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
so=$bindir/tests/trust_probe.so
[ -f "$so" ] || { echo "FAIL: no $so (make builds it with the tests)"; exit 1; }
cp "$so" "$T/bin/probe.so" && chmod 755 "$T/bin/probe.so"
wu=pvtw$$
mkuser "$wu"
name=pvt-w-$$
printf '[supervisor]\nworker_user = %s\n' "$wu" >"$T/w.ini"

PROVISOR_WORKER_WRAP="/usr/bin/env LD_PRELOAD=$T/bin/probe.so ASAN_OPTIONS=verify_asan_link_order=0 PROBE_STATE=$T/st PROBE_SEG=/run/provisor/$name.status" \
  start "$name" "$T/st" --config "$T/w.ini"
pid=$sup_pid
out=$("$P" submit --name "$name" --kind porep --log-size 10 --partitions 2 --wait 2>&1) ||
  fail "porep job: $out"
echo "info: $out"
log=$T/$name.log
grep '^probe: ' "$log" | sed 's/^/info: /'

uid=$(id -u "$wu")
grep -q "^probe: uid $uid euid $uid " "$log" || fail "the probe did not run as $wu (uid $uid)"
tried=$(grep -c '^probe: .*: \(refused\|SUCCEEDED\)' "$log")
[ "$tried" -eq 10 ] || fail "$tried attempts reported, expected 10"
if grep -q '^probe: .*: SUCCEEDED' "$log"; then
  fail "attempts that succeeded:"; grep '^probe: .*: SUCCEEDED' "$log" | sed 's/^/    /'
fi
grep -q '^probe: segment pages mapped writable: 1$' "$log" ||
  fail "writable segment mappings: $(grep '^probe: segment pages' "$log")"
for f in results/job-777.result results/job-778.result jobs/filler; do
  [ ! -e "$T/st/$f" ] && [ ! -L "$T/st/$f" ] || fail "$f exists"
done

# The helper lives while its worker does, and goes with it.
helper=$(sed -n 's/^probe: helper pid \([0-9]*\)$/\1/p' "$log" | head -1)
[ -n "$helper" ] || fail "no helper pid in the log"
if [ -n "$helper" ]; then
  kill -0 "$helper" 2>/dev/null || fail "the helper $helper was gone before its worker"
  gw=$(pgrep -f -- "gpuworker --instance $name" | head -1)
  [ -n "$gw" ] && kill -KILL "$gw"
  slow=${PROVISOR_TEST_SLOW:-1}
  for _ in $(seq $((100 * slow))); do
    kill -0 "$helper" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$helper" 2>/dev/null && fail "the helper $helper outlived its gpuworker"
  [ -e "/proc/$helper" ] && fail "the helper $helper was left a zombie"
fi

# What the job made is whole.
for r in "$T"/st/results/job-*.result; do
  "$P" verify "$r" >/dev/null 2>&1 || fail "$r does not verify"
done
st=$("$P" status --name "$name" 2>&1)
echo "$st" | grep -q quarantin && fail "a slot was quarantined: $st"
stop "$name" "$pid"
pgrep -u "$wu" >/dev/null && fail "processes of $wu are left: $(pgrep -u "$wu" | tr '\n' ' ')"

# An unprivileged supervisor (the shipped unit's case) cannot give its
# workers another user: they share its uid, and Landlock alone keeps them
# out of its state directory, its segment and its process. Where the
# kernel has no Landlock that is said, and this half checks nothing more.
abi=$(sed -n 's/^probe: uid [0-9]* euid [0-9]* landlock \(-*[0-9]*\)$/\1/p' "$log" | head -1)
if [ "${abi:--1}" -lt 1 ]; then
  echo "info: no Landlock in this kernel: an unprivileged supervisor's workers share its uid unconfined"
else
  name2=pvt-w2-$$
  mkdir -m 700 "$T/st2" && chown "$wu" "$T/st2"
  log2=$T/$name2.log
  seg2=/dev/shm/provisor-$uid/$name2.status
  as "$wu" env PROVISOR_WORKER_WRAP="/usr/bin/env LD_PRELOAD=$T/bin/probe.so ASAN_OPTIONS=verify_asan_link_order=0 PROBE_STATE=$T/st2 PROBE_SEG=$seg2" \
    "$P" run --name "$name2" --state-dir "$T/st2" --gpus 1 --workers-per-gpu 1 --synth 1 --backend cpu >"$log2" 2>&1 &
  pid2=$!
  t_sups+=("$pid2")
  for _ in $(seq 100); do
    as "$wu" "$P" ping --name "$name2" >/dev/null 2>&1 && break
    sleep 0.1
  done
  out=$(as "$wu" "$P" submit --name "$name2" --kind porep --log-size 10 --partitions 2 --wait 2>&1) ||
    fail "porep job on the unprivileged supervisor: $out"
  grep '^probe: ' "$log2" | sed 's/^/info: unprivileged: /'
  grep -q "^probe: uid $uid euid $uid " "$log2" || fail "the unprivileged supervisor's probe did not run"
  for what in "read the journal" "create results/job-777.result" "create a file in jobs/" \
              "open the status segment read-write" "open the supervisor's memory" "write in /tmp"; do
    grep -q "^probe: $what: refused" "$log2" || fail "same uid: $what: $(grep "^probe: $what" "$log2")"
  done
  if [ "$abi" -ge 6 ]; then
    grep -q "^probe: signal the supervisor: refused" "$log2" || fail "same uid, Landlock ABI $abi: the supervisor could be signalled"
  fi
  grep -q '^probe: segment pages mapped writable: 1$' "$log2" || fail "same uid: $(grep '^probe: segment pages' "$log2")"
  as "$wu" "$P" stop --name "$name2" >/dev/null || fail "stop $name2"
  wait "$pid2" || fail "the unprivileged supervisor exited $?"
  left=$(pgrep -u "$wu" | tr '\n' ' ')
  [ -z "$left" ] || fail "the unprivileged supervisor stopped, and processes of $wu are left: $left"
fi
finish
