#!/usr/bin/env bash
# Runs each test given on the command line under its own timeout.
# A test passes with exit 0, fails with anything else, and skips with 77
# (its last output line says why). Timeouts come from tests/timeouts
# ("name seconds"), default 120 s. A test that passes but leaves a status
# segment or a provisor temp file behind fails. Ends with "N passed, N
# failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0 failed=() skipped=()
log=$(mktemp "${TMPDIR:-/tmp}/provisor-test.XXXXXX")
trap 'rm -f "$log"' EXIT

# What a test may not leave behind: status segments (root's live in
# /run/provisor; /dev/shm/provisor.* is where they used to be), and provisor's temp
# files and directories. (Run one suite at a time: a second one's files
# would be counted against this one.)
leftovers() {
  ls -d /run/provisor/*.status /dev/shm/provisor.* "${TMPDIR:-/tmp}"/provisor-* 2>/dev/null | grep -vxF "$log" | sort
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
  before=$(leftovers)
  start=$(date +%s.%N)
  timeout -k 5 "$limit" "$t" >"$log" 2>&1
  rc=$?
  left=$(comm -13 <(echo "$before") <(leftovers) | grep . | tr '\n' ' ')
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
