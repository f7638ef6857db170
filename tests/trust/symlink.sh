#!/usr/bin/env bash
# Proves that the supervisor, run as root, follows no symbolic link that
# someone planted inside its state directory (docs/security.md, "Files on
# disk"):
#   1. journal.tmp -> victim: the supervisor starts, the victim is unchanged
#      byte for byte, and journal is a regular file, not a link to it;
#   2. jobs/1/result.partial (the job's result being built), and
#      results/job-1.result.tmp -> victim, jobs/2 -> a
#      directory elsewhere, results/job-2.result -> victim: two k=10 jobs
#      finish, the victim and the other directory are untouched, both
#      results are regular files that `provisor verify` accepts;
#   3. journal -> victim: the start is refused with one line naming
#      STATE/journal as a symbolic link, the victim is unchanged, and no
#      status segment or control socket is left;
#   4. results -> another directory, and jobs -> another directory: each
#      start is refused with one line, and nothing is written there.
# Every check fails against a supervisor that follows the link (checked
# once by hand against the code before this test). Everything it makes is
# removed, and every supervisor it starts stopped, also on failure.
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null)
[ -x "$prov" ] || { echo "no $bin/provisor: build it first"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root: the attack is on a root-run supervisor"; exit 77; }
name=t-trust-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-trust.XXXXXX")
chmod 0700 "$dir"
sup=
fails=0
cleanup() {
  if [ -n "$sup" ]; then
    "$prov" stop --name "$name" >/dev/null 2>&1 || kill -TERM "$sup" 2>/dev/null
    wait "$sup" 2>/dev/null
  fi
  rm -f "/dev/shm/provisor.$name"
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

victim=$dir/victim
printf 'victim: root-owned, must never change\n%.0s' $(seq 20) >"$victim"
cp "$victim" "$dir/victim.orig"
mkdir "$dir/elsewhere"
victim_ok() { cmp -s "$victim" "$dir/victim.orig" || fail "$1: the victim changed"; }
elsewhere_ok() {
  [ -z "$(ls -A "$dir/elsewhere")" ] || fail "$1: written into the linked-to directory: $(ls -A "$dir/elsewhere")"
}

# start STATE: a supervisor on STATE, waited for until it answers.
start() {
  "$prov" run --name "$name" --state-dir "$1" --gpus 1 --synth 1 --backend cpu 2>"$dir/sup.log" &
  sup=$!
  for _ in $(seq 200); do
    "$prov" ping --name "$name" >/dev/null 2>&1 && return 0
    kill -0 "$sup" 2>/dev/null || break
    sleep 0.1
  done
  fail "supervisor on $1 did not start: $(cat "$dir/sup.log")"
  return 1
}
stop() {
  "$prov" stop --name "$name" >/dev/null 2>&1
  wait "$sup"
  local rc=$?
  sup=
  [ "$rc" -eq 0 ] || fail "supervisor exit $rc: $(cat "$dir/sup.log")"
}
# refused STATE PATTERN: the start fails with one line matching PATTERN
# and leaves no segment or socket.
refused() {
  timeout 20 "$prov" run --name "$name" --state-dir "$1" --gpus 1 --synth 1 --backend cpu \
    >"$dir/out" 2>"$dir/err"
  local rc=$?
  [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$1: start not refused (exit $rc): $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$1: not one error line: $(cat "$dir/err")"
  grep -q -- "$2" "$dir/err" || fail "$1: '$(cat "$dir/err")' lacks '$2'"
  [ ! -e "/dev/shm/provisor.$name" ] || { fail "$1: status segment left"; rm -f "/dev/shm/provisor.$name"; }
  [ ! -e "$1/control.sock" ] || fail "$1: control socket left"
}

# 1. journal.tmp planted.
st=$dir/s1
mkdir -p "$st/jobs/1" "$st/results"
ln -s "$victim" "$st/journal.tmp"
# 2's links, in place before the start as an attacker would leave them.
ln -s "$victim" "$st/jobs/1/result.partial"
ln -s "$victim" "$st/results/job-1.result.tmp"
ln -s "$dir/elsewhere" "$st/jobs/2"
ln -s "$victim" "$st/results/job-2.result"
if start "$st"; then
  victim_ok "journal.tmp"
  [ -f "$st/journal" ] && [ ! -L "$st/journal" ] || fail "journal is not a regular file: $(ls -l "$st")"
  [ ! -L "$st/journal.tmp" ] || fail "journal.tmp is still the planted link"

  # 2. the job files.
  for id in 1 2; do
    out=$("$prov" submit --name "$name" --kind winning-post --log-size 10 --wait 2>&1) ||
      fail "job $id: $out"
    grep -q "^job $id done" <<<"$out" || fail "job $id: expected 'job $id done', got: $out"
  done
  victim_ok "jobs/1/result.partial, results/job-1.result.tmp, results/job-2.result"
  elsewhere_ok "jobs/2"
  for id in 1 2; do
    f=$st/results/job-$id.result
    [ -f "$f" ] && [ ! -L "$f" ] || fail "$f is not a regular file: $(ls -l "$st/results")"
    "$prov" verify "$f" >/dev/null 2>&1 || fail "$f does not verify"
  done
  stop
  victim_ok "after stop"
fi

# 3. journal planted (the victim afresh: each case fails on its own).
cp "$dir/victim.orig" "$victim"
st=$dir/s3
mkdir "$st"
ln -s "$victim" "$st/journal"
refused "$st" "$st/journal is a symbolic link, not a regular file; remove it"
victim_ok "journal"
[ -L "$st/journal" ] || fail "the planted journal link was replaced"

# 4. results and jobs planted as links to another directory.
st=$dir/s4
mkdir "$st"
ln -s "$dir/elsewhere" "$st/results"
refused "$st" "$st/results is a symbolic link, not a directory; remove it"
elsewhere_ok "results"
st=$dir/s5
mkdir "$st"
ln -s "$dir/elsewhere" "$st/jobs"
refused "$st" "$st/jobs is a symbolic link, not a directory; remove it"
elsewhere_ok "jobs"

[ "$fails" -eq 0 ] || exit 1
echo "ok"
