#!/usr/bin/env bash
# provisor top in a real terminal, driven through tmux on a private socket
# (tmux's own regress/ style): against the fake supervisor, an 80x24 pane
# shows busy workers with job and partition; keys move and switch panes;
# help opens and closes; the meters show every slot; c asks y/n and n
# sends nothing; resizing to 60x20 and 200x50 redraws; killing the
# supervisor shows "not running" and a new one is re-attached; q exits 0
# and leaves the terminal sane. Cleans up its tmux server, processes and
# segments whatever happens. Every wait polls the pane, bounded by
# tmux_lib.sh's scaled seconds: no check follows a fixed sleep.
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null) fake=$(realpath "$bin/tests/fakesup" 2>/dev/null)
[ -x "$prov" ] && [ -x "$fake" ] || { echo "no $bin/provisor or $bin/tests/fakesup: build first"; exit 77; }
command -v tmux >/dev/null || { echo "tmux not installed"; exit 77; }
name=t-tmux-$$
sock=provisor-test-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-tmux.XXXXXX")
export TMUX_TMPDIR=$dir	# its socket goes with the directory (kill-server leaves it)
fpid=
. "$(dirname "$0")/tmux_lib.sh"
cleanup() {
  T kill-server 2>/dev/null
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
  rm -f "/run/provisor/$name.status"
  rm -rf "$dir"
}
trap cleanup EXIT

start_fake() {
  rm -f "$dir/ready"
  "$fake" --name "$name" --gpus 4 --synth 2 --min-ms 800 --max-ms 2000 --ready "$dir/ready" &
  fpid=$!
  for _ in $(seq $((50 * tmux_slow))); do [ -e "$dir/ready" ] && return; sleep 0.1; done
  echo "fakesup did not start"; exit 1
}
size_ok() {  # no line of the pane is wider than w columns, none below row h
  local w=$1 h=$2
  [ "$(screen | wc -L)" -le "$w" ] || fail "lines wider than $w"
  [ "$(screen | wc -l)" -le "$h" ] || fail "more than $h lines"
}

start_fake
T new-session -d -s top -x 80 -y 24 "TERM=xterm-256color $prov top --name $name -d 2; echo EXIT=\$?; stty -a | tr ' ' '\n' | grep -Ex -- '-?(icanon|echo)' | tr '\n' ' '; echo; sleep 30"
T set-option -t top window-size manual >/dev/null 2>&1

wait_for 'gpu\.0 .*busy' 5 || fail "no busy GPU worker at 80x24"
# a busy row shows job (number), kind and partition (number)
wait_for 'gpu\.[0-9] +[0-9]+ +busy +[0-9]+ +[a-z-]+ +[0-9]+ ' 5 || fail "busy row without job and partition"
wait_for "$name  pid $fpid" 5 || fail "header without name and pid"
# the meters: every slot in one cell, state letter and utilization
for c in g0 g3 s0 s1; do
  wait_for "(^| )$c[BISWCDTE] +([0-9]+%|-)" 5 || fail "no meter cell $c at 80x24"
done
size_ok 80 24

# keys: j moves the selection down, Tab moves the focus to the synth pane
T send-keys -t top j
sleep 0.3
T send-keys -t top Tab
sleep 0.3
T send-keys -t top Tab
sleep 0.3
T send-keys -t top Enter
wait_for '^job [0-9]+ .*Esc to close' 3 || fail "Enter on the jobs pane did not open the job detail"
T send-keys -t top Escape
wait_for '^GPU ' 3 || fail "Esc did not close the detail"
# c on the jobs pane asks first; n sends nothing
T send-keys -t top G
T send-keys -t top g
T send-keys -t top c
wait_for '(cancel job [0-9]+ .*\? y/n|nothing to cancel)' 3 || fail "c did not ask (or say why not)"
T send-keys -t top n
wait_for '(not sent: cancel job|nothing to cancel)' 3 || fail "n after c: no 'not sent'"

T send-keys -t top '?'
wait_for 'Press \? or Esc to close' 3 || fail "help did not open"
T send-keys -t top '?'
wait_gone 'Press \? or Esc' 5 || fail "help did not close"
wait_for 'gpu\.0' 3 || fail "panes not back after help"

T resize-window -t top -x 60 -y 20
wait_for 'gpu\.0' 3 || fail "no redraw at 60x20"
size_ok 60 20
T resize-window -t top -x 200 -y 50
sleep 0.5
wait_for 'gpu\.3 .*busy|gpu\.3' 3 || fail "no redraw at 200x50"
wait_for '^GPU .* {3,}JOB ' 3 || fail "200x50: jobs pane not beside the workers"
size_ok 200 50
T resize-window -t top -x 20 -y 5
wait_for 'terminal too small' 3 || fail "no too-small message at 20x5"
T resize-window -t top -x 80 -y 24
wait_for 'gpu\.0' 3 || fail "no redraw back at 80x24"

# the supervisor dies: not running; a new one: re-attached (new pid)
old=$fpid
kill -KILL "$fpid"; wait "$fpid" 2>/dev/null; fpid=
wait_for '\[not running\]' 5 || fail "killed supervisor not shown as not running"
start_fake
wait_for "pid $fpid .*\[running\]" 5 || fail "new supervisor (pid $fpid, was $old) not re-attached"
wait_for 'gpu\.[0-9] .*busy' 5 || fail "no busy worker after re-attach"

T send-keys -t top q
wait_for '^EXIT=' 5 || fail "q did not exit"
screen | grep -q '^EXIT=0$' || fail "top exit status not 0"
wait_for '(^| )-?icanon( |$)' 5 || fail "no stty line after q"
screen | grep -Eq '(^| )icanon( |$)' && screen | grep -Eq '(^| )echo( |$)' || fail "terminal not sane after q (icanon/echo)"
[ "$fails" -eq 0 ] && echo "info: top in tmux: 80x24, keys, help, detail, 60x20, 200x50, 20x5, supervisor loss and re-attach, q"
exit $((fails > 0))
