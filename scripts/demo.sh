#!/usr/bin/env bash
# make demo: a supervisor with its workers on this machine (CUDA when a GPU
# answers, else the CPU backend), fed a realistic mix of jobs, watched live.
#   a steady stream of snap-deals and porep, a winning-post every few
#   seconds, a window-post now and then.
# On a terminal the live view is `provisor top` (q ends the demo);
# otherwise `provisor top --once` every few seconds for DEMO_SECONDS.
# Then every result is verified, a tampered one is shown refused, one
# partition gets a whole Groth16 proof (setup, prove, verify, a forged
# label refused), and the supervisor is stopped: no process, socket or
# segment is left behind.
set -euo pipefail
bin=${BIN:-bin}
secs=${DEMO_SECONDS:-20}
name=demo-$$
state=$(mktemp -d "${TMPDIR:-/tmp}/provisor-demo.XXXXXX")
sup=
feeder=

cleanup() {
  [ -n "$feeder" ] && kill "$feeder" 2>/dev/null && wait "$feeder" 2>/dev/null
  if [ -n "$sup" ] && kill -0 "$sup" 2>/dev/null; then
    "$bin/provisor" stop --name "$name" >/dev/null 2>&1 || kill "$sup" 2>/dev/null
    wait "$sup" 2>/dev/null || true
  fi
  rm -rf "$state" "$state.log"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$bin/provisor" run --name "$name" --state-dir "$state" 2>"$state.log" &
sup=$!
for _ in $(seq 100); do
  "$bin/provisor" ping --name "$name" >/dev/null 2>&1 && break
  sleep 0.1
done
"$bin/provisor" ping --name "$name" >/dev/null || { cat "$state.log"; exit 1; }

submit() { "$bin/provisor" submit --name "$name" --kind "$1" >/dev/null 2>&1 || true; }
feed() {
  local t=0
  while :; do
    submit snap-deals
    submit porep
    (( t % 6 == 0 )) && submit winning-post
    (( t % 15 == 7 )) && submit window-post
    t=$((t + 1))
    sleep 1
  done
}
feed &
feeder=$!

if [ -t 1 ] && [ -z "${DEMO_NO_TUI:-}" ]; then
  echo "provisor demo: starting the live view; press q to end the demo"
  sleep 1
  "$bin/provisor" top --name "$name" || true
else
  end=$((SECONDS + secs))
  while [ $SECONDS -lt $end ]; do
    clear 2>/dev/null || true
    "$bin/provisor" top --once --name "$name" | head -n 40
    sleep 3
  done
fi

kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null || true
feeder=
echo
echo "verifying every result written so far:"
shopt -s nullglob
results=("$state"/results/*.result)
ok=0
for r in "${results[@]}"; do
  if "$bin/provisor" verify "$r" >/dev/null; then ok=$((ok + 1)); else echo "  FAILED: $r"; fi
done
echo "  $ok of ${#results[@]} job results verified"
if [ ${#results[@]} -gt 0 ]; then
  t="$state/tampered.result"
  cp "${results[0]}" "$t"
  printf '\x01' | dd of="$t" bs=1 seek=200 conv=notrunc status=none
  echo "a copy with one byte changed:"
  "$bin/provisor" verify "$t" 2>&1 | sed 's/^/  /' || true
fi
echo
echo "a Groth16 proof of one partition (k=12, setup from a seed: not secure, demo only):"
g16=0
"$bin/provisor" setup --seed de30 --log-size 12 -o "$state/params" | sed 's/^/  /' &&
"$bin/provisor" synth --seed de30 --partition 0 --log-size 12 -o "$state/part" &&
"$bin/provisor" prove -i "$state/part" --params "$state/params" -o "$state/proof" --backend cpu 2>/dev/null | sed 's/^/  /' &&
"$bin/provisor" verify --params "$state/params" "$state/proof" | sed 's/^/  /' || g16=1
# relabel it as partition 1 and recompute its checksum, as a forger would
cp "$state/proof" "$state/proof.bad" 2>/dev/null && printf '\x01' | dd of="$state/proof.bad" bs=1 seek=16 conv=notrunc status=none &&
  sum=$(head -c 344 "$state/proof.bad" | b2sum -l 256 | cut -d' ' -f1) &&
  printf "$(echo "$sum" | sed 's/../\\x&/g')" | dd of="$state/proof.bad" bs=1 seek=344 conv=notrunc status=none &&
  echo "  the same proof relabelled as partition 1 (checksum recomputed):" &&
  { "$bin/provisor" verify --params "$state/params" "$state/proof.bad" 2>&1 | sed 's/^/    /' || true; }
"$bin/provisor" stop --name "$name" >/dev/null
wait "$sup" || true
sup=
rm -f "$state.log"
left=$(ls /run/provisor /dev/shm "${XDG_RUNTIME_DIR:-/nonexistent}/provisor" 2>/dev/null | grep -c "^$name\.status\|provisor\.$name" || true)
echo "stopped: $left status segment(s) left, $(pgrep -f "instance $name" | wc -l) worker(s) left"
[ ${#results[@]} -eq "$ok" ] && [ $g16 -eq 0 ]
