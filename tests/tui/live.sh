#!/usr/bin/env bash
# provisor top against the real supervisor, in tmux on a private socket:
# busy gpuworkers show their job, kind and partition while real partitions
# prove; d y and e y disable and re-enable gpu.0 through the supervisor
# (the footer shows its "ok", the row "disabled"); the supervisor
# SIGKILLed shows "not running"; a new supervisor of
# the same name is re-attached by itself; q exits 0. Then the same view
# starts, draws and quits under TERM=vt100, screen-256color and
# tmux-256color, and with --ascii. Leaves no process, segment or server.
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null)
[ -x "$prov" ] || { echo "no $bin/provisor: build first"; exit 77; }
command -v tmux >/dev/null || { echo "tmux not installed"; exit 77; }
name=t-live-$$
sock=provisor-live-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-live.XXXXXX")
# tmux's socket in the test's own directory: kill-server leaves the socket
# file behind (it was found in /tmp/tmux-0 after runs), and the cleanup's
# rm -rf takes it with the rest.
export TMUX_TMPDIR=$dir
spid=
. "$(dirname "$0")/tmux_lib.sh"
cleanup() {
  T kill-server 2>/dev/null
  if [ -n "$spid" ]; then kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; fi
  rm -f "/run/provisor/$name.status"
  rm -rf "$dir"
}
trap cleanup EXIT
start_sup() {
  "$prov" run --name "$name" --state-dir "$dir/state" 2>>"$dir/log" &
  spid=$!
  for _ in $(seq 100); do "$prov" ping --name "$name" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "supervisor did not start"; cat "$dir/log"; exit 1
}
work() { for _ in 1 2 3; do "$prov" submit --name "$name" --kind porep --log-size 16 >/dev/null; done; }

start_sup
work
keep_server || { echo "tmux did not start"; exit 1; }
T new-session -d -s top -x 80 -y 24 "TERM=xterm-256color $prov top --name $name -d 2; echo EXIT=\$?; sleep 30"
wait_for 'gpu\.[01] +[0-9]+ +busy +[0-9]+ +porep +[0-9]+ ' 10 || fail "no busy gpuworker with job, kind and partition"
# d then y on gpu.0 (the GPU pane has the focus): the supervisor disables
# it, through the same request as `provisor worker disable gpu.0`; e y
# enables it again
T send-keys -t top g
T send-keys -t top d
wait_for 'disable gpu\.0 .*\? y/n' 3 || fail "d did not ask"
T send-keys -t top y
wait_for 'worker disable gpu\.0: ok' 5 || fail "d y: no 'ok' from the supervisor"
wait_for '^gpu\.0 .*disabled' 5 || fail "gpu.0 not shown disabled after d y"
T send-keys -t top e
T send-keys -t top y
wait_for 'worker enable gpu\.0: ok' 5 || fail "e y: no 'ok' from the supervisor"

old=$spid
kill -KILL "$spid"; wait "$spid" 2>/dev/null; spid=
wait_for '\[not running\]' 5 || fail "killed supervisor not shown as not running"
start_sup
work
wait_for "pid $spid .*\[running\]" 5 || fail "new supervisor (pid $spid, was $old) not re-attached"
wait_for 'gpu\.[01] +[0-9]+ +busy' 10 || fail "no busy worker after re-attach"
T send-keys -t top q
wait_for '^EXIT=0' 5 || fail "q did not exit 0"
T kill-session -t top

for term in vt100 screen-256color tmux-256color xterm-256color:--ascii; do
  t=${term%%:*} opt=
  [ "$t" != "$term" ] && opt=${term#*:}
  T new-session -d -s top -x 80 -y 24 "TERM=$t $prov top --name $name $opt; echo EXIT=\$?; sleep 30" ||
    { fail "TERM=$t $opt: tmux new-session failed"; continue; }
  wait_for "$name +pid" 5 || fail "TERM=$t $opt: no header"
  wait_for 'gpu\.1' 5 || fail "TERM=$t $opt: no worker rows"
  T send-keys -t top q
  wait_for '^EXIT=0' 5 || fail "TERM=$t $opt: q did not exit 0"
  T kill-session -t top
done
[ "$fails" -eq 0 ] && echo "info: top against a real supervisor: busy rows, loss, re-attach; TERM vt100, screen-256color, tmux-256color, --ascii"
exit $((fails > 0))
