#!/usr/bin/env bash
# A name cannot be squatted and root's clients cannot be redirected.
# - An unprivileged user cannot create a segment where root's live
#   (/run/provisor), and one planted in /dev/shm (where they used to be)
#   does not keep root from starting that name.
# - A segment in root's place that root does not own is refused by every
#   client.
# - A rewritten control_path is never followed: pointed at another root
#   instance's socket, `stop` is refused (the peer's pid is not the
#   segment's supervisor) and neither instance stops; pointed at a socket
#   that the user's own supervisor serves, it is refused by its owner;
#   pointed at a relative or '..' path, refused; `--socket` to the user's
#   socket is refused too (served by neither us nor root).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
u=pvt$$q
mkuser "$u"
a=pvt-sqa-$$ b=pvt-sqb-$$ evil=pvt-sqe-$$

# The user's squats: /run/provisor is root's alone; /dev/shm no longer counts.
mkdir -p /run/provisor
as "$u" sh -c "echo x >/run/provisor/$a.status" 2>/dev/null && fail "the user created a segment in /run/provisor"
as "$u" sh -c "head -c 4096 /dev/zero >/dev/shm/provisor.$a" || fail "the user could not write /dev/shm"
start "$a" "$T/a"
pa=$sup_pid
start "$b" "$T/b"
pb=$sup_pid
rm -f "/dev/shm/provisor.$a"

# A segment in root's place owned by someone else.
cp "/run/provisor/$a.status" "/run/provisor/$evil.status" && chown "$u" "/run/provisor/$evil.status"
t_names+=("$evil")
refused "owned by uid $(id -u "$u"), not uid 0" "$P" status --name "$evil"
refused "owned by uid $(id -u "$u"), not uid 0" "$P" ping --name "$evil"
rm -f "/run/provisor/$evil.status"

setpath "$a" "$T/b/control.sock"
refused "$T/b is held by instance '$b' \(pid $pb\), not by '$a' \(pid $pa\)" "$P" stop --name "$a"
"$P" ping --name "$b" >/dev/null || fail "$b stopped"
"$P" ping --socket "$T/a/control.sock" >/dev/null || fail "$a stopped"

# The user's own supervisor, and root's segment pointed at its socket.
mkdir "$T/evil" && chown "$u" "$T/evil"
as "$u" "$P" run --name "$evil" --state-dir "$T/evil/st" --gpus 1 --workers-per-gpu 1 --synth 1 \
  --backend cpu >"$T/evil.log" 2>&1 &
pe=$!
t_sups+=("$pe")
for _ in $(seq 100); do as "$u" "$P" ping --name "$evil" >/dev/null 2>&1 && break; sleep 0.1; done
as "$u" "$P" ping --name "$evil" >/dev/null || { cat "$T/evil.log"; fail "the user's supervisor did not start"; }
setpath "$a" "$T/evil/st/control.sock"
refused "state directory $T/evil/st is not a directory of uid 0" "$P" stop --name "$a"
refused "served by uid $(id -u "$u"), neither you nor root" "$P" stop --socket "$T/evil/st/control.sock"
as "$u" "$P" ping --name "$evil" >/dev/null || fail "root's stop reached the user's supervisor"
setpath "$a" "control.sock"
refused "not STATE/control.sock on a clean absolute path" "$P" stop --name "$a"
setpath "$a" "$T/b/../a/control.sock"
refused "not STATE/control.sock on a clean absolute path" "$P" stop --name "$a"

setpath "$a" "$T/a/control.sock"
"$P" ping --name "$a" >/dev/null || fail "the restored path does not work"
as "$u" "$P" stop --name "$evil" >/dev/null || fail "the user's stop"
wait "$pe" || fail "the user's supervisor exited $?"
stop "$a" "$pa"
stop "$b" "$pb"
finish
