#!/usr/bin/env bash
# fuzz/run.sh TARGET...: run each bin-fuzz/fuzz_TARGET for FUZZ_SECONDS on
# a scratch copy of fuzz/corpus/TARGET (the committed corpus stays as it
# is), one process (-jobs is not used: the cores are shared). Prints each
# target's executions and coverage (cov, ft) from libFuzzer's final lines
# and fails when any target crashed; the crash input is left under
# $FUZZ_O/artifacts/TARGET/ with the log beside it.
set -u
secs=${FUZZ_SECONDS:-60} obj=${FUZZ_O:-build-fuzz} bin=${FUZZ_BIN:-bin-fuzz}
status=0 summary=()

for t in "$@"; do
  work=$obj/run/$t art=$obj/artifacts/$t
  rm -rf "$work" && mkdir -p "$work/corpus" "$art" || exit 1
  cp fuzz/corpus/"$t"/* "$work/corpus/" 2>/dev/null
  opts_var=FUZZ_OPTS_$t
  log=$art/fuzz.log
  echo "== fuzz_$t: ${secs}s"
  # shellcheck disable=SC2086 # the options are words
  "$bin/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -timeout=25 \
    -rss_limit_mb=2048 -artifact_prefix="$art/" ${!opts_var:-} "$work/corpus" >"$log" 2>&1
  rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
  [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  execs=$(awk -F': *' '/^stat::number_of_executed_units/ { print $2 }' "$log")
  [ -n "$execs" ] || execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$done_line")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$done_line")
  line=$(printf '%-14s execs %-10s cov %-6s ft %-6s corpus %s' "fuzz_$t" "${execs:-?}" \
         "${cov:-?}" "${ft:-?}" "${corp:-?}")
  if [ "$rc" -ne 0 ]; then
    status=1
    crash=$(ls "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-* 2>/dev/null | head -n 1)
    line="$line  CRASH (exit $rc): ${crash:-no input saved}, log $log"
    grep -E 'ERROR|invariant failed|SUMMARY' "$log" | head -n 5 | sed 's/^/      /'
  fi
  echo "$line"
  summary+=("$line")
done

echo "== fuzz summary (${secs}s each)"
printf '%s\n' "${summary[@]}"
exit "$status"
