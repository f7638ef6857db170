#!/usr/bin/env bash
# A supervisor run as a service user, as the packaged unit runs it
# (dist/provisor@.service.in: User=provisor, RuntimeDirectory=provisor,
# no XDG_RUNTIME_DIR): its segment goes in /run/provisor, which root gave
# to that user, so root and a socket_group member find the instance by
# name (status, submit --wait) as they find root's; a user who is neither
# is still refused. /run/provisor's owner is put back afterwards.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
g=pvt$$g u=pvt$$u m=pvt$$m o=pvt$$o
mkgroup "$g"
mkuser "$u" "$g"
mkuser "$m" "$g"
mkuser "$o"
had_dir=0 old_owner=
if [ -d /run/provisor ]; then had_dir=1 old_owner=$(stat -c '%u:%g' /run/provisor); else mkdir -m 0755 /run/provisor; fi
restore() {
  if [ "$had_dir" = 1 ]; then chown "$old_owner" /run/provisor; else rm -rf /run/provisor; fi
  t_cleanup
}
trap restore EXIT
chown "$u" /run/provisor
x=pvt-svc-$$
t_names+=("$x")
mkdir -m 0750 "$T/x" && chown "$u" "$T/x"
printf '[supervisor]\nsocket_group = %s\n' "$g" >"$T/g.ini" && chmod 644 "$T/g.ini"
as "$u" "$P" run --name "$x" --state-dir "$T/x" --config "$T/g.ini" --gpus 1 --workers-per-gpu 1 \
  --synth 1 --backend cpu >"$T/x.log" 2>&1 &
sp=$!
t_sups+=("$sp")
for _ in $(seq 100); do "$P" ping --name "$x" >/dev/null 2>&1 && break; kill -0 "$sp" 2>/dev/null || break; sleep 0.1; done
[ "$("$P" ping --name "$x" 2>&1)" = pong ] || { cat "$T/x.log"; fail "root cannot reach the service user's instance by name"; exit 1; }
[ "$(stat -c '%U %a' "/run/provisor/$x.status")" = "$u 640" ] ||
  fail "segment: $(stat -c '%U %a' "/run/provisor/$x.status" 2>&1)"
"$P" status --name "$x" >"$T/st" 2>&1 && grep -q running "$T/st" || fail "root: status: $(head -n 3 "$T/st")"
as "$m" "$P" submit --name "$x" --kind winning-post --log-size 8 --wait >"$T/sub" 2>&1 &&
  grep -q done "$T/sub" || fail "member: submit --wait: $(cat "$T/sub")"
refused "Permission denied" as "$o" "$P" status --name "$x"
"$P" stop --name "$x" >/dev/null || fail "root: stop"
wait "$sp" || fail "the service user's supervisor exited $?"
[ -e "/run/provisor/$x.status" ] && fail "its segment is left behind"
finish
