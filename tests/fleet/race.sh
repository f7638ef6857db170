#!/usr/bin/env bash
# Nodes racing for the same jobs, and a node that reports too late:
#   - two nodes claim from one queue of 40 jobs as fast as they can (a
#     claim every 20 ms, 8 jobs at a time): both get work, every job is
#     done exactly once, and the database's history (provisor_leases)
#     shows no job ever held by two nodes at once;
#   - a third node reaches the database through a relay (fleet_proxy) that
#     the test freezes once the node holds two jobs: the node finishes
#     them, its leases expire meanwhile and the first node takes both and
#     completes them; when the relay thaws, the third node reports its
#     two results and the database refuses both (their leases' late_at
#     set), and nothing is counted twice;
#   - a job submitted --proofs goes only to a node whose kind has params
#     (node 3 has none, and is back): the database holds its proofs (each
#     partition's proof file), result --fleet --output makes them a proofs
#     file again, and it verifies; the same for a kind that keeps its H
#     (keep_h), whose proofs+H file stays on the node, where the database
#     says, and verifies there.
. "$(dirname "$0")/lib.sh"

pg_start
"$prov" fleet init "$DSN" >/dev/null || fail "fleet init"
conf=$(fleet_conf race "heartbeat = 200ms" "lease = 800ms" "claim_interval = 20ms" "max_jobs = 8")
node_start "fr1-$$" --config "$conf"
node_start "fr2-$$" --config "$conf"
both() { [ "$(sql "SELECT count(*) FROM provisor_nodes")" = 2 ]; }
wait_for 10 both || fail "the two nodes did not register"
# Both asking every 20 ms before the queue fills: they race from the start.
sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed)
     SELECT 'winning-post', 3, 1, decode(lpad(to_hex(i), 4, '0'), 'hex') FROM generate_series(1, 40) AS i" >/dev/null
done_n() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")" = "$1" ]; }
wait_for 60 done_n 40 || fail "the race did not end: $(sql "SELECT state, count(*) FROM provisor_jobs GROUP BY state")"
check_exactly_once 40
for n in fr1 fr2; do
  c=$(sql "SELECT count(*) FROM provisor_leases WHERE node LIKE '%.$n-$$'")
  echo "info: $n claimed $c of 40"
  [ "$c" -ge 1 ] || fail "$n claimed nothing: no race"
done

# The late reporter: node 3 behind the relay. Node 1 drains (claims
# nothing) until node 3 holds its two jobs; node 2 leaves.
node_stop "fr2-$$"
mkdir -m 755 "$T/relay"
"$bin/tests/fleet_proxy" "$T/relay/.s.PGSQL.5432" "$PGDIR/.s.PGSQL.5432" &
proxy=$!
t_pids+=("$proxy")
"$prov" drain --name "fr1-$$" >/dev/null || fail "drain fr1"
late=$(fleet_conf late "heartbeat = 200ms" "lease = 800ms" "claim_interval = 20ms" "max_jobs = 2")
sed -i "s|^dsn = .*|dsn = host=$T/relay dbname=postgres user=provisor|" "$late"
node_start "fr3-$$" --config "$late"
sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed)
     SELECT 'porep', 12, 12, decode(lpad(to_hex(i), 4, '0'), 'hex') FROM generate_series(101, 102) AS i" >/dev/null
# The relay frozen once node 3 holds both (freeze_held: a freeze timed
# on the database alone left the node with no job in a CI run). Twelve
# partitions a job, so that neither is done before the freeze.
held=$(freeze_held "fr3-$$" "$proxy")
[ "$held" = 2 ] || fail "fr3 never held both jobs (it holds $(node_json "fr3-$$" leases_held), the database says $held)"
"$prov" resume --name "fr1-$$" >/dev/null || fail "resume fr1"
wait_for 60 done_n 42 || fail "fr1 did not take over fr3's jobs: $(sql "SELECT id, state, owner FROM provisor_jobs WHERE id > 40")"
ended_here() { [ "$("$prov" jobs --name "fr3-$$" --state done 2>/dev/null | grep -c .)" -ge 2 ]; }
wait_for 60 ended_here || fail "fr3 did not finish its jobs while cut off"
kill -CONT "$proxy"
refused() { [ "$(grep -c "refused by the database" "$T/fr3-$$.log")" -ge 2 ]; }
wait_for 30 refused || fail "fr3 did not report late, or was not refused: $(grep fleet "$T/fr3-$$.log" | tail -n 5)"
check_exactly_once 42
n=$(sql "SELECT count(*) FROM provisor_leases WHERE node LIKE '%.fr3-$$' AND outcome = 'expired' AND late_at IS NOT NULL")
[ "$n" = 2 ] || fail "$n of fr3's leases show the late report, expected 2: $(sql "SELECT * FROM provisor_leases WHERE node LIKE '%.fr3-$$'")"
n=$(sql "SELECT count(*) FROM provisor_results WHERE node LIKE '%.fr3-$$'")
[ "$n" = 0 ] || fail "fr3's late results were counted ($n)"
grep "refused by the database" "$T/fr3-$$.log" | sed 's/^/info: /'

# A kind with params ends in proofs, which the database stores whole:
# fetched with result --fleet --output, they verify.
"$prov" setup --seed 01 --log-size 5 -o "$T/k5.params" >/dev/null || fail "setup"
pconf=$(fleet_conf proofs "heartbeat = 200ms" "claim_interval = 20ms")
printf '[kind.winning-post]\nlog_size = 5\nparams = %s\n' "$T/k5.params" >>"$pconf"
printf '[kind.window-post]\nlog_size = 5\nparams = %s\nkeep_h = yes\n' "$T/k5.params" >>"$pconf"
node_start "fr4-$$" --config "$pconf"
for kind in winning-post window-post; do	# proofs; proofs with their H kept on the node
  "$prov" submit --fleet "$DSN" --kind $kind --log-size 5 --partitions 2 --proofs --wait >"$T/sub" 2>&1 ||
    fail "$kind proofs job: $(cat "$T/sub")"
  id=$(head -n 1 "$T/sub")
  "$prov" result --fleet "$DSN" "$id" --output "$T/$kind.proofs" >/dev/null || fail "result --fleet --output $id"
  "$prov" verify --params "$T/k5.params" "$T/$kind.proofs" >"$T/v" 2>&1 ||
    fail "$kind: the proofs from the database: $(cat "$T/v")"
  n=$(sql "SELECT length(proofs) FROM provisor_results WHERE job_id = $id")
  [ "$n" = 752 ] || fail "$kind: $n bytes of proofs in the database, expected 2 x 376"
  echo "info: $kind proofs job $id: $n bytes in the database, verified"
done
loc=$(sql "SELECT substr(location, strpos(location, ':') + 1) FROM provisor_results WHERE job_id = $id")
"$prov" verify --params "$T/k5.params" "$loc" >"$T/v" 2>&1 || fail "the proofs+H file on the node: $(cat "$T/v")"

node_stop "fr4-$$"
node_stop "fr3-$$"
node_stop "fr1-$$"
kill "$proxy"
wait "$proxy" || fail "fleet_proxy exited with $?"
t_pids=()
grep -h "fleet: .* statements" "$T"/fr*.log | sed 's/^/info: /'
finish
