# Sourced by the tests that drive `provisor top` in tmux (tmux.sh,
# live.sh): a private tmux server named by $sock, a window "top", and the
# helpers to read it. The caller sets sock before using them.
# tmux_slow: how many times slower than the plain build this run may be
# ($PROVISOR_TEST_SLOW, which tests/run.sh sets): wait_for and wait_gone
# multiply their SECONDS by it (they only bound a wait).
tmux_slow=${PROVISOR_TEST_SLOW:-1}
T() { tmux -L "$sock" -f /dev/null "$@"; }
screen() { T capture-pane -p -t top 2>/dev/null; }
# keep_server: a session that outlives every "top" session, so that a
# kill-session never empties the server. An emptied tmux server exits, and
# a new-session that reaches it while it exits fails ("lost server"): CI
# saw that once. The sleep bounds the server's life if cleanup never runs.
keep_server() { T new-session -d -s keep "sleep 300"; }
fails=0
# fail MSG: count a failure and show the pane as it is.
fail() { echo "FAIL: $*"; fails=$((fails + 1)); T capture-pane -p -t top 2>/dev/null | sed 's/^/    | /'; }
# wait_for REGEX [SECONDS]: until the pane shows it (SECONDS, default 5,
# times tmux_slow).
wait_for() {
  local re=$1 n=$(( ${2:-5} * 10 * tmux_slow ))
  for _ in $(seq "$n"); do screen | grep -Eq -- "$re" && return 0; sleep 0.1; done
  return 1
}
# wait_gone REGEX [SECONDS]: until the pane no longer shows it (the same
# scaling).
wait_gone() {
  local re=$1 n=$(( ${2:-5} * 10 * tmux_slow ))
  for _ in $(seq "$n"); do screen | grep -Eq -- "$re" || return 0; sleep 0.1; done
  return 1
}
