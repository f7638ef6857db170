#!/usr/bin/env bash
# make demo: a supervisor with its workers on this machine (CUDA when a GPU
# answers, else the CPU backend), fed a realistic mix of jobs, watched live.
#   a steady stream of snap-deals and porep, a winning-post every few
#   seconds, a window-post now and then.
# On a terminal the live view is `provisor top` (q ends the demo);
# otherwise `provisor top --once` every few seconds for DEMO_SECONDS.
# porep runs with Groth16 params (k = 12, a setup from a seed: not secure,
# demo only), so its jobs end in proofs, each checked by the pairing
# before its job commits; the other kinds end in their H polynomials.
# Then every result is verified (proofs with the params' verifying key, H
# by re-synthesis), a tampered proof and a tampered H are shown refused,
# one partition gets a standalone proof (prove, verify, a forged label
# refused), and the supervisor is stopped: no process, socket or segment
# is left behind.
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
  rm -rf "$state" "$state.log" "$state.params" "$state.conf"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

params=$state.params
"$bin/provisor" setup --seed de30 --log-size 12 -o "$params" >/dev/null
printf '[kind.porep]\nlog_size = 12\nparams = %s\n' "$params" >"$state.conf"
"$bin/provisor" run --name "$name" --state-dir "$state" --config "$state.conf" 2>"$state.log" &
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
ok=0 nproofs=0 proofsfile= hfile=
for r in "${results[@]}"; do
  if [ "$(od -An -tu4 -j12 -N4 "$r" | tr -d ' ')" = 4 ]; then	# a proofs file (docs/formats.md)
    proofsfile=$r
    if out=$("$bin/provisor" verify --params "$params" "$r"); then
      ok=$((ok + 1)); nproofs=$((nproofs + $(grep -c ': ok$' <<<"$out")))
    else echo "  FAILED: $r"; fi
  else
    hfile=$r
    if "$bin/provisor" verify "$r" >/dev/null; then ok=$((ok + 1)); else echo "  FAILED: $r"; fi
  fi
done
echo "  $ok of ${#results[@]} job results verified ($nproofs porep proofs among them, 376 bytes each)"
if [ -n "$proofsfile" ]; then
  echo "a porep job's proofs ($(stat -c %s "$proofsfile") bytes), as provisor result prints them:"
  id=${proofsfile##*job-}; id=${id%.result}
  "$bin/provisor" result --name "$name" "$id" | sed -n '2,3p' | cut -c1-110 | sed 's/^/  /; s/$/.../'
  t="$state/tampered-proofs.result"
  cp "$proofsfile" "$t"
  printf '\x01' | dd of="$t" bs=1 seek=$((80 + 152 + 20)) conv=notrunc status=none
  echo "a copy with one byte of partition 0's proof changed:"
  "$bin/provisor" verify --params "$params" "$t" 2>&1 | grep -v ': ok$' | sed 's/^/  /' || true
  # a forger's copy: partition 1's valid proof put in partition 0's place,
  # its digest and the file's checksum recomputed (docs/formats.md)
  P=$(od -An -tu4 -j56 -N4 "$proofsfile" | tr -d ' ')
  put() { printf "$(echo "$2" | sed 's/../\\x&/g')" | dd of="$t" bs=1 seek="$1" conv=notrunc status=none; }
  cp "$proofsfile" "$t"
  dd if="$proofsfile" of="$t" bs=1 skip=$((80 + 376)) seek=80 count=376 conv=notrunc status=none
  put $((80 + P * 376)) "$(dd if="$t" bs=1 skip=80 count=376 status=none | b2sum -l 256 | cut -d' ' -f1)"
  put $((80 + P * 408)) "$( { head -c 80 "$t"; dd if="$t" bs=1 skip=$((80 + P * 376)) count=$((P * 32)) status=none; } |
                           b2sum -l 256 | cut -d' ' -f1)"
  echo "a forger's copy (partition 1's proof in partition 0's place, every digest recomputed):"
  "$bin/provisor" verify --params "$params" "$t" 2>&1 | grep -v ': ok$' | sed 's/^/  /' || true
fi
if [ -n "$hfile" ]; then
  t="$state/tampered.result"
  cp "$hfile" "$t"
  printf '\x01' | dd of="$t" bs=1 seek=200 conv=notrunc status=none
  echo "an H result with one byte changed:"
  "$bin/provisor" verify "$t" 2>&1 | sed 's/^/  /' || true
fi
echo
echo "a standalone Groth16 proof of one partition (the same params):"
g16=0
cp "$params" "$state/g16.params" &&
"$bin/provisor" synth --seed de30 --partition 0 --log-size 12 -o "$state/part" &&
"$bin/provisor" prove -i "$state/part" --params "$state/g16.params" -o "$state/proof" --backend cpu 2>/dev/null | sed 's/^/  /' &&
"$bin/provisor" verify --params "$state/g16.params" "$state/proof" | sed 's/^/  /' || g16=1
# relabel it as partition 1 and recompute its checksum, as a forger would
cp "$state/proof" "$state/proof.bad" 2>/dev/null && printf '\x01' | dd of="$state/proof.bad" bs=1 seek=16 conv=notrunc status=none &&
  sum=$(head -c 344 "$state/proof.bad" | b2sum -l 256 | cut -d' ' -f1) &&
  printf "$(echo "$sum" | sed 's/../\\x&/g')" | dd of="$state/proof.bad" bs=1 seek=344 conv=notrunc status=none &&
  echo "  the same proof relabelled as partition 1 (checksum recomputed):" &&
  { "$bin/provisor" verify --params "$state/g16.params" "$state/proof.bad" 2>&1 | sed 's/^/    /' || true; }
"$bin/provisor" stop --name "$name" >/dev/null
wait "$sup" || true
sup=
rm -f "$state.log"
left=$(ls /run/provisor /dev/shm "${XDG_RUNTIME_DIR:-/nonexistent}/provisor" 2>/dev/null | grep -c "^$name\.status\|provisor\.$name" || true)
echo "stopped: $left status segment(s) left, $(pgrep -f "instance $name" | wc -l) worker(s) left"
[ ${#results[@]} -eq "$ok" ] && [ $g16 -eq 0 ] && [ "$nproofs" -gt 0 ]
