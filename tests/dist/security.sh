#!/usr/bin/env bash
# The unit as `make install PREFIX=/usr` writes it scores at or below 3.0
# in `systemd-analyze security` (offline: no running systemd needed), and
# runs as the system user that the installed sysusers.d file makes.
#
# The method: the same parse of the same command must see a score above
# 3.0 for a copy that keeps only the unit's ExecStart, so a change in
# systemd-analyze's output cannot make this pass by reading nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
need_programs
command -v systemd-analyze >/dev/null || { echo "needs systemd-analyze"; exit 77; }
D=$T/root
dist_install "$D" /usr
unit=$D/lib/systemd/system/provisor@.service
[ -f "$unit" ] || { echo "FAIL: no $unit"; exit 1; }

# the overall exposure of unit file $1 (copied to $T/a/provisor@x.service)
score() {
  rm -rf "$T/a" && mkdir "$T/a" && cp "$1" "$T/a/provisor@x.service"
  systemd-analyze security --offline=yes "$T/a/provisor@x.service" >"$T/sec.out" 2>&1
  sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*/\1/p' "$T/sec.out" | tail -1
}
s=$(score "$unit")
[ -n "$s" ] || { fail "no overall exposure level in:"; sed 's/^/    /' "$T/sec.out"; }
if [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s > 3.0) }'; then
  fail "exposure $s is above 3.0:"
  grep '^✗' "$T/sec.out" | sed 's/^/    /'
fi

grep -E '^\[|^Type=|^ExecStart=' "$unit" | grep -v '^\[Install\]' >"$T/bare.service"
b=$(score "$T/bare.service")
[ -n "$b" ] && awk -v b="$b" 'BEGIN { exit !(b > 3.0) }' || fail "a bare unit scored '$b': the parse reads nothing"

grep -qx 'User=provisor' "$unit" || fail "the unit does not run as the user provisor"
grep -q 'SystemCallFilter=.*io_uring_setup io_uring_enter io_uring_register' "$unit" ||
  fail "the unit's SystemCallFilter does not allow io_uring"
grep -q 'SystemCallFilter=.*landlock_create_ruleset landlock_add_rule landlock_restrict_self' "$unit" ||
  fail "the unit's SystemCallFilter does not allow Landlock (the workers confine themselves with it)"
grep -q '^MemoryDenyWriteExecute=yes' "$unit" && fail "MemoryDenyWriteExecute would break CUDA's JIT"
su=$D/usr/lib/sysusers.d/provisor.conf
[ -f "$su" ] || fail "no $su"
grep -qE '^u provisor ' "$su" || fail "$su makes no user provisor"
echo "info: exposure $s (a unit with only ExecStart: $b)"
finish
