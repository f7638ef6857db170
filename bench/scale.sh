#!/usr/bin/env bash
# make bench: the supervisor at real partition sizes (issue 11). For each k
# (16, 20, 22, 24 by default; SCALE_KS overrides) and each shape (1 synth +
# 1 gpu slot, then 2 + 2), one porep job runs through a CPU-backend rig
# while a sampler reads /proc every 100 ms and a client pings the control
# socket every 20 ms over one connection it keeps open. Printed per run:
#   wall      the job's time from submit to done, against the ideal: the
#             standalone `provisor synth` and `provisor prove` of one
#             partition, timed in this same run, pipelined over the slots
#             (and never faster than the work spread over the cores)
#   sup/gw    the supervisor's CPU time as a share of the gpuworkers'
#   RSS       peak (VmHWM) of the supervisor, the synth and the gpuworker
#   loop      the supervisor's own record of its iterations: max and p99
#   rtt       control round trips: p50, p99, max
# A k whose run would not fit in memory is skipped with a message.
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null) rtt=$(realpath "$bin/bench/ctl-rtt" 2>/dev/null)
[ -x "$prov" ] && [ -x "$rtt" ] || { echo "scale: build bin/provisor and bin/bench/ctl-rtt first"; exit 1; }
ks=${SCALE_KS:-16 20 22 24}
shapes=${SCALE_SHAPES:-1+1 2+2}
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-scale.XXXXXX")
sup= samp= rttp=
cleanup() {
  for p in $rttp $samp; do kill "$p" 2>/dev/null; done
  [ -n "$sup" ] && { kill "$sup" 2>/dev/null; wait "$sup" 2>/dev/null; }
  rm -rf "$dir"
}
trap cleanup EXIT
ncores=$(nproc)
mem_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)

now() { date +%s.%N; }
# json_num KEY: the number after "KEY": in the last status --json.
json_num() { grep -o "\"$1\": *[0-9.e+-]*" "$dir/json" | head -1 | sed 's/.*: *//'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }

. "$(dirname "$0")/lib.sh"	# sample

# cpu_of CMD...: run it; print its wall time and its CPU time (user +
# system, from bash's `times` in a subshell that ran only it).
cpu_of() {
  local t0 t1 c
  t0=$(now)
  c=$( { "$@" >/dev/null || exit 1; times; } | sed -n 2p |
       awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /m|s/); n += a[1] * 60 + a[2] } print n }') ||
    return 1
  t1=$(now)
  [ -n "$c" ] && echo "$(minus "$t1" "$t0") $c"
}

# Standalone timings of one partition at k: synth, then prove (wall and
# CPU each).
standalone() {
  local k=$1 s p
  s=$(cpu_of "$prov" synth --seed 5ca1ed --partition 0 --log-size "$k" -o "$dir/p.part") || return 1
  p=$(cpu_of "$prov" prove -i "$dir/p.part" -o "$dir/p.h" --backend cpu) || return 1
  rm -f "$dir/p.part" "$dir/p.h"
  echo "$s $p"
}

run_case() {
  local k=$1 S=$2 G=$3 P=$4 ts=$5 cs=$6 tp=$7 cp=$8 name=scale-$$-$k-$S st=$dir/state-$k-$S
  local t0 t1 id out
  mkdir -p "$st"
  cat >"$dir/conf" <<EOF
[supervisor]
max_log_size = $k
mem_budget = 64GiB
EOF
  "$prov" run --config "$dir/conf" --name "$name" --state-dir "$st" --gpus "$G" --workers-per-gpu 1 \
    --synth "$S" --backend cpu >"$dir/sup.log" 2>&1 &
  sup=$!
  for _ in $(seq 100); do "$prov" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
  : >"$dir/samples"
  sample "$sup" "$dir/samples" & samp=$!
  "$rtt" --socket "$st/control.sock" --interval-ms 20 --seconds 3600 >"$dir/rtt" 2>&1 & rttp=$!
  t0=$(now)
  out=$("$prov" submit --name "$name" --kind porep --log-size "$k" --partitions "$P" --seed 5ca1ed --wait 2>&1)
  t1=$(now)
  kill -INT "$rttp"; wait "$rttp" 2>/dev/null; rttp=
  sleep 0.2
  kill "$samp"; wait "$samp" 2>/dev/null; samp=
  "$prov" status --name "$name" --json >"$dir/json" 2>/dev/null
  "$prov" stop --name "$name" >/dev/null; wait "$sup" 2>/dev/null; sup=
  rm -rf "$st"
  case "$out" in *done*) ;; *) echo "  k=$k $S+$G: the job did not finish: $out"; return ;; esac
  grep "slow loop iteration" "$dir/sup.log" | sed 's/^/         /'
  awk -v k="$k" -v S="$S" -v G="$G" -v P="$P" -v ts="$ts" -v tp="$tp" -v cs="$cs" -v cp="$cp" \
      -v wall="$(minus "$t1" "$t0")" -v hz="$(getconf CLK_TCK)" -v cores="$ncores" \
      -v rtt="$(cat "$dir/rtt")" \
      -v lmax="$(json_num max_seconds)" -v lp99="$(json_num p99_seconds)" \
      -v lwhat="$(grep -o '"max_what": *"[^"]*"' "$dir/json" | sed 's/.*: *"//; s/"$//')" '
    # CPU over the job only: from the first sample (taken just before the
    # submit) to the last; a child started later counts from 0
    # the longest the supervisor waited for a CPU within one 100 ms sample
    $1 == "delay" { if (last != "" && $2 - last > dmax) dmax = $2 - last; last = $2; next }
    { p = $1 " " $2; if (!(p in first)) first[p] = $1 == "provisor" ? $3 : 0
      cpu[p] = $3; role[p] = $1; if ($4 > hwm[$1]) hwm[$1] = $4 }
    END {
      for (p in cpu) c[role[p]] += cpu[p] - first[p]
      # the pipeline over the slots, by wall times; and never below the
      # CPU work spread over the cores
      ceilS = int((P + S - 1) / S); ceilG = int((P + G - 1) / G)
      a = ceilS * ts + tp; b = ts + ceilG * tp; ideal = a > b ? a : b
      work = P * (cs + cp) / cores
      if (work > ideal) ideal = work
      split(rtt, r, " ")
      printf "  k=%-2d %d+%d, %2d parts  wall %7.2f s = %.3f x ideal (%.2f s; synth %.2f s, prove %.2f s wall, %.2f s CPU)\n", \
        k, S, G, P, wall, wall / ideal, ideal, ts, tp, cp
      printf "         sup/gw CPU %.3f%% (%.2f s / %.2f s)  RSS sup %d MiB, synth %d MiB, gpuworker %d MiB\n", \
        c["gpuworker"] ? 100 * c["provisor"] / c["gpuworker"] : 0, c["provisor"] / hz, c["gpuworker"] / hz, \
        hwm["provisor"] / 1024, hwm["synth"] / 1024, hwm["gpuworker"] / 1024
      printf "         loop max %.2f ms (in %s), p99 %.2f ms; waited for a CPU up to %.1f ms in 100 ms\n", \
        lmax * 1000, lwhat, lp99 * 1000, dmax / 1e6
      printf "         rtt p50 %s ms, p99 %s ms, max %s ms (n %s)\n", r[3], r[5], r[7], r[9]
    }' "$dir/samples"
}

echo "scale: porep on the CPU backend, $ncores cores, $((mem_kb / 1024)) MiB available"
for k in $ks; do
  n=$((1 << k))
  # a gpuworker holds two partitions (3n elements each) and H's work; the
  # synth streams: 2 gpuworkers at most.
  need_kb=$((2 * 2 * 4 * n * 32 / 1024 + 262144))
  if [ "$need_kb" -gt "$mem_kb" ]; then
    echo "  k=$k: skipped, needs about $((need_kb / 1024)) MiB and $((mem_kb / 1024)) MiB are available"
    continue
  fi
  read -r ts cs tp cp <<<"$(standalone "$k")"
  [ -n "$cp" ] || { echo "  k=$k: the standalone synth or prove failed"; continue; }
  for shape in $shapes; do
    S=${shape%+*} G=${shape#*+}
    P=$((k >= 24 ? 2 * G : 4 * G))
    run_case "$k" "$S" "$G" "$P" "$ts" "$cs" "$tp" "$cp"
  done
done
