#!/usr/bin/env bash
# The database stopped for 10 s in the middle of a run of three nodes and
# 60 small jobs:
#   - each node says the database is unreachable, goes on with the jobs
#     it holds, keeps their results (its claim journal), and reports them
#     once the database is back; the nodes reconnect by themselves;
#   - nothing is lost or done twice: 60 done, 60 results, each by the
#     lease that holds the job, no two leases of a job overlapping;
#   - a job submitted to a node's control socket meanwhile is done: local
#     work never waits for the database;
#   - nothing the fleet does waits on the loop: no step of the fleet on
#     any node's loop (a completion of its socket's poll, of its files, of
#     its timer, a job's end) ever gave the CPU up (a voluntary context
#     switch), nor did any libpq call, and the longest fleet step that ran
#     undisturbed (no context switch at all) took under 10 ms (times
#     $PROVISOR_TEST_SLOW): each node's own figures, logged at its stop
#     (under TSan the waits are printed, not failed: its runtime's locks);
#   - each node's loop: no iteration took 10 ms (times
#     $PROVISOR_TEST_SLOW) of the loop thread's CPU time, with the
#     database up, gone and back (the node's own figure, logged at its
#     stop); its longest iteration in wall time (status --json) is printed.
#     It is wall time, so on a machine that runs more than it has cores an
#     iteration descheduled in the middle counts what the machine did
#     meanwhile: with three nodes, their workers and PostgreSQL on two
#     cores it is 2 to 15 ms here, and the figures above say whether any of
#     it was the fleet waiting (never) or working (about 1 ms at most).
# alone (tests/timeouts): it measures the loop; beside other tests every
# iteration would be descheduled more.
. "$(dirname "$0")/lib.sh"

pg_start
"$prov" fleet init "$DSN" >/dev/null || fail "fleet init"
# Jobs of four partitions at k = 5: enough work that the nodes still hold
# some when the database goes.
sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed)
     SELECT (ARRAY['winning-post', 'window-post', 'snap-deals', 'porep'])[i % 4 + 1], 5, 4,
            decode(lpad(to_hex(i), 4, '0'), 'hex') FROM generate_series(1, 60) AS i" >/dev/null
conf=$(fleet_conf outage "heartbeat = 200ms" "lease = 800ms" "claim_interval = 100ms" "max_jobs = 2")
# The nodes run at a raised priority (as root), as a rig's supervisor
# would: an iteration is wall time, and one descheduled for a build on the
# same cores would count against the loop.
[ "$(id -u)" = 0 ] && node_nice=${NODE_NICE--10}
for n in fo1 fo2 fo3; do node_start "$n-$$" --config "$conf"; done

some_done() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")" -ge 12 ]; }
wait_for 60 some_done || fail "12 jobs were never done"
pg_restart_after 10
t0=$(date +%s.%N)

# Meanwhile: every node notices, and local work goes on.
noticed() { grep -q "fleet: database unreachable" "$T/$1.log"; }
for n in fo1 fo2 fo3; do wait_for 5 noticed "$n-$$" || fail "$n did not notice the database gone"; done
"$prov" submit --name "fo1-$$" --kind winning-post --log-size 3 --wait >"$T/local" 2>&1 ||
  fail "a local submit during the outage: $(cat "$T/local")"
pg_wait_restarted
echo "info: database back after $(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"

back() { grep -q "fleet: database reachable again" "$T/$1.log"; }
for n in fo1 fo2 fo3; do wait_for 10 back "$n-$$" || fail "$n did not reconnect"; done
all_done() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")" = 60 ]; }
wait_for 90 all_done || fail "not every job done: $(sql "SELECT state, count(*) FROM provisor_jobs GROUP BY state")"
check_exactly_once 60
check_results_verify

limit=$((10 * slow))
waits_count=true
case $bin in *tsan*) waits_count=false;; esac
for n in fo1 fo2 fo3; do
  read -r ms what < <(loop_max "$n-$$")
  echo "info: $n: loop max $ms ms ($what)"
  [ -n "$ms" ] || fail "$n: no loop figures in status --json"
done
for n in fo1 fo2 fo3; do node_stop "$n-$$"; done
for n in fo1 fo2 fo3; do
  pq=$(grep -h "fleet: .* libpq calls" "$T/$n-$$.log")
  steps=$(grep -h "fleet: .* steps on the loop" "$T/$n-$$.log")
  echo "info: $n: ${pq#*fleet: }; ${steps#*fleet: }"
  # Under TSan every allocation takes the runtime's own locks, which its
  # background thread contends: a wait there is the runtime's, so it is
  # printed, not failed (the plain and ASan stages hold the claim).
  case $pq in *", 0 waited"*) ;; *) $waits_count && fail "$n: a libpq call waited: $pq";; esac
  case $steps in *"; 0 waited,"*) ;; *) $waits_count && fail "$n: a fleet step waited: $steps";; esac
  # The loop as a whole: the most CPU time one iteration took (its own
  # work, whatever the machine did meanwhile) under 10 ms.
  lp=$(grep -h "loop: .* iterations" "$T/$n-$$.log")
  echo "info: $n: ${lp#*provisor*: }"
  cpu=$(echo "$lp" | sed -n 's/.*the most CPU time one took \([0-9.]*\) ms.*/\1/p')
  awk -v m="$cpu" -v l="$limit" 'BEGIN { exit !(m != "" && m < l) }' ||
    fail "$n: an iteration of the loop took ${cpu:-?} ms of CPU, over $limit ms: $lp"
  calm=$(echo "$steps" | sed -n 's/.*not descheduled \([0-9.]*\) ms.*/\1/p')
  awk -v m="$calm" -v l="$limit" 'BEGIN { exit !(m != "" && m < l) }' ||
    fail "$n: a fleet step took ${calm:-?} ms on the CPU, over $limit ms"
done
grep -h "fleet: .* statements" "$T"/fo*.log | sed 's/^/info: /'
finish
