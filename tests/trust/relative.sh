#!/usr/bin/env bash
# A relative --state-dir is made absolute (and '.', '..' and doubled
# slashes taken out) before anything is published: clients in another
# directory reach the instance, its published socket is absolute, and
# its jobs' result paths are too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
name=pvt-rel-$$
mkdir -m 700 "$T/cwd"
cd "$T/cwd" || exit 1
start "$name" "./x/..//st/."
pid=$sup_pid
cd / || exit 1
"$P" ping --name "$name" >/dev/null || fail "a client in / cannot reach the instance"
path=$(tr '\0' '\n' <"/run/provisor/$name.status" | grep -a -m1 'control.sock$')
[ "$path" = "$T/cwd/st/control.sock" ] || fail "published socket '$path', expected $T/cwd/st/control.sock"
out=$("$P" submit --name "$name" --kind winning-post --log-size 8 --wait) || fail "submit: $out"
case $out in *"done: $T/cwd/st/results/job-1.result") ;; *) fail "result path in '$out'" ;; esac
[ ! -e "$T/cwd/x" ] || fail "the lexical '..' created $T/cwd/x"
stop "$name" "$pid"
finish
