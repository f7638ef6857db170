#!/usr/bin/env bash
# The journal compacts while the supervisor runs (supervisor/jobs_journal.c),
# not only at start: with the threshold lowered to 1 KiB (the test hook
# PROVISOR_JOURNAL_COMPACT; the default is 1 MiB), 40 submit/cancel pairs
# (40 SUBMITs of 88 bytes and 40 ENDs of 28: 4.6 KB without compaction,
# which is what the file held before) leave it under 1 KiB + the records
# since the last compaction, compacted at least 3 times. A job
# cancelled before the churn, whose records were compacted away, is
# retried: its SUBMIT is journaled again, so after a restart it is resumed
# and done, not lost. A job queued all along survives every compaction.
set -u
bin=${BIN:-bin}
P=$(cd "$(dirname "$bin/provisor")" 2>/dev/null && pwd)/provisor
[ -x "$P" ] || { echo "no $bin/provisor: build it first"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-churn.XXXXXX") || exit 1
S=$T/state name=churn$$ sup=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cleanup() {
  [ -n "$sup" ] && kill -KILL "$sup" 2>/dev/null && wait "$sup" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP
start() {
  PROVISOR_JOURNAL_COMPACT=1024 "$P" run --name "$name" --state-dir "$S" --gpus 1 --workers-per-gpu 1 \
    --synth 1 --backend cpu >>"$T/sup.log" 2>&1 &
  sup=$!
  for _ in $(seq 100); do "$P" ping --name "$name" >/dev/null 2>&1 && return; sleep 0.1; done
  cat "$T/sup.log"; exit 1
}
sub() { "$P" submit --name "$name" --kind winning-post --log-size 8 | cut -d' ' -f1; }
start
"$P" worker disable gpu.0 --name "$name" >/dev/null || fail "disable gpu.0"
"$P" worker disable synth.0 --name "$name" >/dev/null || fail "disable synth.0"
queued=$(sub) && retried=$(sub) || fail "the first submits"
"$P" cancel "$retried" --name "$name" >/dev/null || fail "cancel $retried"
for i in $(seq 40); do
  id=$(sub) || { fail "submit $i"; break; }
  "$P" cancel "$id" --name "$name" >/dev/null || { fail "cancel $id"; break; }
done
size=$(stat -c %s "$S/journal")
n=$(grep -c "journal compacted: [0-9]* -> [0-9]* bytes" "$S/log")
echo "info: after 40 submit/cancel pairs the journal is $size bytes; compacted $n times"
[ "$n" -ge 3 ] || fail "compacted $n times during the churn"
[ "$size" -lt $((1024 + 4 * 116)) ] || fail "the journal is $size bytes after the churn"
"$P" retry "$retried" --name "$name" >/dev/null || fail "retry $retried"
"$P" stop --name "$name" >/dev/null || fail "stop"
wait "$sup" || fail "the supervisor exited $?"
sup=
start	# workers enabled again: both jobs run
grep -q "job $retried resumed from the journal" "$S/log" || fail "job $retried (retried after its records were compacted away) was not resumed"
grep -q "job $queued resumed from the journal" "$S/log" || fail "job $queued (queued all along) was not resumed"
for _ in $(seq 300); do
  "$P" status --name "$name" >"$T/st" 2>&1
  [ "$(grep -cE "^job ($queued|$retried) winning-post done" "$T/st")" = 2 ] && break
  sleep 0.1
done
[ "$(grep -cE "^job ($queued|$retried) winning-post done" "$T/st")" = 2 ] || { fail "not both done:"; grep "^job" "$T/st"; }
"$P" stop --name "$name" >/dev/null || fail "stop"
wait "$sup" || fail "the supervisor exited $?"
sup=
[ "$fails" -eq 0 ] || { echo "--- log"; tail -n 30 "$S/log"; echo "$fails failure(s)"; exit 1; }
echo ok
