#!/usr/bin/env bash
# The man pages: provisor(1) and provisor.conf(5) render with man -l
# without a warning (groff's, through man --warnings), and they say what
# the code says: every command and every long option that `provisor CMD
# --help` prints is in provisor(1), and every configuration key of
# conf/conf.c's tables is in provisor.conf(5), in docs/config.md and in
# the example configuration.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v man >/dev/null || { echo "needs man (man-db)"; exit 77; }
command -v groff >/dev/null || command -v nroff >/dev/null || { echo "needs groff"; exit 77; }

# render PAGE: its text in $T/out, man's and groff's complaints in $T/err.
render() { MANWIDTH=80 man --warnings -l "$1" >"$T/out" 2>"$T/err"; }

# The method first: a page with a mistake in it must give a warning here.
printf '.TH X 1\n.SH NAME\nx \\- y\n.XYZZY\n\\fBunclosed \\*Q\n' >"$T/bad.1"
render "$T/bad.1"
[ -s "$T/err" ] || fail "a broken page gave no warning: the check below would see nothing"

for page in man/provisor.1 man/provisor.conf.5; do
  render "$top/$page" || fail "$page: man exited $?"
  [ -s "$T/err" ] && { fail "$page: warnings:"; sed 's/^/    /' "$T/err"; }
  [ "$(grep -c . "$T/out")" -gt 50 ] || fail "$page: rendered only $(grep -c . "$T/out") lines"
  grep -q '^NAME' "$T/out" && grep -q '^SEE ALSO' "$T/out" || fail "$page: no NAME or SEE ALSO section"
  cp "$T/out" "$T/$(basename "$page").txt"
done
p1=$T/provisor.1.txt p5=$T/provisor.conf.5.txt

# Every command, and each one's long options, from the program itself.
[ -x "$bin/provisor" ] || { echo "no $bin/provisor: build it first"; exit 77; }
cmds=$("$bin/provisor" --help | sed -n 's/^  provisor \([a-z-]*\).*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 10 ] || fail "provisor --help lists only: $cmds"
for c in $cmds; do
  grep -qE "^ {7}provisor +$c( |$)" "$p1" || fail "provisor(1) has no synopsis line for '$c'"
  [ "$c" = version ] && continue
  for o in $("$bin/provisor" "$c" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" "$p1" || fail "provisor(1) does not mention $c's option $o"
  done
done

# Every key of the configuration tables.
keys=$(sed -n 's/^\tCK_\(NUM\|FIELD\|SET\)("\([a-z_]*\)".*/\2/p' "$top/conf/conf.c" | sort -u)
[ "$(echo "$keys" | wc -w)" -ge 20 ] || fail "found only these keys in conf/conf.c: $keys"
for k in $keys; do
  grep -qE "^ {7}$k = " "$p5" || fail "provisor.conf(5) does not describe key $k"
  grep -q "^| \`$k\` |" "$top/docs/config.md" || fail "docs/config.md has no row for key $k"
  grep -qE "^;$k =" "$top/dist/provisor.conf.example" || fail "the example configuration lacks key $k"
done
echo "info: $(echo "$cmds" | wc -w) commands, $(echo "$keys" | wc -w) keys checked"
finish
