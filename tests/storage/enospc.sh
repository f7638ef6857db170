#!/bin/bash
# A full state directory blocks jobs, never fails them (issue 11,
# docs/crash.md "A full disk"): on a small tmpfs as the state directory,
# four accepted jobs whose results do not all fit once something else took
# part of the space after they were accepted go BLOCKED with the reason
# in the status (and the others go on); a job whose result cannot fit even
# alone is refused at submit with one line; once the tmpfs is made larger
# every job completes by itself, verifies, and none failed or was lost.
# Needs root (mount); skips with 77 otherwise.
set -u
bin=${BIN:-bin}
P=$(cd "$(dirname "$bin/provisor")" && pwd)/provisor
[ -x "$P" ] || { echo "no $bin/provisor: build it first"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root (to mount a tmpfs)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-enospc.XXXXXX") || exit 1
S=$T/state
name=enospc$$
sup=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cleanup() {
  [ -n "$sup" ] && kill -KILL "$sup" 2>/dev/null && wait "$sup" 2>/dev/null
  # A process's io_uring lets go of its files a moment after it exits (the
  # ring is torn down asynchronously): the mount may be busy that long.
  for _ in $(seq 50); do
    mountpoint -q "$S" || break
    umount "$S" 2>/dev/null && break
    sleep 0.1
  done
  mountpoint -q "$S" && umount "$S"
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP
mkdir -m 700 "$S"
# 5 MiB: four results of 1 MiB are accepted (submit counts the space of
# the jobs accepted before, tests/storage/release.sh); then a 2 MiB file
# leaves room for only two of them.
mount -t tmpfs -o size=5M,mode=0700 tmpfs "$S" 2>"$T/err" || { echo "cannot mount a tmpfs: $(cat "$T/err")"; exit 77; }

"$P" run --name "$name" --state-dir "$S" --gpus 1 --workers-per-gpu 1 --synth 1 --backend cpu \
  >"$T/sup.log" 2>&1 &
sup=$!
for _ in $(seq 100); do "$P" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
"$P" ping --name "$name" >/dev/null || { cat "$T/sup.log"; exit 1; }

# No synthesis until all four are accepted: together they fit the free
# space, so submit takes them all; their files are allocated at their
# turn, in order, after the filler has taken 2 MiB.
"$P" worker disable synth.0 --name "$name" >/dev/null || fail "disable synth.0"
ids=()
for i in 1 2 3 4; do
  out=$("$P" submit --name "$name" --kind porep --log-size 14 --partitions 2 --seed "0$i") ||
    fail "submit $i: $out"
  ids+=("$(echo "$out" | awk '{print $1}')")
done
# One that cannot fit even alone (2^16 x 8 = 16 MiB): refused, one line.
if "$P" submit --name "$name" --kind porep --log-size 16 --partitions 8 >"$T/out" 2>"$T/err"; then
  fail "a job bigger than the free space was accepted: $(cat "$T/out")"
elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q "no space for the result: it needs 16.0 MiB and $S has [0-9.]* MiB free, 4.0 MiB of it for 4 accepted jobs" "$T/err"; then
  fail "refusal is not one clear line:"; cat "$T/err"
else
  echo "info: refused: $(cat "$T/err")"
fi
head -c $((2 << 20)) /dev/zero >"$S/filler" || fail "the 2 MiB filler"
"$P" worker enable synth.0 --name "$name" >/dev/null || fail "enable synth.0"

# Jobs 3 and 4 block; 1 and 2 complete.
blocked=0
for _ in $(seq 300); do
  "$P" status --name "$name" >"$T/status" 2>&1
  blocked=$(grep -c "^job [0-9]* porep blocked" "$T/status")
  done_n=$(grep -c "^job [0-9]* porep done" "$T/status")
  [ "$blocked" -eq 2 ] && [ "$done_n" -eq 2 ] && break
  sleep 0.1
done
[ "$blocked" -eq 2 ] || { fail "expected 2 blocked jobs:"; cat "$T/status"; }
grep -q "blocked: .*reason: no space on $S, need 1.0 MiB (allocating the result file) \[no-space\]" "$T/status" ||
  { fail "no reason in the status:"; grep "^job" "$T/status"; }
grep -q "job [0-9]* blocked: no space on $S, need 1.0 MiB (allocating the result file)" "$T/sup.log" ||
  fail "no log line for the block"
grep -q "^job .* failed" "$T/status" && { fail "a job failed:"; grep "^job" "$T/status"; }
grep -q "^jobs: .* 2 blocked, 2 done, 0 failed" "$T/status" || { fail "totals:"; grep "^jobs:" "$T/status"; }
"$P" status --name "$name" --prometheus | grep -qx 'provisor_jobs{state="blocked"} 2' ||
  fail "the metrics do not count 2 blocked jobs"
"$P" status --name "$name" --json | grep -q '"reason_code": *"no-space"' ||
  fail "status --json has no reason_code no-space"

# More space: they go on by themselves.
mount -o remount,size=16M "$S" || fail "remount"
for _ in $(seq 300); do
  "$P" status --name "$name" >"$T/status" 2>&1
  [ "$(grep -c "^job [0-9]* porep done" "$T/status")" -eq 4 ] && break
  sleep 0.1
done
[ "$(grep -c "^job [0-9]* porep done" "$T/status")" -eq 4 ] || { fail "not all 4 done:"; grep "^job" "$T/status"; }
grep -q "goes on" "$T/sup.log" || fail "no log line for the unblock"
for id in "${ids[@]}"; do
  "$P" verify "$S/results/job-$id.result" >"$T/v" 2>&1 || { fail "job $id does not verify:"; cat "$T/v"; }
done
grep -q "^jobs: .* 0 failed, 0 cancelled; partitions: [0-9]* done, 0 failed" "$T/status" ||
  { fail "failures counted:"; grep "^jobs:" "$T/status"; }

"$P" stop --name "$name" >/dev/null || fail "stop"
wait "$sup" || fail "supervisor exited $?"
sup=
rm -f "$S/filler"
[ -z "$(ls -A "$S/jobs" 2>/dev/null)" ] || fail "left in jobs/: $(ls -A "$S/jobs")"
[ "$fails" -eq 0 ] || { echo "--- supervisor log"; cat "$T/sup.log"; echo "$fails failure(s)"; exit 1; }
echo ok
