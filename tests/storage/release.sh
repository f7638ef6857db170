#!/bin/bash
# The space of accepted jobs (issue 21), on a 4 MiB tmpfs as the state
# directory, with results of 1 MiB (porep, 2^14 x 2):
# - submit counts what the jobs accepted before it will still allocate:
#   with synthesis off, three are accepted and the fourth is refused with
#   one line naming them (before, each was checked alone against the free
#   space, and all four were taken: a queue that can never all be stored);
# - a cancelled job with no partition done gives its preallocated result
#   file back at once (before, it was kept for a retry until its table
#   entry was reused or the supervisor restarted): with the GPU worker off,
#   a job's file is allocated, the job is cancelled, and the file and its
#   space are gone without a restart; a job submitted then fits.
# Needs root (mount); skips with 77 otherwise.
set -u
bin=${BIN:-bin}
P=$(cd "$(dirname "$bin/provisor")" && pwd)/provisor
[ -x "$P" ] || { echo "no $bin/provisor: build it first"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root (to mount a tmpfs)"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-release.XXXXXX") || exit 1
S=$T/state
name=release$$
sup=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cleanup() {
  [ -n "$sup" ] && kill -KILL "$sup" 2>/dev/null && wait "$sup" 2>/dev/null
  for _ in $(seq 50); do	# io_uring lets go of the mount a moment after exit
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
mount -t tmpfs -o size=4M,mode=0700 tmpfs "$S" 2>"$T/err" || { echo "cannot mount a tmpfs: $(cat "$T/err")"; exit 77; }
"$P" run --name "$name" --state-dir "$S" --gpus 1 --workers-per-gpu 1 --synth 1 --backend cpu \
  >"$T/sup.log" 2>&1 &
sup=$!
for _ in $(seq 100); do "$P" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
"$P" ping --name "$name" >/dev/null || { cat "$T/sup.log"; exit 1; }
sub() { "$P" submit --name "$name" --kind porep --log-size 14 --partitions 2 "$@"; }
used_kib() { df -k --output=used "$S" | tail -n 1 | tr -d ' '; }

# --- the queue's space ----------------------------------------------------
"$P" worker disable synth.0 --name "$name" >/dev/null || fail "disable synth.0"
ids=()
for i in 1 2 3; do
  out=$(sub --seed "0$i") || fail "submit $i: $out"
  ids+=("${out%% *}")
done
if sub --seed 04 >"$T/out" 2>"$T/err"; then
  fail "a fourth 1 MiB job was accepted with three waiting on a 4 MiB tmpfs: $(cat "$T/out")"
elif [ "$(wc -l <"$T/err")" -ne 1 ] ||
     ! grep -q "no space for the result: it needs 1.0 MiB and $S has [0-9.]* MiB free, 3.0 MiB of it for 3 accepted jobs whose results are not allocated yet" "$T/err"; then
  fail "the refusal is not one clear line:"; cat "$T/err"
else
  echo "info: refused: $(cat "$T/err")"
fi
for id in "${ids[@]:1}"; do "$P" cancel "$id" --name "$name" >/dev/null || fail "cancel $id"; done

# --- a cancel gives the file back ------------------------------------------
"$P" worker disable gpu.0 --name "$name" >/dev/null || fail "disable gpu.0"
"$P" worker enable synth.0 --name "$name" >/dev/null || fail "enable synth.0"
f=$S/jobs/${ids[0]}/result.partial
before=
for _ in $(seq 300); do	# allocated at its first partition's turn
  [ -f "$f" ] && [ "$(du -k "$f" | cut -f1)" -ge 1024 ] && before=$(used_kib) && break
  sleep 0.1
done
[ -n "$before" ] || { fail "job ${ids[0]}'s result file was never allocated"; ls -lR "$S/jobs"; }
"$P" cancel "${ids[0]}" --name "$name" >/dev/null || fail "cancel ${ids[0]}"
for _ in $(seq 100); do [ -e "$f" ] || break; sleep 0.1; done
after=$(used_kib)
[ -e "$f" ] && fail "job ${ids[0]} was cancelled with nothing done and its result file is still there"
[ "$after" -le $((before - 1024)) ] || fail "used ${before} KiB before the cancel, ${after} KiB after: not 1 MiB less"
echo "info: used ${before} KiB with the file allocated, ${after} KiB after the cancel"
grep -q "control: uid 0 pid [0-9]*: cancel ${ids[0]}: ok" "$S/log" || fail "the cancel is not in the log with uid and pid"

"$P" stop --name "$name" >/dev/null || fail "stop"
wait "$sup" || fail "supervisor exited $?"
sup=
[ "$fails" -eq 0 ] || { echo "--- supervisor log"; cat "$T/sup.log"; echo "$fails failure(s)"; exit 1; }
echo ok
