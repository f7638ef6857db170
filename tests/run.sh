#!/usr/bin/env bash
# Runs each test given on the command line under its own timeout.
# A test passes with exit 0, fails with anything else, and skips with 77
# (its last output line says why). Timeouts come from tests/timeouts
# ("name seconds"), default 120 s. A test that passes but leaves a status
# segment or a provisor temp file of its own behind fails. Ends with
# "N passed, N failed".
#
# What is a test's own: every test runs with TMPDIR set to a fresh
# directory of its own (mktemp -d /tmp/pvt.XXXXXX, made 0711; short, because a
# supervisor's state directory path is at most 90 bytes, and under the
# sticky /tmp, because a state directory and every directory above it must
# be the supervisor user's and not writable by others unless sticky;
# 0711 so that a test's client running as another uid can reach a socket
# in it); whatever is left in it is the test's, and it is removed
# afterwards. Status segments and provisor-* files outside it are the
# test's only when they appeared while it ran and their names contain its
# pid as a whole number (tests put getpid() or $$ in their instance and
# file names), so a supervisor or a test that someone else runs on the
# same machine meanwhile is not blamed on this one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0 failed=() skipped=()
run=$(mktemp -d "${TMPDIR:-/tmp}/pvr.XXXXXX")
log=$run/log pidfile=$run/pid tdir=
trap 'rm -rf "$run" ${tdir:+"$tdir"}' EXIT

# Status segments (root's in /run/provisor, another user's in
# $XDG_RUNTIME_DIR/provisor or /dev/shm/provisor-UID, see shm_base_dir in
# shm/seg.c; /dev/shm/provisor.* is where they used to be) and provisor's
# temp files where a test that ignores TMPDIR would put them.
segments_and_temps() {
  ls -d /run/provisor/*.status ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR"/provisor/*.status} \
    /dev/shm/provisor-"$(id -u)"/*.status /dev/shm/provisor.* \
    /tmp/provisor-* ${TMPDIR:+"$TMPDIR"/provisor-*} 2>/dev/null | sort -u
}

# Those of $1 (a list) whose base name holds the pid $2 as a whole number.
naming_pid() {
  local p
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    [[ "/${p##*/}/" =~ [^0-9]$2[^0-9] ]] && echo "$p"
  done <<<"$1"
}

limit_for() {
  local name=$1 n
  n=$(awk -v t="$name" '$1 == t { print $2 }' "$here/timeouts" 2>/dev/null)
  echo "${n:-120}"
}

for t in "$@"; do
  name=${t#"${BIN:-bin}"/tests/}
  name=${name#tests/}
  limit=$(limit_for "$name")
  before=$(segments_and_temps)
  tdir=$(mktemp -d /tmp/pvt.XXXXXX)
  chmod 0711 "$tdir"
  : >"$pidfile"
  start=$(date +%s.%N)
  # The wrapper writes its pid and execs the test, so the pid is the test's.
  TMPDIR=$tdir timeout -k 5 "$limit" sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$t" >"$log" 2>&1
  rc=$?
  pid=$(cat "$pidfile")
  left=
  [ -n "$pid" ] && left=$(naming_pid "$(comm -13 <(echo "$before") <(segments_and_temps))" "$pid")
  left=$(printf '%s\n' "$left" $(find "$tdir" -mindepth 1 -maxdepth 1 | sort) | grep . | tr '\n' ' ')
  rm -rf "$tdir"; tdir=
  if [ "$rc" -eq 0 ] && [ -n "$left" ]; then
    echo "check failed: left behind: $left" >>"$log"
    rc=1
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  case $rc in
    0)  pass=$((pass + 1)); printf 'PASS  %-36s %6ss\n' "$name" "$secs"
        grep -E '^(info|bench):' "$log" | sed 's/^/      /' ;;
    77) skip=$((skip + 1)); why=$(tail -n 1 "$log")
        skipped+=("$name: $why"); printf 'SKIP  %-36s %s\n' "$name" "$why" ;;
    124|137) fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-36s timed out after %ss\n' "$name" "$limit"; tail -n 20 "$log" | sed 's/^/      /' ;;
    *)  fail=$((fail + 1)); failed+=("$name")
        printf 'FAIL  %-36s exit %s after %ss\n' "$name" "$rc" "$secs"; tail -n 30 "$log" | sed 's/^/      /' ;;
  esac
done

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
