#!/usr/bin/env bash
# The systemd unit as `make install PREFIX=/usr DESTDIR=D` writes it:
# its paths are the installed ones, and systemd-analyze verify passes.
#
# verify checks that ExecStart's binary exists, on the live filesystem
# (--root= would look for sysinit.target and the rest of systemd's units
# inside D too, which a DESTDIR does not have). So the check runs on a copy
# of the installed unit that differs only in ExecStart's prefix, pointed
# at D/usr; Documentation=man: pages are looked up with MANPATH set to
# D's, so they must be installed where the unit says. The installed unit
# itself is checked to name PREFIX's paths.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
need_programs
command -v systemd-analyze >/dev/null || { echo "needs systemd-analyze"; exit 77; }
D=$T/root
dist_install "$D" /usr
unit=$D/lib/systemd/system/provisor@.service
[ -f "$unit" ] || { echo "FAIL: no $unit"; find "$D" | sed 's/^/    /'; exit 1; }
grep -q '@[A-Z]*@' "$unit" && fail "unsubstituted template variables: $(grep '@[A-Z]*@' "$unit")"
exec=$(sed -n 's/^ExecStart=//p' "$unit")
case $exec in
  "/usr/bin/provisor run --name %i "*) ;;
  *) fail "ExecStart is '$exec', expected /usr/bin/provisor run --name %i ..." ;;
esac
[ -x "$D/usr/bin/provisor" ] || fail "ExecStart's binary is not installed at $D/usr/bin/provisor"

mkdir "$T/check"
sed "s|^ExecStart=/usr/|ExecStart=$D/usr/|" "$unit" >"$T/check/provisor@.service"
[ "$(diff "$unit" "$T/check/provisor@.service" | grep -c '^[<>]')" -eq 2 ] || fail "the copy differs in more than ExecStart"
verify() { MANPATH=$D/usr/share/man systemd-analyze verify "$T/check/provisor@.service" >"$T/v.out" 2>&1; }
verify || { fail "systemd-analyze verify failed:"; sed 's/^/    /' "$T/v.out"; }
# The method: the same check must fail once the binary is not there.
mv "$D/usr/bin/provisor" "$T/provisor.moved"
verify && fail "systemd-analyze verify passed without the binary: it checks nothing here"
grep -q 'is not executable' "$T/v.out" || fail "unexpected complaint without the binary: $(cat "$T/v.out")"
echo "info: $(systemd-analyze --version | head -1)"
finish
