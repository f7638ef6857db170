#!/usr/bin/env bash
# make bench: provisor top's own cost while it watches a busy rig. A fake
# supervisor (bin/tests/fakesup) keeps 64 GPU and 32 synth slots busy;
# top runs at its default refresh (0.5 s) in an 80x24 tmux pane, under
# script(1), which records every byte top writes to the terminal. Prints
# top's CPU time (getrusage of the child, via bash's `times`) over the run
# as a share of one core, and its steady-state output in KB/s, beside
# htop's anchor (~0.2% of a core, ~0.5 KB/s at 80x24 on a 1.5 s refresh).
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null) fake=$(realpath "$bin/tests/fakesup" 2>/dev/null)
secs=${TOP_BENCH_SECONDS:-20}
[ -x "$prov" ] && [ -x "$fake" ] || { echo "top_bench: build bin/provisor and bin/tests/fakesup first"; exit 1; }
for t in tmux script; do command -v $t >/dev/null || { echo "top_bench: skipped, $t not installed"; exit 0; }; done
name=b-top-$$ sock=provisor-bench-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-topbench.XXXXXX")
T() { tmux -L "$sock" -f /dev/null "$@"; }
fpid=
cleanup() { T kill-server 2>/dev/null; [ -n "$fpid" ] && kill "$fpid" 2>/dev/null; wait 2>/dev/null
            rm -f "/run/provisor/$name.status"; rm -rf "$dir"; }
trap cleanup EXIT

"$fake" --name "$name" --gpus 64 --synth 32 --min-ms 300 --max-ms 900 --ready "$dir/ready" & fpid=$!
for _ in $(seq 50); do [ -e "$dir/ready" ] && break; sleep 0.1; done
cat >"$dir/inner.sh" <<IN
#!/bin/bash
TERM=xterm-256color "$prov" top --name "$name"
times >"$dir/times"
IN
chmod +x "$dir/inner.sh"
T new-session -d -s b -x 80 -y 24 "script -q -f -c $dir/inner.sh $dir/ts >/dev/null"
sleep 3	# warm up: the first frames draw the whole screen
b0=$(stat -c %s "$dir/ts"); t0=$(date +%s.%N)
sleep "$secs"
b1=$(stat -c %s "$dir/ts"); t1=$(date +%s.%N)
busy=$("$prov" status --name "$name" --prometheus | grep -c '^provisor_worker_busy{.*} 1$')
T send-keys -t b q
for _ in $(seq 50); do [ -s "$dir/times" ] && break; sleep 0.1; done
[ -s "$dir/times" ] || { echo "top_bench: top did not report its times"; exit 1; }
# `times` line 2: children's user and system time, e.g. "0m0.052s 0m0.031s".
cpu=$(sed -n 2p "$dir/times" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /m|s/); n += a[1] * 60 + a[2] } print n }')
awk -v cpu="$cpu" -v b="$((b1 - b0))" -v t0="$t0" -v t1="$t1" -v secs="$secs" -v busy="$busy" 'BEGIN {
  wall = secs + 3.2
  printf "top_bench: 64 GPU + 32 synth slots (%d busy at the end), refresh 0.5 s, 80x24, %.0f s\n", busy, wall
  printf "  CPU:    %.3f%% of one core   (htop: ~0.2%% at 1.5 s refresh)\n", 100 * cpu / wall
  printf "  output: %.2f KB/s steady state (htop: ~0.5 KB/s at 80x24)\n", b / (t1 - t0) / 1000
}'
