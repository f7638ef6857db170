# Sourced by tests/trust/*.sh: root, an unprivileged user (and group) of
# the test's own, a copy of the programs that user may run, supervisors
# started and stopped by name, and a cleanup that removes all of it
# whatever happens. A test that cannot have these skips with 77.
set -u
bin=${BIN:-bin}
bindir=$(cd "$(dirname "$bin/provisor")" 2>/dev/null && pwd)
prov=$bindir/provisor
[ -x "$prov" ] || { echo "no $bin/provisor: build it first"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "needs root (to create a user and run a root supervisor)"; exit 77; }
for c in useradd userdel groupadd groupdel runuser; do
  command -v "$c" >/dev/null 2>&1 || { echo "needs $c"; exit 77; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/provisor-trust.XXXXXX") || exit 1
chmod 755 "$T"
# The programs, where any user may run them (the checkout may not be).
mkdir -m 755 "$T/bin"
cp "$bindir/provisor" "$bindir/gpuworker" "$bindir/synth" "$T/bin/" || exit 1
chmod 755 "$T/bin"/*
P=$T/bin/provisor
fails=0
t_users=() t_groups=() t_sups=() t_names=()

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

t_cleanup() {
  local p n
  for p in "${t_sups[@]+"${t_sups[@]}"}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${t_sups[@]+"${t_sups[@]}"}"; do wait "$p" 2>/dev/null; done
  for n in "${t_users[@]+"${t_users[@]}"}"; do
    pkill -KILL -u "$n" 2>/dev/null
    rm -rf "/dev/shm/provisor-$(id -u "$n" 2>/dev/null)"
    userdel "$n" 2>/dev/null
  done
  for n in "${t_groups[@]+"${t_groups[@]}"}"; do groupdel "$n" 2>/dev/null; done
  for n in "${t_names[@]+"${t_names[@]}"}"; do rm -f "/run/provisor/$n.status"; done
  rm -rf "$T"
}
trap t_cleanup EXIT
trap 'exit 1' TERM INT HUP	# a timeout still removes the user and the rest

# mkgroup NAME; mkuser NAME [GROUP...]: removed at exit.
mkgroup() {
  groupadd "$1" || { echo "cannot create group $1"; exit 77; }
  t_groups+=("$1")
}
mkuser() {
  local name=$1; shift
  local groups
  groups=$(IFS=,; echo "$*")
  useradd -M -N -d / -s /usr/sbin/nologin ${groups:+-G "$groups"} "$name" ||
    { echo "cannot create user $name"; exit 77; }
  t_users+=("$name")
}

# as USER CMD...: run as USER with its groups, without our runtime dir.
as() {
  local u=$1; shift
  runuser -u "$u" -- env -u XDG_RUNTIME_DIR HOME=/ "$@"
}

# start NAME DIR [ARGS...]: a root supervisor in the background, with one
# CPU GPU slot and one synth, up and answering; its pid in $sup_pid.
start() {
  local name=$1 dir=$2; shift 2
  t_names+=("$name")
  "$P" run --name "$name" --state-dir "$dir" --gpus 1 --workers-per-gpu 1 --synth 1 \
    --backend cpu "$@" >"$T/$name.log" 2>&1 &
  sup_pid=$!
  t_sups+=("$sup_pid")
  for _ in $(seq 100); do
    "$P" ping --name "$name" >/dev/null 2>&1 && return 0
    kill -0 "$sup_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "supervisor $name did not come up:"; cat "$T/$name.log"
  exit 1
}

# stop NAME PID: stop it and wait for it; it must exit 0.
stop() {
  "$P" stop --name "$1" >/dev/null || fail "stop --name $1"
  wait "$2" || fail "supervisor $1 exited with $?"
}

# refused PATTERN CMD...: CMD exits 1..127 with exactly one line on stderr
# that matches PATTERN (grep -E), and nothing on stdout.
refused() {
  local pat=$1 rc; shift
  "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
    fail "$* exited $rc, expected a refusal"
  elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qE -- "$pat" "$T/err"; then
    fail "$*: stderr is not one line matching '$pat':"; sed 's/^/    /' "$T/err"
  elif [ -s "$T/out" ]; then
    fail "$*: printed on stdout: $(head -c 200 "$T/out")"
  else
    echo "info: refused: $(cat "$T/err")"
  fi
}

# setpath NAME PATH: rewrite root's instance NAME's published control_path
# (header offset 352, 108 bytes), as someone able to write the segment could.
setpath() {
  { printf '%s' "$2"; head -c $((108 - ${#2})) /dev/zero; } |
    dd of="/run/provisor/$1.status" bs=1 seek=352 conv=notrunc status=none
}

finish() {
  [ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
  echo ok
}
