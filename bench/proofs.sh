#!/usr/bin/env bash
# make bench: the pipeline that proves (issue 20). For each k in PROOF_KS
# (default "16 20"), porep with params on a CPU-backend rig of 2 GPU worker
# slots (1 GPU x 2 workers, each with a thread budget of cores / 2) and 2
# synths, against the standalone tools on the same partitions, in this run:
#   proofs/min  a porep job of P partitions from submit to done, against
#               `provisor prove --params --threads cores/2` of the same
#               partitions, 2 at a time (the synthesis not counted there;
#               also against synth + prove, which is what the rig does)
#   sup/work    the supervisor's CPU time as a share of the workers' (the
#               gpuworkers' and synths'); its RSS peak; its loop's max
#   load        a gpuworker's params load (a read-only mmap of the resident
#               form, page cache warm) against `cat RESIDENT > /dev/null`
#   post        a winning-post's submit-to-done behind a saturated porep
#               proof load, against the same on the idle rig, and how many
#               workers were restarted meanwhile (a pre-emption must kill
#               none)
# The cost of checking every proof (a pairing) against proving is in
# bench/groth16's verify line.
set -u
bin=${BIN:-bin}
prov=$(realpath "$bin/provisor" 2>/dev/null)
[ -x "$prov" ] || { echo "proofs: build bin/provisor first"; exit 1; }
ks=${PROOF_KS:-16 20}
P=${PROOF_PARTS:-8}
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-proofs.XXXXXX")
sup= samp=
cleanup() {
  [ -n "$samp" ] && kill "$samp" 2>/dev/null
  [ -n "$sup" ] && { kill "$sup" 2>/dev/null; wait "$sup" 2>/dev/null; }
  [ -n "${KEEP:-}" ] && { cat "$dir/sup.log"; return; }
  rm -rf "$dir"
}
trap cleanup EXIT
cores=$(nproc)
threads=$(( cores / 2 > 0 ? cores / 2 : 1 ))
now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
json_num() { grep -o "\"$1\": *[0-9.e+-]*" "$dir/json" | head -1 | sed 's/.*: *//'; }

. "$(dirname "$0")/lib.sh"	# sample

wp_latency() {  # NAME: a winning-post's submit-to-done in seconds
  local t0 t1
  t0=$(now)
  "$prov" submit --name "$1" --kind winning-post --wait >/dev/null 2>&1 || { echo "failed"; return; }
  t1=$(now)
  minus "$t1" "$t0"
}

echo "proofs: porep with params on the CPU backend, $cores cores, 2 GPU slots x $threads thread(s), 2 synths, $P partitions"
for k in $ks; do
  params=$dir/params$k
  t0=$(now)
  "$prov" setup --seed 5eed --log-size "$k" -o "$params" >/dev/null || { echo "  k=$k: setup failed"; continue; }
  echo "  k=$k setup $(minus "$(now)" "$t0") s"
  # standalone: the same partitions, 2 proofs at a time
  for p in $(seq 0 $((P - 1))); do
    "$prov" synth --seed ab --partition "$p" --log-size "$k" -o "$dir/part$p" >/dev/null || exit 1
  done
  t0=$(now)
  for p in $(seq 0 $((P - 1))); do
    "$prov" synth --seed ab --partition "$p" --log-size "$k" -o "$dir/synth.tmp" >/dev/null
  done
  tsynth=$(minus "$(now)" "$t0")
  rm -f "$dir/synth.tmp"
  t0=$(now)
  seq 0 $((P - 1)) | xargs -P 2 -I{} "$prov" prove -i "$dir/part{}" --params "$params" -o "$dir/proof{}" \
    --backend cpu --threads "$threads" >/dev/null
  tprove=$(minus "$(now)" "$t0")
  rm -f "$dir"/part* "$dir"/proof*

  name=proofs-$$-$k st=$dir/state-$k
  cat >"$dir/conf" <<EOF
[supervisor]
max_log_size = 27
mem_budget = 64GiB
preempt_grace = 30s
[kind.porep]
log_size = $k
partitions = $P
params = $params
[kind.winning-post]
log_size = 10
EOF
  t0=$(now)
  "$prov" run --config "$dir/conf" --name "$name" --state-dir "$st" --gpus 1 --workers-per-gpu 2 \
    --synth 2 --backend cpu >"$dir/sup.log" 2>&1 &
  sup=$!
  for _ in $(seq 3000); do "$prov" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
  [ "$(grep -c 'params loaded' "$dir/sup.log")" -ge 2 ] || sleep 1
  validated=$(grep -o 'validated in [0-9.]* s' "$dir/sup.log" | grep -o '[0-9.]*' | head -1)
  res=$(ls "$st"/params/*.resident)
  t1=$(now); cat "$res" >/dev/null; tcat=$(minus "$(now)" "$t1")
  tload=$(grep -o 'params loaded: .* in [0-9.]* s' "$dir/sup.log" | grep -o '[0-9.]* s$' | grep -o '[0-9.]*' |
          sort -n | tail -1)
  idle=$(wp_latency "$name")
  : >"$dir/samples"
  sample "$sup" "$dir/samples" & samp=$!
  t0=$(now)
  out=$("$prov" submit --name "$name" --kind porep --seed ab --wait 2>&1)
  twall=$(minus "$(now)" "$t0")
  kill "$samp"; wait "$samp" 2>/dev/null; samp=
  "$prov" status --name "$name" --json >"$dir/json" 2>/dev/null
  case "$out" in *done*) ;; *) echo "  k=$k: the porep job did not finish: $out"; continue ;; esac
  "$prov" verify --params "$params" "$st/results/job-2.result" >/dev/null 2>&1 || echo "  k=$k: ITS PROOFS DO NOT VERIFY"
  lmax=$(json_num max_seconds)
  # a winning-post behind a saturated proof load
  "$prov" submit --name "$name" --kind porep --seed cd >/dev/null
  for _ in $(seq 200); do
    "$prov" status --name "$name" --json 2>/dev/null | grep -c '"state": *"busy"' | grep -q '^[2-9]' && break
    sleep 0.05
  done
  loaded=$(wp_latency "$name")
  "$prov" status --name "$name" --json >"$dir/json2" 2>/dev/null
  restarts=$(grep -o '"restarts": *[0-9]*' "$dir/json2" | awk -F: '{ s += $2 } END { print s + 0 }')
  preempted=$(grep -o '"preempted": *[0-9]*' "$dir/json2" | awk -F: '{ s += $2 } END { print s + 0 }')
  "$prov" stop --name "$name" >/dev/null; wait "$sup" 2>/dev/null; sup=
  rm -rf "$st"
  awk -v k="$k" -v P="$P" -v wall="$twall" -v tp="$tprove" -v ts="$tsynth" -v hz="$(getconf CLK_TCK)" \
      -v lmax="$lmax" -v tload="$tload" -v tcat="$tcat" -v val="$validated" -v idle="$idle" \
      -v loaded="$loaded" -v restarts="$restarts" -v pre="$preempted" '
    $1 == "delay" { next }
    { p = $1 " " $2; if (!(p in first)) first[p] = $1 == "provisor" ? $3 : 0
      cpu[p] = $3; role[p] = $1; if ($4 > hwm[$1]) hwm[$1] = $4 }
    END {
      for (p in cpu) c[role[p]] += cpu[p] - first[p]
      work = c["gpuworker"] + c["synth"]
      printf "  k=%-2d proofs/min %.1f end to end (%.2f s) = %.3f x standalone prove (%.1f/min, %.2f s), %.3f x synth + prove (%.2f s)\n", \
        k, 60 * P / wall, wall, (P / wall) / (P / tp), 60 * P / tp, tp, (ts + tp) / wall, ts + tp
      printf "       sup/work CPU %.3f%% (%.2f s / %.2f s)  RSS sup %d MiB, gpuworker %d MiB, synth %d MiB  loop max %.2f ms\n", \
        work ? 100 * c["provisor"] / work : 0, c["provisor"] / hz, work / hz, hwm["provisor"] / 1024, \
        hwm["gpuworker"] / 1024, hwm["synth"] / 1024, lmax * 1000
      printf "       params: validated once in %s s; a worker load %s s against cat %s s = %.2f x\n", \
        val, tload, tcat, (tcat > 0 ? tload / tcat : 0)
      printf "       winning-post: %s s behind the proof load against %s s idle (+%.0f ms); %d partition(s) taken back, %d worker restart(s)\n", \
        loaded, idle, 1000 * (loaded - idle), pre, restarts
    }' "$dir/samples"
done
