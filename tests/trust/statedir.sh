#!/usr/bin/env bash
# A root supervisor refuses a state directory that another user made or
# could change, with one line that says why, and creates nothing (no
# segment, no journal) when it does: a directory owned by another user,
# one writable by group or others (the issue's /tmp/x, 0777, with
# journal.tmp planted as a symlink to a root-owned file, which stays
# untouched), a parent owned by another user, the state directory given
# as a symlink, and a symlink owned by another user on the path. A
# directory of its own works.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
u=pvt$$u
mkuser "$u"
name=pvt-sd-$$
seg=/run/provisor/$name.status

run_refused() {  # run_refused PATTERN DIR
  refused "$1" "$P" run --name "$name" --state-dir "$2" --gpus 1 --synth 1 --backend cpu
  [ ! -e "$seg" ] || fail "a refused run left its segment"
  [ ! -e "$2/journal" ] || fail "a refused run wrote $2/journal"
}

mkdir -m 700 "$T/other" && chown "$u" "$T/other"
run_refused "state directory $T/other is owned by uid $(id -u "$u"), not by this supervisor's uid 0" "$T/other"

mkdir -m 770 "$T/gw"
run_refused "state directory $T/gw is writable by group or others \(mode 0770\)" "$T/gw"

echo "victim: root's file" >"$T/victim"
mkdir "$T/x" && chmod 777 "$T/x"
ln -s "$T/victim" "$T/x/journal.tmp"
run_refused "writable by group or others \(mode 0777\)" "$T/x"
[ "$(cat "$T/victim")" = "victim: root's file" ] || fail "the victim file was changed"
[ -L "$T/x/journal.tmp" ] || fail "the planted link was replaced"

mkdir "$T/up" && chown "$u" "$T/up" && mkdir -m 700 "$T/up/st"
run_refused "$T/up is owned by uid $(id -u "$u"), who could replace what is in it" "$T/up/st"

mkdir -m 700 "$T/real" && ln -s "$T/real" "$T/link"
run_refused "state directory $T/link is a symbolic link" "$T/link"

mkdir -m 1777 "$T/sticky" && mkdir -m 700 "$T/real2"
as "$u" ln -s "$T/real2" "$T/sticky/ulink" || fail "the user could not make its link"
run_refused "$T/sticky/ulink is a symbolic link owned by uid $(id -u "$u")" "$T/sticky/ulink/st"
[ ! -e "$T/real2/st" ] || fail "a refused run created a directory through the user's link"

# A state directory that does not exist yet is created, mode 0750, with
# each missing parent; then the supervisor runs.
start "$name" "$T/new/a/st"
[ "$(stat -c %a "$T/new/a/st")" = 750 ] || fail "new state directory mode $(stat -c %a "$T/new/a/st")"
[ "$(stat -c %a "$T/new/a")" = 750 ] || fail "new parent mode $(stat -c %a "$T/new/a")"
stop "$name" "$sup_pid"
finish
