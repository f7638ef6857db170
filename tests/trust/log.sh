#!/usr/bin/env bash
# provisor log reads only a log it can trust (docs/security.md): root's
# log on a state directory another user owns is refused (it printed
# /etc/shadow through a planted STATE/log link), as is one writable by
# others; in a directory of its own, a log that is a symbolic link, a
# FIFO (it hung) or a device (/dev/zero streamed without end) is refused
# at once with one line; -f does not follow a link that replaces the log;
# and a --state-dir with ESC and BEL in it is echoed as \xNN, not raw.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
u=pvt$$l
mkuser "$u"
echo "SECRET root only" >"$T/secret" && chmod 600 "$T/secret"

# another user's directory, with the log a link to root's secret
mkdir -m 700 "$T/other" && ln -s "$T/secret" "$T/other/log" && chown -h "$u" "$T/other" "$T/other/log"
refused "state directory $T/other is owned by uid $(id -u "$u"), neither you \(uid 0\) nor root" \
  timeout 10 "$P" log --state-dir "$T/other"
grep -q SECRET "$T/out" && fail "log printed the secret through another user's link"

mkdir -m 777 "$T/open" && echo "a line" >"$T/open/log"
refused "state directory $T/open is writable by group or others" timeout 10 "$P" log --state-dir "$T/open"

# a directory of root's own: a link, a FIFO, a device as its log
mkdir -m 700 "$T/link" && ln -s "$T/secret" "$T/link/log"
refused "$T/link/log: is a symbolic link, not a regular file" timeout 10 "$P" log --state-dir "$T/link"
mkdir -m 700 "$T/fifo" && mkfifo "$T/fifo/log"
refused "$T/fifo/log: not a regular file \(a FIFO\)" timeout 10 "$P" log --state-dir "$T/fifo"
mkdir -m 700 "$T/dev" && mknod "$T/dev/log" c 1 5	# /dev/zero
refused "$T/dev/log: not a regular file \(a device\)" timeout 10 "$P" log --state-dir "$T/dev"

# a good one prints; -f, when a link replaces the log, stops with one line
mkdir -m 700 "$T/good" && echo "first line" >"$T/good/log"
[ "$(timeout 10 "$P" log --state-dir "$T/good")" = "first line" ] || fail "log of a good directory"
timeout 20 "$P" log --state-dir "$T/good" -f >"$T/follow" 2>"$T/follow.err" & fpid=$!
for _ in $(seq 50); do [ -s "$T/follow" ] && break; sleep 0.1; done
ln -s "$T/secret" "$T/good/log.new" && mv -T "$T/good/log.new" "$T/good/log"
wait "$fpid"; rc=$?
[ "$rc" = 1 ] || fail "log -f exit $rc after the log became a link, expected 1"
grep -q SECRET "$T/follow" && fail "log -f followed the link to the secret"
[ "$(wc -l <"$T/follow.err")" = 1 ] && grep -q "is a symbolic link" "$T/follow.err" ||
  fail "log -f: stderr $(cat "$T/follow.err")"

# the argument echoed: ESC and BEL as \x1b and \x07
timeout 10 "$P" log --state-dir "$T/no"$'\e[2J\a' >"$T/out" 2>"$T/err"
LC_ALL=C grep -q $'[\x1b\x07]' "$T/err" && fail "log wrote ESC or BEL raw: $(od -c "$T/err" | head -3)"
grep -qF 'no\x1b[2J\x07' "$T/err" || fail "log did not show the bytes as \\xNN: $(cat "$T/err")"
finish
