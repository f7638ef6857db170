# Sourced by tests/fleet/*.sh: a PostgreSQL server of the test's own and
# supervisors that are nodes of a fleet on it, removed whatever happens.
#
# The server: initdb as an unprivileged user (initdb refuses root) into
# $T/pg, listening only on a unix socket in $T/pg (no TCP port, so tests
# side by side cannot collide), fsync off (the tests crash supervisors,
# never the machine). A test that cannot have one skips with 77: the
# PostgreSQL binaries missing, or no way to run them as another user.
#
#   pg_start; pg_stop; pg_restart_after SECONDS (stops it now, starts it
#   again in the background after SECONDS)
#   sql "SQL"       one value (psql -Atq), fails the test on an error
#   node_start NAME [ARGS...]   a node (1 GPU slot, 1 synth, CPU) of the
#                   fleet in the background; its pid in ${npid[NAME]}
#   node_stop NAME; node_kill NAME (SIGKILL, its segment removed)
#   wait_for SECONDS CMD...     poll CMD every 0.2 s (times $slow)
#   node_json NAME FIELD; node_prom NAME METRIC   a node's own fleet view
#   freeze_held NAME PROXY   freeze NAME's relay once it holds two jobs
#   fleet_prom SERIES           a sample of status --fleet --prometheus
set -u
bin=${BIN:-bin}
slow=${PROVISOR_TEST_SLOW:-1}
prov=$(realpath "$bin/provisor" 2>/dev/null)
[ -x "$prov" ] || { echo "no $bin/provisor: build it first"; exit 77; }

pgbin=
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && pgbin=$d
done
if [ -z "$pgbin" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
  pgbin=$(dirname "$(command -v initdb)")
fi
[ -n "$pgbin" ] || { echo "no PostgreSQL server binaries (initdb, pg_ctl, postgres): make deps installs them"; exit 77; }
psql=$pgbin/psql
[ -x "$psql" ] || psql=$(command -v psql) || { echo "no psql"; exit 77; }

# Who runs the server: nobody when we are root, else ourselves.
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null 2>&1 || { echo "needs setpriv to run PostgreSQL as nobody"; exit 77; }
  pguser=nobody
  pggroup=$(id -gn nobody 2>/dev/null) || { echo "no user nobody to run PostgreSQL as"; exit 77; }
  as_pg() { setpriv --reuid=nobody --regid="$pggroup" --clear-groups env HOME=/ "$@"; }
else
  pguser=$(id -un)
  as_pg() { "$@"; }
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-fleet.XXXXXX") || exit 1
chmod 755 "$T"
PGDIR=$T/pg
DSN="host=$PGDIR dbname=postgres user=provisor"
fails=0
declare -A npid=()
t_names=() t_pids=()
pg_bg=

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

t_cleanup() {
  local n p
  [ -n "$pg_bg" ] && kill "$pg_bg" 2>/dev/null && wait "$pg_bg" 2>/dev/null
  for p in "${t_pids[@]+"${t_pids[@]}"}"; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  for n in "${!npid[@]}"; do
    p=${npid[$n]}
    [ -n "$p" ] && kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  for n in "${t_names[@]+"${t_names[@]}"}"; do
    rm -f "/run/provisor/$n.status" "/dev/shm/provisor-$(id -u)/$n.status"
  done
  [ -f "$PGDIR/data/postmaster.pid" ] && as_pg "$pgbin/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$T"
}
trap t_cleanup EXIT
trap 'exit 1' TERM INT HUP

pg_start() {
  if [ ! -d "$PGDIR/data" ]; then
    mkdir -m 700 "$PGDIR" && chown "$pguser" "$PGDIR" || exit 1
    (cd / && as_pg "$pgbin/initdb" -D "$PGDIR/data" -U provisor --auth=trust -E UTF8 --no-sync \
      >"$T/initdb.log" 2>&1) || { echo "initdb failed:"; cat "$T/initdb.log"; exit 77; }
  fi
  (cd / && as_pg "$pgbin/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w -t 60 \
    -o "-c listen_addresses='' -k $PGDIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 -c shared_buffers=16MB" \
    start >/dev/null) || { echo "PostgreSQL did not start:"; cat "$PGDIR/log"; exit 1; }
}

pg_stop() {
  (cd / && as_pg "$pgbin/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null)
}

# pg_restart_after SECONDS: stop the server now; start it again SECONDS
# later, in the background (pg_wait_restarted waits for that).
pg_restart_after() {
  pg_stop
  ( sleep "$1"; pg_start ) &
  pg_bg=$!
}
pg_wait_restarted() {
  wait "$pg_bg"
  pg_bg=
}

sql() {
  local out
  out=$("$psql" "$DSN" -v ON_ERROR_STOP=1 -Atq -c "$1" 2>&1) || { fail "sql: $1: $out"; return 1; }
  printf '%s\n' "$out"
}

# node_start NAME [ARGS...]: a node of the fleet, as root (its workers run
# as nobody) or as ourselves, with a state directory under $T; at nice
# $node_nice when that is set.
node_start() {
  local name=$1; shift
  t_names+=("$name")
  ${node_nice:+nice -n "$node_nice"} "$prov" run --name "$name" --state-dir "$T/$name" --gpus 1 \
    --workers-per-gpu 1 --synth 1 --backend cpu "$@" >"$T/$name.log" 2>&1 &
  npid[$name]=$!
  local i
  for i in $(seq $((100 * slow))); do
    "$prov" ping --name "$name" >/dev/null 2>&1 && return 0
    kill -0 "${npid[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "node $name did not come up:"; cat "$T/$name.log"
  exit 1
}

node_stop() {
  "$prov" stop --name "$1" >/dev/null || fail "stop --name $1"
  wait "${npid[$1]}" || fail "node $1 exited with $?"
  npid[$1]=
}

node_kill() {
  kill -KILL "${npid[$1]}"
  wait "${npid[$1]}" 2>/dev/null
  npid[$1]=
  rm -f "/run/provisor/$1.status" "/dev/shm/provisor-$(id -u)/$1.status"
}

# wait_for SECONDS CMD...: until CMD succeeds, polled every 0.2 s, for up
# to SECONDS times $slow; 1 when it never did.
wait_for() {
  local n=$(( $1 * 5 * slow )); shift
  for _ in $(seq "$n"); do "$@" && return 0; sleep 0.2; done
  return 1
}

# The fleet's config for a node: a short heartbeat, so that deaths are
# noticed within a second or two.
fleet_conf() {
  local f=$T/fleet-$1.conf
  shift
  printf '[fleet]\ndsn = %s\n' "$DSN" >"$f"
  printf '%s\n' "$@" >>"$f"
  echo "$f"
}

# Checks every test ends with: each job done exactly once, by the lease
# that holds it, and no two leases of one job overlapping in time.
check_exactly_once() {
  local want=$1 n
  n=$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'done'")
  [ "$n" = "$want" ] || fail "$n jobs done, expected $want: $(sql "SELECT state, count(*) FROM provisor_jobs GROUP BY state")"
  n=$(sql "SELECT count(*) FROM provisor_results")
  [ "$n" = "$want" ] || fail "$n results stored, expected $want"
  n=$(sql "SELECT count(*) FROM provisor_results r JOIN provisor_jobs j ON j.id = r.job_id WHERE r.epoch <> j.epoch")
  [ "$n" = 0 ] || fail "$n results stored by a lease that is not the job's last"
  n=$(sql "SELECT count(*) FROM provisor_leases WHERE outcome = 'done'")
  [ "$n" = "$want" ] || fail "$n leases ended done, expected $want"
  n=$(sql "SELECT count(*) FROM provisor_leases a JOIN provisor_leases b ON a.job_id = b.job_id AND a.epoch < b.epoch
           WHERE b.claimed_at < least(coalesce(a.ended_at, 'infinity'), a.expires_at)")
  [ "$n" = 0 ] || fail "$n pairs of leases of one job overlap: $(sql "SELECT a.job_id, a.node, b.node FROM provisor_leases a JOIN provisor_leases b ON a.job_id = b.job_id AND a.epoch < b.epoch WHERE b.claimed_at < least(coalesce(a.ended_at, 'infinity'), a.expires_at) LIMIT 5")"
}

# Every H result verifies: the files the database names, re-synthesized.
check_results_verify() {
  local files
  files=$(sql "SELECT substr(location, strpos(location, ':') + 1) FROM provisor_results WHERE output = 'h' ORDER BY job_id")
  [ -n "$files" ] || { fail "no result locations"; return; }
  # shellcheck disable=SC2086
  "$prov" verify $files >"$T/verify.out" 2>&1 || fail "provisor verify: $(tail -n 3 "$T/verify.out")"
}

# The loop's longest iteration of node NAME, in ms, and what it did
# (its status segment: status --json's supervisor.loop).
loop_max() {
  "$prov" status --name "$1" --json | tr -d '\n' |
    sed -n 's/.*"loop": *{[^}]*"max_seconds": *\([0-9.e+-]*\), *"max_what": *"\([^"]*\)".*/\1 \2/p' |
    awk '{ ms = $1 * 1000; $1 = ""; printf "%.3f%s\n", ms, $0 }'
}

# A node's own view of the fleet (its status segment's fleet block):
# node_json NAME FIELD from status --json ("fleet": strings unquoted),
# node_prom NAME METRIC from status --prometheus; empty when absent.
node_json() {
  "$prov" status --name "$1" --json 2>/dev/null | tr -d ' \n' |
    sed -n "s/.*\"fleet\":{[^}]*\"$2\":\"*\([^,}\"]*\).*/\1/p"
}
node_prom() {
  "$prov" status --name "$1" --prometheus 2>/dev/null | awk -v m="$2" '$1 == m { print $2 }'
}
# freeze_held NAME PROXY: SIGSTOP the relay PROXY (fleet_proxy) between
# node NAME and the database once the node holds two fleet jobs by its
# own view (both claims answered, so the database has both as its), and
# print how many running jobs the database says it owns then; prints
# nothing when the node never held two (bound: 10 s times $slow). A
# freeze timed on the database alone could catch a claim's answer in the
# relay, and the node would never have that job.
freeze_held() {
  for _ in $(seq $((500 * slow))); do
    if [ "$(node_json "$1" leases_held)" = 2 ]; then
      kill -STOP "$2"
      sql "SELECT count(*) FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.$1'"
      return
    fi
    sleep 0.02
  done
}
# fleet_prom SERIES: one sample of status --fleet --prometheus (labels exact).
fleet_prom() {
  "$prov" status --fleet "$DSN" --prometheus 2>/dev/null | awk -v m="$1" '$1 == m { print $2 }'
}

finish() {
  [ "$fails" -eq 0 ] || { echo "$fails failure(s)"; for n in "${t_names[@]+"${t_names[@]}"}"; do echo "--- $n.log"; tail -n 15 "$T/$n.log"; done; exit 1; }
  echo ok
}
