#!/usr/bin/env bash
# bench/plugin.sh: what the backend plugin ABI costs (issue 22). Proofs
# per minute of porep with params at k = PLUGIN_K (default 16) through
# bin/plugins/cpu.so against the built-in cpu backend, in this run: two
# rigs of the same shape (1 GPU x 2 worker slots, 2 synths), each with
# its own state, run side by side but never loaded at once: one porep job
# of PLUGIN_PARTS partitions (default 8) at a time, alternating built-in,
# plugin, built-in, ... for PLUGIN_ROUNDS rounds (default 3), so that a
# drift in the machine's load falls on both. Prints each backend's
# proofs/min over all its rounds and the ratio plugin / built-in (the
# target: >= 0.98). Every job's proofs are verified (outside the timing).
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null)
so=$(realpath "$bin/plugins/cpu.so" 2>/dev/null)
[ -x "$prov" ] && [ -f "$so" ] || { echo "plugin: build bin/provisor and bin/plugins/cpu.so first (make programs)"; exit 1; }
k=${PLUGIN_K:-16} P=${PLUGIN_PARTS:-8} rounds=${PLUGIN_ROUNDS:-3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-plugin.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  [ -n "${KEEP:-}" ] && { echo "kept $dir"; return; }
  rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s.%N; }

"$prov" setup --seed 5eed --log-size "$k" -o "$dir/params" >/dev/null || { echo "plugin: setup failed"; exit 1; }
cat >"$dir/conf" <<EOF2
[kind.porep]
log_size = $k
partitions = $P
params = $dir/params
EOF2
start() {  # NAME BACKEND
  "$prov" run --config "$dir/conf" --name "$1" --state-dir "$dir/$1" --gpus 1 --workers-per-gpu 2 \
    --synth 2 --backend "$2" >"$dir/$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 600); do "$prov" ping --name "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "plugin: rig $1 did not start"; cat "$dir/$1.log"; exit 1
}
a=plugin-builtin-$$ b=plugin-so-$$
start "$a" cpu
start "$b" "plugin:$so"
sleep 1	# both rigs' workers map their params
declare -A secs=([$a]=0 [$b]=0) jobs=([$a]=0 [$b]=0)
for r in $(seq "$rounds"); do
  for n in "$a" "$b"; do
    t0=$(now)
    out=$("$prov" submit --name "$n" --kind porep --seed "$(printf %04x "$r")" --wait 2>&1)
    t1=$(now)
    case "$out" in *done*) ;; *) echo "plugin: a job on $n did not finish: $out"; exit 1 ;; esac
    jobs[$n]=$((${jobs[$n]} + 1))
    "$prov" verify --params "$dir/params" "$dir/$n/results/job-${jobs[$n]}.result" >/dev/null 2>&1 ||
      { echo "plugin: job ${jobs[$n]} on $n: ITS PROOFS DO NOT VERIFY"; exit 1; }
    secs[$n]=$(awk -v s="${secs[$n]}" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", s + b - a }')
  done
done
grep -q "backend plugin cpu-plugin" "$dir/$b.log" || { echo "plugin: the plugin rig did not load cpu.so"; exit 1; }
awk -v k="$k" -v P="$P" -v r="$rounds" -v ta="${secs[$a]}" -v tb="${secs[$b]}" -v c="$(nproc)" 'BEGIN {
  pa = 60 * P * r / ta; pb = 60 * P * r / tb
  printf "plugin: porep k=%d, %d x %d partitions each, %d cores, 2 GPU slots, 2 synths, every proof verified\n", k, r, P, c
  printf "  built-in cpu %.1f proofs/min (%.2f s)  cpu.so %.1f proofs/min (%.2f s)  plugin / built-in = %.3f x (target >= 0.98)\n", \
    pa, ta, pb, tb, pb / pa }'
