#!/usr/bin/env bash
# One instance per state directory. A second supervisor on a directory
# that one holds (by --state-dir, or by a config's state_dir) is refused
# with one line naming the holder's name and pid, and leaves nothing of
# its own: no segment, and the holder's socket, jobs/ and lock stay, so
# the first keeps taking and finishing jobs. `stop --name` of the refused
# one does not reach the first. Once the first stops, its lock file is
# gone and the directory serves the second.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
a=pvt-2a-$$ b=pvt-2b-$$
start "$a" "$T/st"
pa=$sup_pid
refused "state directory $T/st is in use by instance '$a' \(supervisor pid $pa\)" \
  "$P" run --name "$b" --state-dir "$T/st" --gpus 1 --synth 1 --backend cpu
printf '[supervisor]\nstate_dir = %s\n' "$T/st" >"$T/b.ini"
refused "in use by instance '$a' \(supervisor pid $pa\)" \
  "$P" run --name "$b" --config "$T/b.ini" --gpus 1 --synth 1 --backend cpu
[ ! -e "/run/provisor/$b.status" ] || fail "the refused supervisor left its segment"
[ -S "$T/st/control.sock" ] || fail "the refused supervisor removed the holder's socket"
[ -d "$T/st/jobs" ] || fail "the refused supervisor removed the holder's jobs/"
[ "$(cat "$T/st/lock")" = "$a $pa" ] || fail "lock file says '$(cat "$T/st/lock")'"
refused "no provisor instance '$b' is running" "$P" stop --name "$b"
out=$("$P" submit --name "$a" --kind winning-post --log-size 8 --wait) || fail "submit to $a: $out"
echo "info: $out"
kill -0 "$pa" || fail "$a is gone"
stop "$a" "$pa"
[ ! -e "$T/st/lock" ] || fail "the lock file was left behind"
start "$b" "$T/st"
stop "$b" "$sup_pid"
finish
