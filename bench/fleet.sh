#!/usr/bin/env bash
# make bench: a fleet of nodes on one PostgreSQL queue (issue 23), on a
# server of the bench's own (tests/fleet/lib.sh: initdb as an unprivileged
# user, a unix socket, fsync off; skipped without the PostgreSQL binaries).
# Every node: 1 CPU GPU slot, 1 synth, max_jobs 2, the default heartbeat
# (2 s) and claim interval (500 ms). Jobs: k = 3, one partition, no params
# (H output): the supervisor's and the database's cost per job, not the
# prover's, is what is measured.
#   claims   FLEET_JOBS (1000) queued, 3 nodes: each claim's latency (the
#            statement's round trip as the node timed it; p50 and p99 of
#            each node), and the statements per job (every one a node
#            sent: beats, claims, completions; target <= 4)
#   speedup  FLEET_TPUT_JOBS (300) queued, done by 1 node, then by 3: jobs
#            per second from the first claim to the last completion (the
#            database's clock), and the ratio
#   death    3 nodes, heartbeat FLEET_HB (2s, the default; claim_interval
#            its default 500 ms); one holds two jobs (its GPU
#            worker hangs, PROVISOR_FAULT) and is killed with SIGKILL: the
#            time until both are claimed by the others (polled every 50 ms),
#            against 3 x the heartbeat
set -u
here=$(cd "$(dirname "$0")" && pwd)
# Without a server to run (tests/fleet/lib.sh exits 77 then): skipped.
if ! (. "$here/../tests/fleet/lib.sh") >/dev/null 2>&1; then
  echo "fleet: skipped: $(bash -c ". '$here/../tests/fleet/lib.sh'" 2>&1 | tail -n 1)"
  exit 0
fi
# shellcheck source=../tests/fleet/lib.sh
. "$here/../tests/fleet/lib.sh"
njobs=${FLEET_JOBS:-1000} ntput=${FLEET_TPUT_JOBS:-300} hb=${FLEET_HB:-2s}

queue() {	# queue N: N small jobs, seeds from 1
  sql "INSERT INTO provisor_jobs (kind, log_size, partitions, seed)
       SELECT 'winning-post', 3, 1, decode(lpad(to_hex(i), 8, '0'), 'hex') FROM generate_series(1, $1) AS i" >/dev/null
}
reset_db() { sql "TRUNCATE provisor_leases, provisor_results, provisor_jobs, provisor_nodes" >/dev/null; }
done_n() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")" -ge "$1" ]; }
# jobs/s from the first claim to the last completion
rate() {
  sql "SELECT round(count(*) / extract(epoch FROM max(r.completed_at) - min(l.claimed_at))::numeric, 1)
       FROM provisor_results r, (SELECT min(claimed_at) AS claimed_at FROM provisor_leases) l"
}
nodes() {	# nodes PREFIX N [CONF]: start N nodes
  local i
  for i in $(seq "$2"); do node_start "$1$i-$$" --config "${3:-$conf}"; done
}
stop_nodes() { local n; for n in "$@"; do node_stop "$n-$$"; done; }

pg_start
"$prov" fleet init "$DSN" >/dev/null || { echo "fleet: fleet init failed"; exit 1; }
conf=$(fleet_conf bench "max_jobs = 2")

# claims: latency and statements per job with 3 nodes and $njobs queued
queue "$njobs"
nodes bc 3
wait_for 600 done_n "$njobs" || echo "fleet: not all $njobs jobs done"
stop_nodes bc1 bc2 bc3
stmts=0
for i in 1 2 3; do
  line=$(grep -h "fleet: .* statements" "$T/bc$i-$$.log")
  echo "fleet: claims, node $i: $(echo "$line" | sed -n 's/.*claim latency \(.*\)/claim latency \1/p')"
  stmts=$((stmts + $(echo "$line" | sed -n 's/.*fleet: \([0-9]*\) statements.*/\1/p')))
  echo "$line" | sed -n 's/.*(\([0-9]* beats, [0-9]* claims, [0-9]* completions, [0-9]* releases\)).*/fleet: claims, node '"$i"': \1/p'
done
echo "fleet: claims: $njobs jobs, 3 nodes: $stmts statements, $(awk -v s="$stmts" -v n="$njobs" 'BEGIN { printf "%.2f", s / n }') per job (target <= 4); $(rate) jobs/s"

# speedup: the same work on 1 node, then on 3
reset_db
queue "$ntput"
nodes b1n 1
wait_for 600 done_n "$ntput" || echo "fleet: 1 node: not all $ntput jobs done"
one=$(rate)
stop_nodes b1n1
reset_db
queue "$ntput"
nodes b3n 3
wait_for 600 done_n "$ntput" || echo "fleet: 3 nodes: not all $ntput jobs done"
three=$(rate)
stop_nodes b3n1 b3n2 b3n3
echo "fleet: speedup: $ntput jobs: 1 node $one jobs/s, 3 nodes $three jobs/s, ratio $(awk -v a="$one" -v b="$three" 'BEGIN { printf "%.2f", b / a }') on $(nproc) cores"

# death: reclaimed within 3 x heartbeat?
reset_db
dconf=$(fleet_conf death "max_jobs = 2" "heartbeat = $hb")
node_start "bd1-$$" --config "$dconf"
PROVISOR_FAULT=gpu:during:hang:inf PROVISOR_FAULT_STATE=$T/fault.state node_start "bd2-$$" --config "$dconf"
node_start "bd3-$$" --config "$dconf"
"$prov" drain --name "bd1-$$" >/dev/null
"$prov" drain --name "bd3-$$" >/dev/null
queue 2
holds() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.bd2-$$'")" = 2 ]; }
wait_for 30 holds || echo "fleet: death: the victim did not take both jobs"
"$prov" resume --name "bd1-$$" >/dev/null
"$prov" resume --name "bd3-$$" >/dev/null
sleep 1
t0=$(date +%s.%N)
node_kill "bd2-$$"
taken() { [ "$(sql "SELECT count(*) FROM provisor_leases WHERE epoch = 2")" = 2 ]; }
for _ in $(seq 600); do taken && break; sleep 0.05; done
t1=$(date +%s.%N)
hb_s=$(awk -v h="$hb" 'BEGIN { v = h + 0; if (h ~ /ms$/) v /= 1000; print v }')
echo "fleet: death: heartbeat $hb, lease 2.5 heartbeats: both jobs claimed by the others $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s after the kill (target <= $(awk -v h="$hb_s" 'BEGIN { print 3 * h }') s)"
stop_nodes bd1 bd3
