#!/usr/bin/env bash
# provisor exporter under abuse (docs/metrics.md): with 1,000 slow clients
# from 40 addresses dripping a byte each 200 ms, every scrape from another
# address is answered 200 (the connection cap ends the oldest waiting
# connection, not the scrape), and every dripper is ended although it kept
# sending (a whole-request deadline, not an idle timeout each byte
# restarts); 100 from one address hold at most 32 connections (the
# per-address cap); and a bare :PORT listens on 127.0.0.1 only.
set -u
bin=${BIN:-bin}
prov=$bin/provisor fake=$bin/tests/fakesup drip=$bin/tests/tui_httpdrip
[ -x "$prov" ] && [ -x "$fake" ] && [ -x "$drip" ] || { echo "no $prov, $fake or $drip: build first"; exit 77; }
name=t-expab-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-expab.XXXXXX")
fpid= epid=
cleanup() {
  [ -n "$epid" ] && kill "$epid" 2>/dev/null
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null
  wait 2>/dev/null
  rm -f "/run/provisor/$name.status"; rm -rf "$dir"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# field FILE LINE KEY: the number after KEY on httpdrip's line LINE
field() { awk -v l="$2" -v k="$3" '$1 == l { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }

"$fake" --name "$name" --gpus 2 --synth 1 --ready "$dir/ready" & fpid=$!
slow=${PROVISOR_TEST_SLOW:-1}	# tests/run.sh sets it
for _ in $(seq $((50 * slow))); do [ -e "$dir/ready" ] && break; sleep 0.1; done
"$prov" exporter --listen :0 --name "$name" --request-deadline 2 >"$dir/out" 2>"$dir/err" & epid=$!
for _ in $(seq $((50 * slow))); do grep -q 'port [1-9]' "$dir/out" && break; sleep 0.1; done
port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$dir/out")
[ -n "$port" ] || { echo "exporter did not start: $(cat "$dir/out" "$dir/err")"; exit 1; }

# a bare :PORT is the loopback, as the exporter says and the kernel shows
grep -q 'listening on 127\.0\.0\.1 (port' "$dir/out" || fail ":PORT: $(cat "$dir/out")"
if command -v ss >/dev/null; then
  listen=$(ss -Hltn "sport = :$port" | awk '{ print $4 }')
  [ "$listen" = "127.0.0.1:$port" ] || fail ":PORT listens on '$listen', not 127.0.0.1:$port"
fi

# 100 from one address for 1 s (under the deadline): at most 32 held
"$drip" "$port" 100 1 1 >"$dir/one"; rc=$?
[ "$rc" = 77 ] && { tail -1 "$dir/one"; exit 77; }
[ "$rc" = 0 ] || fail "httpdrip (one address) exit $rc"
open=$(field "$dir/one" drippers open)
[ -n "$open" ] && [ "$open" -le 32 ] && [ "$open" -ge 1 ] || fail "one address holds $open connections, expected 1 to 32"
[ "$(field "$dir/one" scrapes ok)" = "$(field "$dir/one" scrapes scrapes)" ] || fail "one address: $(cat "$dir/one")"

# 1,000 from 40 addresses for 4 s (twice the deadline)
"$drip" "$port" 1000 40 4 >"$dir/many"; rc=$?
[ "$rc" = 0 ] || fail "httpdrip (1,000) exit $rc"
scrapes=$(field "$dir/many" scrapes scrapes) ok=$(field "$dir/many" scrapes ok)
[ -n "$scrapes" ] && [ "$scrapes" -ge 4 ] || fail "only '$scrapes' scrapes ran"
[ "$ok" = "$scrapes" ] || fail "$ok of $scrapes scrapes answered under 1,000 drippers: $(grep failure "$dir/many")"
[ "$(field "$dir/many" drippers open)" = 0 ] || fail "drippers outlived the 2 s deadline: $(grep drippers "$dir/many")"
# libmicrohttpd's refusals are not a line each
[ "$(wc -l <"$dir/err")" -le 20 ] || fail "$(wc -l <"$dir/err") lines on stderr under abuse"

kill -TERM "$epid"; wait "$epid"; rc=$?; epid=
[ "$rc" = 0 ] || fail "exporter exit $rc after SIGTERM"
[ "$fails" -eq 0 ] && echo "info: one address: $(grep drippers "$dir/one"); 1,000 drippers: scrapes $ok of $scrapes answered, $(grep drippers "$dir/many")"
exit $((fails > 0))
