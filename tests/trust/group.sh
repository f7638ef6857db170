#!/usr/bin/env bash
# socket_group, end to end, as a member and as a non-member.
# - The state directory (0750), the segment (0640) and the socket (0660)
#   all belong to the group: a member runs status, ping and submit --wait
#   by --name; a non-member is refused each with one line.
# - The member's client checks the peer's pid (it cannot read the state
#   directory's lock): a control_path rewritten to another instance's
#   socket is refused and that instance keeps running.
# - Slow-drip clients: a member holds at most 8 connections (the rest get
#   "err busy: too many connections from this uid"), each is cut 5 s
#   after it connected although it keeps sending, and root's requests
#   get through while they drip (the last 8 slots are kept for root and
#   the supervisor's uid). Root's own drippers are capped and
#   cut at 5 s as well. "Cut at 5 s": no sooner than the deadline (less
#   500 ms for the two clocks' starts), and at most 2 s (times the build's
#   slowness) after it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# How much slower than the plain build this one may run.
slow=${PROVISOR_TEST_SLOW:-1}	# tests/run.sh sets it
deadline_ms=5000	# CONN_DEADLINE_NS (supervisor/ctlsrv.c)
lo_ms=$((deadline_ms - 500)) hi_ms=$((deadline_ms + 2000 * slow))
drip_s=$(( (hi_ms + 999) / 1000 + 2 ))	# past the latest cut: one still open shows as open
g=pvt$$g m=pvt$$m n=pvt$$n
mkgroup "$g"
mkuser "$m" "$g"
mkuser "$n"
cp "$bindir/tests/trust_drip" "$T/bin/drip" && chmod 755 "$T/bin/drip"
x=pvt-gx-$$ y=pvt-gy-$$
printf '[supervisor]\nsocket_group = %s\n' "$g" >"$T/g.ini"
start "$x" "$T/x" --config "$T/g.ini"
px=$sup_pid
start "$y" "$T/y" --config "$T/g.ini"
py=$sup_pid

mode() { stat -c '%a %G' "$1"; }
[ "$(mode "$T/x")" = "750 $g" ] || fail "state directory: $(mode "$T/x")"
[ "$(mode "/run/provisor/$x.status")" = "640 $g" ] || fail "segment: $(mode "/run/provisor/$x.status")"
[ "$(mode "$T/x/control.sock")" = "660 $g" ] || fail "socket: $(mode "$T/x/control.sock")"

as "$m" "$P" status --name "$x" >"$T/st" 2>&1 || { cat "$T/st"; fail "member: status"; }
grep -q "running" "$T/st" || fail "member's status: $(head -n 2 "$T/st")"
[ "$(as "$m" "$P" ping --name "$x")" = pong ] || fail "member: ping"
as "$m" "$P" submit --name "$x" --kind winning-post --log-size 8 --wait >"$T/sub" 2>&1 ||
  fail "member: submit --wait: $(cat "$T/sub")"
grep -q "done" "$T/sub" || fail "member's submit: $(cat "$T/sub")"
refused "Permission denied" as "$n" "$P" status --name "$x"
refused "Permission denied" as "$n" "$P" ping --name "$x"
refused "[Pp]ermission denied" as "$n" "$P" ping --socket "$T/x/control.sock"

# The member, told by a rewritten segment to use y's socket.
setpath "$x" "$T/y/control.sock"
refused "is served by pid $py \(uid 0\), not by $x's supervisor \(pid $px" as "$m" "$P" stop --name "$x"
"$P" ping --name "$y" >/dev/null || fail "$y stopped"
setpath "$x" "$T/x/control.sock"

# Slow drip: a member with 40 connections, and root's requests meanwhile
# (once drip has them all connected: they drip for the 5 s deadline).
as "$m" "$T/bin/drip" "$T/x/control.sock" 40 "$drip_s" >"$T/drip" 2>&1 &
dp=$!
for _ in $(seq $((100 * slow))); do grep -q '^connected' "$T/drip" && break; kill -0 "$dp" 2>/dev/null || break; sleep 0.1; done
grep -q '^connected 40$' "$T/drip" || fail "drip did not connect: $(cat "$T/drip")"
[ "$("$P" ping --name "$x")" = pong ] || fail "root's ping did not get through the drip"
wait "$dp"
echo "info: member: $(tr '\n' ' ' <"$T/drip")"
read -r _ opened _ refused_ _ closed _ open_ _ longest < <(grep '^opened' "$T/drip")
[ "$refused_" = 32 ] || fail "member: $refused_ of $opened refused, expected 32 over the per-uid cap"
grep -q "refusal: err busy: too many connections from this uid" "$T/drip" || fail "refusal: $(tail -n 1 "$T/drip")"
[ "$closed" = 8 ] && [ "$open_" = 0 ] || fail "member: $closed closed by the server, $open_ still open"
[ "$longest" -ge "$lo_ms" ] && [ "$longest" -le "$hi_ms" ] ||
  fail "member: a dripping request lived $longest ms, not $lo_ms..$hi_ms"

# Root's drippers: capped per uid as well, and cut at the deadline too.
"$T/bin/drip" "$T/x/control.sock" 24 "$drip_s" >"$T/drip" 2>&1
echo "info: root: $(tr '\n' ' ' <"$T/drip")"
read -r _ opened _ refused_ _ closed _ open_ _ longest < <(grep '^opened' "$T/drip")
[ "$refused_" = 16 ] && [ "$closed" = 8 ] || fail "root: $refused_ refused, $closed closed"
[ "$longest" -ge "$lo_ms" ] && [ "$longest" -le "$hi_ms" ] ||
  fail "root: a dripping request lived $longest ms, not $lo_ms..$hi_ms"

stop "$x" "$px"
stop "$y" "$py"
finish
