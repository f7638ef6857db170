#!/usr/bin/env bash
# What a newcomer tries (issue 14, part 6), against a real supervisor on
# the CPU backend:
#   - jobs [--state S] [--kind K] lists the job table, filtered;
#   - result JOB prints a done job's result path (the file exists, and
#     status --json has the same path); a cancelled or unknown job: exit 1
#     and one line;
#   - a cancelled job is "cancelled" and counted apart: jobs_cancelled 1,
#     jobs_failed 0 (status, JSON, Prometheus), event job-cancelled;
#   - status: one line per job by default, every partition with --jobs,
#     one job with --job N; a done job's ETA is "-" (JSON null);
#   - submit --log-size above the supervisor's max_log_size: exit 2 with
#     the wording of one outside 3..27;
#   - drain with nothing queued keeps the supervisor up (draining, submit
#     refused); resume takes jobs again;
#   - STATE/log has the supervisor's lines, `provisor log` prints them and
#     `log -f` follows new ones;
#   - "backend cpu (asked for)" is logged once for two gpuworkers;
#   - every command's --help names each of its options, more than a line;
#   - --backend cuda on a machine without a CUDA device: state degraded,
#     with the reason, the slots disabled "no-device" (skipped where a
#     device exists).
# What the supervisor publishes at a tick is polled for, never slept on;
# the polls' bounds only stop a hang and grow with $slow.
set -u
bin=${BIN:-bin}
# How much slower than the plain build this one may run (tests/run.sh).
slow=${PROVISOR_TEST_SLOW:-1}
prov=$(realpath "$bin/provisor" 2>/dev/null)
[ -x "$prov" ] || { echo "no $bin/provisor: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-newcomer.XXXXXX")
name=t-newc-$$
spid= fpid=
fails=0
cleanup() {
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
  if [ -n "$spid" ]; then kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
P() { "$prov" "$@" --name "$name"; }
# poll SECONDS CMD...: until CMD succeeds, for up to SECONDS times $slow.
poll() {
  local n=$(( $1 * 10 * slow )); shift
  for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
  return 1
}
draining() { P status | grep -q "state draining (drained: taking no jobs until provisor resume)"; }
followed() { grep -q "resumed: taking jobs again" "$dir/follow"; }
# every GPU slot found without a device (one alone is a passing state: the
# other may still be starting, as under a sanitizer)
nodevice() { P status | grep -q "state degraded (no CUDA device: every GPU slot disabled)"; }

# expect RC PATTERN CMD...: exit RC, one stderr line matching PATTERN.
expect() {
  local want=$1 pat=$2; shift 2
  "$prov" "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "provisor $*: exit $rc, expected $want: $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "provisor $*: not one stderr line: $(cat "$dir/err")"
  grep -q -- "$pat" "$dir/err" || fail "provisor $*: '$(cat "$dir/err")' lacks '$pat'"
}

start_sup() {  # start_sup NAME ARGS...: the supervisor's stderr in $dir/NAME.err
  local n=$1; shift
  "$prov" run --name "$name" "$@" 2>"$dir/$n.err" &
  spid=$!
  for _ in $(seq $((100 * slow))); do "$prov" ping --name "$name" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "supervisor did not start"; cat "$dir/$n.err"; exit 1
}
stop_sup() {
  "$prov" stop --name "$name" >/dev/null
  wait "$spid"; spid=
}

# --help: each command's options, each one with its meaning
for c in run submit cancel drain resume stop worker ping status jobs result log top exporter \
         synth setup prove verify; do
  "$prov" "$c" --help >"$dir/help" 2>&1 || fail "$c --help: exit $?"
  [ "$(wc -l <"$dir/help")" -gt 2 ] || fail "$c --help is $(wc -l <"$dir/help") lines"
  for o in $(head -1 "$dir/help" | grep -o -- '--[a-z-]*' | sort -u); do
    grep -q -- "^ *\(-[a-z], \)\?$o" "$dir/help" || fail "$c --help does not explain $o"
  done
done
"$prov" --help | grep -q "provisor resume" || fail "provisor --help lacks resume"
"$prov" run --help | grep -q "XDG_STATE_HOME" || fail "run --help does not say where the state directory is"
"$prov" submit --help | grep -q "winning-post, window-post, snap-deals, porep" ||
  fail "submit --help does not list the kinds"

cat >"$dir/c.ini" <<EOF
[supervisor]
max_log_size = 12
[kind.winning-post]
log_size = 8
[kind.window-post]
log_size = 8
[kind.snap-deals]
log_size = 8
[kind.porep]
log_size = 10
EOF
state=$dir/state
start_sup sup --config "$dir/c.ini" --state-dir "$state" --backend cpu --gpus 1 --workers-per-gpu 2 --synth 1

# one range, one exit status for --log-size
expect 2 "provisor submit: --log-size '28' is not a number in 3..27" submit --name "$name" --kind porep --log-size 28
expect 2 "provisor submit: --log-size '13' is not a number in 3..12" submit --name "$name" --kind porep --log-size 13

id1=$(P submit --kind winning-post --wait | head -1) || fail "winning-post job did not finish"
id2=$(P submit --kind porep --partitions 40 --log-size 12) || fail "submit porep"
P cancel "$id2" >/dev/null || fail "cancel $id2"

# jobs and its filters
P jobs >"$dir/jobs" || fail "jobs: exit $?"
grep -q "^$id1 \+winning-post \+h \+done \+1/1 " "$dir/jobs" || fail "jobs lacks job $id1 done: $(cat "$dir/jobs")"
grep -q "^$id2 \+porep \+h \+cancelled " "$dir/jobs" || fail "jobs lacks job $id2 cancelled: $(cat "$dir/jobs")"
[ "$(P jobs --state done | tail -n +2 | awk '{print $1}')" = "$id1" ] || fail "jobs --state done"
[ "$(P jobs --kind porep | tail -n +2 | awk '{print $1}')" = "$id2" ] || fail "jobs --kind porep"
[ "$(P jobs --state running | wc -l)" -eq 1 ] || fail "jobs --state running shows a job"
expect 2 "--state 'finished' is not" jobs --name "$name" --state finished

# result
r=$(P result "$id1") || fail "result $id1: exit $?"
[ "$r" = "$state/results/job-$id1.result" ] && [ -f "$r" ] || fail "result $id1: '$r'"
P status --json >"$dir/json"
grep -q "\"result_path\": *\"$state/results/job-$id1.result\"" "$dir/json" || fail "status --json lacks the result path"
expect 1 "job $id2 is cancelled, not done" result --name "$name" "$id2"
expect 1 "no job 999" result --name "$name" 999
expect 2 "not a job id" result --name "$name" x

# cancelled: its own state, counter, event
grep -q '"jobs_cancelled": *1,' "$dir/json" && grep -q '"jobs_failed": *0,' "$dir/json" ||
  fail "JSON counters: $(grep jobs_ "$dir/json")"
grep -q '"type": *"job-cancelled"' "$dir/json" || fail "no job-cancelled event"
P status --prometheus >"$dir/prom"
grep -qx "provisor_jobs_cancelled_total 1" "$dir/prom" && grep -qx "provisor_jobs_failed_total 0" "$dir/prom" ||
  fail "Prometheus counters: $(grep 'jobs_.*_total' "$dir/prom")"
grep -qx 'provisor_supervisor_degraded{reason=""} 0' "$dir/prom" || fail "a healthy supervisor reads degraded"

# status: one line per job; --jobs every partition; --job N one job
P status >"$dir/st"
grep -q "1 done, 0 failed, 1 cancelled" "$dir/st" || fail "status header: $(sed -n 2p "$dir/st")"
grep -q "^  part " "$dir/st" && fail "status prints partitions by default"
grep -q "^job $id1 winning-post done: .*eta -" "$dir/st" || fail "a done job's ETA is not '-': $(grep "^job $id1" "$dir/st")"
[ "$(P status --jobs | grep -c '^  part ')" -eq 41 ] || fail "status --jobs: not 41 partition lines"
P status --job "$id2" >"$dir/st1"
[ "$(grep -c '^job ' "$dir/st1")" -eq 1 ] && [ "$(grep -c '^  part ' "$dir/st1")" -eq 40 ] ||
  fail "status --job $id2: $(grep -c '^  part ' "$dir/st1") partitions"
python3 - "$dir/json" "$id1" <<'EOF' || fail "JSON eta of a done job is not null"
import json, sys
d = json.load(open(sys.argv[1]))
j = [j for j in d["jobs"] if j["id"] == int(sys.argv[2])][0]
sys.exit(0 if j["eta_seconds"] is None and j["state"] == "done" else 1)
EOF

# drain on an empty queue: up, draining, refusing; resume
P drain >/dev/null || fail "drain"
poll 10 draining || fail "not draining: $(P status | head -1)"
P ping >/dev/null 2>&1 || fail "the supervisor is gone after a drain with nothing queued"
expect 1 "draining: not accepting jobs" submit --name "$name" --kind winning-post
"$prov" log --name "$name" -f >"$dir/follow" 2>&1 &
fpid=$!
sleep 0.5
P resume >/dev/null || fail "resume"
P submit --kind winning-post --wait >/dev/null || fail "no job taken after resume"
P status | grep -q "state running" || fail "not running after resume"
poll 10 followed || fail "log -f did not follow: $(cat "$dir/follow")"
kill "$fpid"; wait "$fpid" 2>/dev/null; fpid=

# the log file
grep -q "provisor\[$spid\]: instance '$name'" "$state/log" || fail "STATE/log lacks the start line"
P log | grep -q "drained: every accepted job has ended" || fail "provisor log lacks the drain"
[ "$(grep -c 'backend cpu (asked for)' "$dir/sup.err")" -eq 1 ] ||
  fail "backend line $(grep -c 'backend cpu (asked for)' "$dir/sup.err") times"
stop_sup
expect 1 "no log file" log --name "$name" --state-dir "$dir/none"
mkdir "$dir/esc" && printf 'a\033[2Jb\n' >"$dir/esc/log"
[ "$("$prov" log --state-dir "$dir/esc")" = 'a\x1b[2Jb' ] || fail "log lets an escape through: $("$prov" log --state-dir "$dir/esc" | od -c | head -2)"
P log --state-dir "$state" | grep -q "stopped$" || fail "log after the stop lacks 'stopped'"

# the log's cap and its one rotation (PROVISOR_LOG_MAX: a small cap)
PROVISOR_LOG_MAX=600 start_sup rot --config "$dir/c.ini" --state-dir "$dir/state3" --backend cpu --gpus 1 --synth 1
for _ in 1 2 3 4 5 6; do P drain >/dev/null; P resume >/dev/null; done
stop_sup
s0=$(stat -c %s "$dir/state3/log") s1=$(stat -c %s "$dir/state3/log.1" 2>/dev/null || echo 0)
[ "$s1" -gt 0 ] && [ "$s0" -le 600 ] && [ "$s1" -le 600 ] || fail "rotation: log $s0 bytes, log.1 $s1 bytes"
tail -1 "$dir/state3/log" | grep -q "stopped$" || fail "the rotated log does not end with 'stopped'"
[ "$(cat "$dir/state3/log.1" "$dir/state3/log" | grep -c "resumed: taking jobs again")" -ge 1 ] || fail "rotated lines lost"

# --backend cuda without a device: degraded, with the reason
if [ "$("$(dirname "$prov")/gpuworker" --count-devices | cut -d' ' -f1)" = 0 ]; then
  start_sup cuda --state-dir "$dir/state2" --backend cuda --gpus 1 --workers-per-gpu 2 --synth 1
  poll 10 nodevice
  P status >"$dir/st"
  grep -q "state degraded (no CUDA device: every GPU slot disabled)" "$dir/st" || fail "not degraded: $(head -1 "$dir/st")"
  [ "$(grep -c '^gpu\.[01] .*(disabled: no device)$' "$dir/st")" -eq 2 ] || fail "slots not disabled no-device: $(cat "$dir/st")"
  P top --once --width 200 | grep -q "degraded: no CUDA device: every GPU slot disabled" || fail "top does not show degraded"
  P status --json | grep -q '"degraded_reason": *"no CUDA device: every GPU slot disabled"' || fail "JSON degraded_reason"
  P status --prometheus >"$dir/prom"
  grep -qx 'provisor_supervisor_degraded{reason="no CUDA device: every GPU slot disabled"} 1' "$dir/prom" ||
    fail "Prometheus degraded: $(grep degraded "$dir/prom")"
  grep -q 'provisor_worker_disabled{.*slot="gpu.0".*reason="no-device"} 1' "$dir/prom" ||
    fail "Prometheus disabled: $(grep disabled "$dir/prom")"
  stop_sup
else
  echo "info: a CUDA device is here: the degraded check is skipped"
fi

[ "$fails" -eq 0 ] || exit 1
echo "ok"
