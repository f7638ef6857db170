#!/usr/bin/env bash
# provisor exporter against the fake supervisor: /metrics answers 200 with
# the Prometheus text (HELP/TYPE lines, provisor_supervisor_up 1, the same
# worker series as status --prometheus), any other path 404, and SIGTERM
# ends it with exit 0. Uses curl when installed, else bash's /dev/tcp.
set -u
bin=${BIN:-bin}
prov=$bin/provisor fake=$bin/tests/fakesup
[ -x "$prov" ] && [ -x "$fake" ] || { echo "no $prov or $fake: build first"; exit 77; }
name=t-exp-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-exp.XXXXXX")
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

# get PATH: "CODE" on the first line, then the body.
get() {
  if command -v curl >/dev/null; then
    curl -s -o "$dir/body" -w '%{http_code}\n' "http://127.0.0.1:$port$1"; cat "$dir/body"
  else
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET %s HTTP/1.0\r\nHost: x\r\n\r\n' "$1" >&3
    tr -d '\r' <&3 | awk 'NR == 1 { print $2; next } body { print } /^$/ { body = 1 }'
    exec 3<&-
  fi
}

"$fake" --name "$name" --gpus 3 --synth 2 --ready "$dir/ready" & fpid=$!
slow=${PROVISOR_TEST_SLOW:-1}	# tests/run.sh sets it
for _ in $(seq $((50 * slow))); do [ -e "$dir/ready" ] && break; sleep 0.1; done
"$prov" exporter --listen 127.0.0.1:0 --name "$name" >"$dir/out" 2>&1 & epid=$!
for _ in $(seq $((50 * slow))); do grep -q 'port [1-9]' "$dir/out" && break; sleep 0.1; done
port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$dir/out")
[ -n "$port" ] || { echo "exporter did not start: $(cat "$dir/out")"; exit 1; }

get /metrics >"$dir/m"
[ "$(head -1 "$dir/m")" = 200 ] || fail "/metrics: HTTP $(head -1 "$dir/m")"
grep -qx 'provisor_supervisor_up 1' "$dir/m" || fail "no provisor_supervisor_up 1"
grep -qx '# TYPE provisor_worker_busy_seconds_total counter' "$dir/m" || fail "no TYPE line"
grep -q '^provisor_worker_busy_seconds_total{slot="gpu.2",gpu="1"} ' "$dir/m" || fail "no gpu.2 busy seconds"
grep -q '^provisor_partitions_done_total ' "$dir/m" || fail "no partitions counter"
"$prov" status --name "$name" --prometheus | sed -n 's/^\(provisor_worker_state{[^}]*}\) .*/\1/p' | sort >"$dir/s1"
sed -n 's/^\(provisor_worker_state{[^}]*}\) .*/\1/p' "$dir/m" | sort >"$dir/s2"
cmp -s "$dir/s1" "$dir/s2" && [ -s "$dir/s1" ] || fail "exporter and status --prometheus have different series"
code=$(get /nope | head -1)
[ "$code" = 404 ] || fail "/nope: HTTP $code, expected 404"
kill -TERM "$epid"; wait "$epid"; rc=$?; epid=
[ "$rc" = 0 ] || fail "exporter exit $rc after SIGTERM"
[ "$fails" -eq 0 ] && echo "info: exporter on port $port: /metrics 200, 404 elsewhere, SIGTERM exit 0"
exit $((fails > 0))
