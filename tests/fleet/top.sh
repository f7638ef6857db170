#!/usr/bin/env bash
# provisor top --fleet in a real terminal (tmux on a private socket in the
# test's own directory, as tests/tui/tmux.sh), against a PostgreSQL of its
# own with two nodes (heartbeat 500 ms, lease 3 s): node A's GPU worker
# hangs, so it holds its two jobs; two jobs that ask for proofs stay
# queued (no node has params). Through a DSN that carries a password:
#   - both nodes' rows, alive, with their GPU slots busy of total and the
#     jobs they hold of their max (A 2/2, B 0/2), and a row per kind with
#     its queue depth (porep 1, snap-deals 1) and its running jobs;
#   - A killed with SIGKILL turns stale, then dead (the database's clock),
#     and its two jobs are done by B (the queue row says so);
#   - the database stopped: one line says it is unreachable, and why,
#     while the last view stays on screen (B's row); started again, the
#     view comes back by itself;
#   - the database frozen (SIGSTOP: connections are accepted and never
#     answered): the unreachable line says nothing answered within 3 s,
#     and q, pressed while the next attempt hangs, quits at once (within
#     1 s times $PROVISOR_TEST_SLOW: an attempt that held the loop would
#     hold it for 3 s), exit 0;
#   - the password never on screen;
#   - bad input, one line each: a DSN libpq cannot parse (exit 2), --fleet
#     with --name (exit 2), --once with no database there (exit 1);
#     --once prints both nodes.
# tmux_lib.sh first: lib.sh's fail and wait_for (SECONDS CMD...) replace
# its own, and the pane is polled through shows.
. "$(dirname "$0")/../tui/tmux_lib.sh"
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { echo "tmux not installed"; exit 77; }
sock=provisor-ftop-$$
export TMUX_TMPDIR=$T	# its socket goes with the test's directory
frozen=
top_cleanup() {
  T kill-server 2>/dev/null
  # shellcheck disable=SC2086
  [ -n "$frozen" ] && kill -CONT $frozen 2>/dev/null
}
trap 'top_cleanup; t_cleanup' EXIT
shows() { screen | grep -Eq -- "$1"; }
pfail() { fail "$*"; screen | sed 's/^/    | /'; }

pg_start
"$prov" fleet init "$DSN" >/dev/null || fail "fleet init"
conf=$(fleet_conf top "heartbeat = 500ms" "lease = 3s" "claim_interval = 100ms" "max_jobs = 2")
a=ftA-$$ b=ftB-$$
# A's GPU worker hangs in every partition: it holds what it claims.
PROVISOR_FAULT=gpu:during:hang:inf PROVISOR_FAULT_STATE=$T/fault.state node_start "$a" --config "$conf"
for i in 1 2; do
  "$prov" submit --fleet "$DSN" --kind winning-post --log-size 3 --partitions 1 >/dev/null || fail "submit $i"
done
holds() { [ "$(sql "SELECT count(*) FROM provisor_jobs WHERE state = 'running' AND owner LIKE '%.$a'")" = 2 ]; }
wait_for 20 holds || fail "node A does not hold both jobs"
node_start "$b" --config "$conf"
for k in porep snap-deals; do
  "$prov" submit --fleet "$DSN" --kind $k --log-size 3 --partitions 1 --proofs >/dev/null || fail "submit $k"
done

# Bad input, and --once.
"$prov" top --fleet "host=$PGDIR nosuchkey=1" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'bad DSN: invalid connection option "nosuchkey"' "$T/err" ||
  fail "a bad DSN: exit $rc, $(cat "$T/err")"
"$prov" top --fleet "$DSN" --name x >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "--fleet with --name: exit $rc, $(cat "$T/err")"
"$prov" top --fleet "host=$T/nowhere dbname=x" --once >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "No such file or directory" "$T/err" ||
  fail "--once, no database: exit $rc, $(cat "$T/err")"
"$prov" top --fleet "$DSN" --once --width 120 >"$T/once" 2>&1 || fail "--once: $(cat "$T/once")"
grep -Eq "\.$a +alive " "$T/once" && grep -Eq "\.$b +alive " "$T/once" || fail "--once: $(cat "$T/once")"

pw=s3cret-$$
T new-session -d -s top -x 120 -y 30 "TERM=xterm-256color $prov top --fleet '$DSN password=$pw' -d 2; echo EXIT=\$?; sleep 30"
# NODE STATE SEEN GPU SYNTH JOBS
wait_for 10 shows "\.$a +alive +[0-9.]+m?s +1/1 +[0-9]/1 +2/2 " || pfail "node A alive, its slot busy, holding 2/2"
wait_for 10 shows "\.$b +alive +[0-9.]+m?s +0/1 +[0-9]/1 +0/2 " || pfail "node B alive, holding 0/2"
# KIND QUEUED RUNNING DONE FAILED
wait_for 5 shows "^porep +1 +0 +0 +0" || pfail "no queue row for porep, depth 1"
wait_for 5 shows "^snap-deals +1 +0 +0 +0" || pfail "no queue row for snap-deals, depth 1"
wait_for 5 shows "^winning-post +0 +2 +0 +0" || pfail "no queue row for winning-post, 2 running"
wait_for 5 shows "nodes 2: 2 alive 0 stale 0 dead" || pfail "no totals"
shows "$pw" && pfail "the password is on screen"

node_kill "$a"
wait_for 10 shows "\.$a +stale " || pfail "killed node A never shown stale"
wait_for 10 shows "\.$a +dead " || pfail "killed node A never shown dead"
wait_for 20 shows "^winning-post +0 +0 +2 +0" || pfail "A's jobs not done by B"
wait_for 5 shows "nodes 2: 1 alive 0 stale 1 dead" || pfail "totals: not 1 alive 1 dead"

pg_stop
wait_for 10 shows "^database unreachable for [0-9.]+m?s, the view below is [0-9.]+m?s old, (retrying in [0-9.]+m?s|trying again now): " ||
  pfail "no unreachable line (stopped)"
shows "\.$b +alive " || pfail "the last view is not kept"
shows "$pw" && pfail "the password is on screen (unreachable)"
pg_start
wait_for 15 shows "^database: read [0-9.]+m?s ago" || pfail "the view did not come back with the database"
shows "\[connected\]" || pfail "not connected again"

pm=$(head -n 1 "$PGDIR/data/postmaster.pid")
frozen="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
# shellcheck disable=SC2086
kill -STOP $frozen
wait_for 15 shows "^database unreachable for .*, trying again now: .*no (answer|connection) within 3\.0 s" ||
  pfail "no unreachable line while the database hangs, or no attempt in flight"
T send-keys -t top q
wait_for 1 shows "^EXIT=0$" || pfail "q did not quit at once while the database hangs"
# shellcheck disable=SC2086
kill -CONT $frozen
frozen=
node_stop "$b"
[ "$fails" = 0 ] && echo "info: top --fleet: 2 nodes, alive/stale/dead, queue per kind, database stopped and back, frozen, q"
finish
