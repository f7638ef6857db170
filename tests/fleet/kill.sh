#!/usr/bin/env bash
# Three nodes of a fleet on a real PostgreSQL, 60 small jobs (k = 3, one
# partition, no params: H output), and one node killed with SIGKILL in the
# middle of the run, holding jobs (its GPU worker hangs after three, so
# that it holds them at the kill whatever the machine's speed):
#   - every job is done exactly once: 60 done, 60 results, each stored by
#     the lease that holds the job, and no two leases of one job overlap
#     in time (the database's own history, provisor_leases);
#   - the dead node's leases expired and were taken by the others (its
#     jobs redone: execution at least once), and status --fleet calls it
#     dead, the others alive;
#   - every result verifies (provisor verify on the files the database
#     names, the dead node's among them);
#   - result --fleet prints a done job's node, digest and location, and
#     refuses an unknown one in one line;
#   - a node killed after it finished two jobs it could not report (its
#     relay to the database frozen), started again on its state
#     directory, reports both from its claim journal: done once, by it;
#   - each node's own view (its status segment's fleet block, read with
#     status --json and --prometheus) agrees with the database: the
#     victim's leases held before the kill; each survivor's completions
#     and claims at the end against its results and lease rows, nothing
#     held or unreported; the cut-off node unreachable, holding both
#     leases and both results unreported, and after its restart 2
#     completions; status --fleet --prometheus: 2 nodes alive, 1 dead,
#     60 done, no queue, each survivor's completions.
# Waits poll the database; their bounds only stop a hang.
. "$(dirname "$0")/lib.sh"

pg_start
"$prov" fleet init "$DSN" >/dev/null || fail "fleet init"
# The queue first, so that every node finds work: 4 jobs by submit
# --fleet, 56 by the plain SQL docs/fleet.md gives.
kinds=(winning-post window-post snap-deals porep)
for i in 1 2 3 4; do
  "$prov" submit --fleet "$DSN" --kind "${kinds[i % 4]}" --log-size 3 --partitions 1 --seed "$(printf '%04x' "$i")" \
    >/dev/null || fail "submit $i"
done
sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed, priority)
     SELECT (ARRAY['winning-post', 'window-post', 'snap-deals', 'porep'])[i % 4 + 1], 3, 1,
            decode(lpad(to_hex(i), 4, '0'), 'hex'), 2 FROM generate_series(5, 60) AS i" >/dev/null
conf=$(fleet_conf kill "heartbeat = 200ms" "lease = 800ms" "claim_interval = 100ms" "max_jobs = 2")
node_start "fk1-$$" --config "$conf"
# The victim's GPU worker proves three partitions, then hangs in every
# one (PROVISOR_FAULT): from then on it holds its jobs until it dies.
PROVISOR_FAULT=gpu:during:hang:inf@3 PROVISOR_FAULT_STATE=$T/fault.state node_start "fk2-$$" --config "$conf"
node_start "fk3-$$" --config "$conf"

# Kill the victim once it has done its three jobs and holds more.
victim=fk2-$$
worked() { [ "$(sql "SELECT count(*) FROM provisor_results WHERE node LIKE '%.$victim'")" -ge 3 ] &&
           [ -n "$(sql "SELECT 1 FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.$victim' LIMIT 1")" ]; }
wait_for 60 worked || fail "$victim did not do 3 jobs and hold more"
# Its own view (its segment's fleet block, --json and --prometheus)
# agrees with the database's at this quiet moment: the leases it holds.
holds_same() {
  local db
  db=$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.$victim'")
  [ "$db" -ge 1 ] && [ "$(node_json "$victim" leases_held)" = "$db" ] &&
    [ "$(node_prom "$victim" provisor_fleet_leases_held)" = "$db" ]
}
wait_for 10 holds_same || fail "$victim's leases_held ($(node_json "$victim" leases_held), prometheus" \
  "$(node_prom "$victim" provisor_fleet_leases_held)) is not what the database says it holds"
[ "$(node_json "$victim" database)" = connected ] && [ "$(node_json "$victim" registered)" = true ] &&
  [ "$(node_prom "$victim" 'provisor_fleet_database_state{state="connected"}')" = 1 ] ||
  fail "$victim: not connected and registered: $("$prov" status --name "$victim" | grep '^fleet:')"
held=$(sql "SELECT string_agg(id::text, ',') FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.$victim'")
node_kill "$victim"
echo "info: killed $victim holding job(s) $held"

done_n() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")" = "$1" ]; }
all_done() { done_n 60; }
wait_for 90 all_done || fail "not every job done: $(sql "SELECT state, count(*) FROM provisor_jobs GROUP BY state")"
check_exactly_once 60
n=$(sql "SELECT count(*) FROM provisor_leases WHERE node LIKE '%.$victim' AND outcome = 'expired'")
[ "$n" -ge 1 ] || fail "no lease of $victim expired and was taken over"
for id in ${held//,/ }; do
  by=$(sql "SELECT node FROM provisor_results WHERE job_id = $id")
  case $by in *".$victim") fail "job $id completed by the killed node";; esac
done
check_results_verify

# The fleet's view: the dead node dead, the others alive.
dead() { "$prov" status --fleet "$DSN" | grep -q "\.$victim  *dead"; }
wait_for 10 dead || fail "status --fleet does not call $victim dead: $("$prov" status --fleet "$DSN")"
"$prov" status --fleet "$DSN" --json | grep -q '"state":"alive"' || fail "status --fleet --json: no node alive"
"$prov" status --fleet "$DSN" | sed 's/^/info: /'

# Each survivor's own counts against the database's rows, now that all
# is done: a completion of its is a result of its; a claim, a lease row
# of its (unless a claim's answer was lost with a connection: then
# fewer); it holds nothing, and nothing waits to be reported. And the
# fleet's gauges (status --fleet --prometheus) say the same.
for n in fk1 fk3; do
  name=$(sql "SELECT name FROM provisor_nodes WHERE name LIKE '%.$n-$$'")
  results=$(sql "SELECT count(*) FROM provisor_results WHERE node = '$name'")
  leases=$(sql "SELECT count(*) FROM provisor_leases WHERE node = '$name'")
  quiet() { [ "$(node_json "$1" leases_held)" = 0 ] && [ "$(node_json "$1" results_unreported)" = 0 ]; }
  wait_for 10 quiet "$n-$$" || fail "$n holds leases or results at the end: $("$prov" status --name "$n-$$" | grep '^fleet:')"
  [ "$(node_json "$n-$$" completions)" = "$results" ] && [ "$(node_prom "$n-$$" provisor_fleet_completions_total)" = "$results" ] ||
    fail "$n: $(node_json "$n-$$" completions) completions, the database holds $results results of it"
  claimed=$(node_json "$n-$$" jobs_claimed)
  [ "$claimed" = "$leases" ] || { [ "$(node_json "$n-$$" reconnects)" != 0 ] && [ "$claimed" -le "$leases" ]; } ||
    fail "$n: $claimed jobs claimed, the database has $leases leases of it"
  [ "$(node_json "$n-$$" completions_refused)" = 0 ] || fail "$n: completions refused"
  [ "$(fleet_prom "provisor_fleet_node_jobs_completed{node=\"$name\"}")" = "$results" ] ||
    fail "status --fleet --prometheus: $name's jobs completed is not $results"
  [ "$(fleet_prom "provisor_fleet_node_state{node=\"$name\",state=\"alive\"}")" = 1 ] || fail "$name not alive in the gauges"
  echo "info: $n: $results completions, $claimed claims, as the database says"
done
[ "$(fleet_prom 'provisor_fleet_nodes{state="alive"}')" = 2 ] && [ "$(fleet_prom 'provisor_fleet_nodes{state="dead"}')" = 1 ] ||
  fail "status --fleet --prometheus: not 2 nodes alive and 1 dead"
"$prov" status --fleet "$DSN" --prometheus >"$T/fleet.prom" || fail "status --fleet --prometheus"
n=$(awk '$1 ~ /^provisor_fleet_jobs\{.*state="done"\}$/ { s += $2 } END { print s + 0 }' "$T/fleet.prom")
[ "$n" = 60 ] || fail "status --fleet --prometheus: $n jobs done, expected 60"
n=$(awk '$1 ~ /^provisor_fleet_queue_depth\{/ { s += $2; k++ } END { print s + 0, k + 0 }' "$T/fleet.prom")
[ "$n" = "0 4" ] || fail "status --fleet --prometheus: queue depth (sum, kinds) $n, expected 0 over 4 kinds"
grep -q '^# TYPE provisor_fleet_node_jobs_held gauge$' "$T/fleet.prom" || fail "no TYPE line"

id=$(sql "SELECT min(job_id) FROM provisor_results")
"$prov" result --fleet "$DSN" "$id" >"$T/result" || fail "result --fleet $id"
grep -q "^job $id done by .* (epoch [0-9]*): h" "$T/result" || fail "result --fleet: $(cat "$T/result")"
grep -q "^location .*:/.*/results/job-[0-9]*.result$" "$T/result" || fail "result --fleet: no location"
"$prov" result --fleet "$DSN" 99999 >"$T/out" 2>"$T/err" && fail "result --fleet of an unknown job: exit 0"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "no job 99999" "$T/err" || fail "result --fleet 99999: $(cat "$T/err")"

node_stop "fk1-$$"
node_stop "fk3-$$"

# A node killed after finishing two jobs it could not report (its relay
# to the database frozen) and started again on its state directory:
# its claim journal has them, their result files are there, its leases
# are still its own (5 s): it reports both, each done once, by it.
mkdir -m 755 "$T/relay"
"$bin/tests/fleet_proxy" "$T/relay/.s.PGSQL.5432" "$PGDIR/.s.PGSQL.5432" &
proxy=$!
t_pids+=("$proxy")
rconf=$(fleet_conf restart "heartbeat = 200ms" "lease = 5s" "claim_interval = 20ms" "max_jobs = 2")
sed -i "s|^dsn = .*|dsn = host=$T/relay dbname=postgres user=provisor|" "$rconf"
node_start "fk4-$$" --config "$rconf"
sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed)
     SELECT 'porep', 12, 12, decode(lpad(to_hex(i), 4, '0'), 'hex') FROM generate_series(201, 202) AS i" >/dev/null
# Frozen once the node holds both (freeze_held). Twelve partitions a
# job, so that neither is done before the freeze.
held=$(freeze_held "fk4-$$" "$proxy")
[ "$held" = 2 ] || fail "fk4 never held both jobs"
ended_here() { [ "$("$prov" jobs --name "fk4-$$" --state done 2>/dev/null | grep -c .)" -ge 2 ]; }
wait_for 60 ended_here || fail "fk4 did not finish its jobs while cut off"
# Its own view meanwhile: the database unreachable, both leases held,
# both results kept awaiting report.
cut_off() { [ "$(node_json "fk4-$$" database)" = unreachable ] && [ "$(node_json "fk4-$$" leases_held)" = 2 ] &&
            [ "$(node_json "fk4-$$" results_unreported)" = 2 ] &&
            [ "$(node_prom "fk4-$$" provisor_fleet_results_unreported)" = 2 ]; }
wait_for 10 cut_off || fail "fk4 cut off: $("$prov" status --name "fk4-$$" | grep '^fleet:')"
node_kill "fk4-$$"
kill -CONT "$proxy"
node_start "fk4-$$" --config "$rconf"
wait_for 30 done_n 62 || fail "fk4's jobs were not reported after its restart: $(sql "SELECT id, state, owner FROM provisor_jobs WHERE id > 60")"
check_exactly_once 62
n=$(sql "SELECT count(*) FROM provisor_results WHERE node LIKE '%.fk4-$$' AND epoch = 1")
[ "$n" = 2 ] || fail "$n of fk4's jobs completed by its first lease, expected 2"
reported() { [ "$(node_json "fk4-$$" completions)" = 2 ] && [ "$(node_json "fk4-$$" results_unreported)" = 0 ]; }
wait_for 10 reported || fail "fk4 after its restart: $("$prov" status --name "fk4-$$" | grep '^fleet:'), expected 2 completions"
node_stop "fk4-$$"
kill "$proxy"
wait "$proxy"
t_pids=()
grep -h "fleet: .* statements" "$T"/fk*.log | sed 's/^/info: /'
finish
