#!/usr/bin/env bash
# device.sh: everything a lent GPU machine has to settle, in one run of
# under 8 minutes on one H200 (issue 22, part 5). Prints an environment
# report, builds for sm_90 only with -j$(nproc) into build-gpu/ and
# bin-gpu/, runs each check under its own timeout, and ends with ONE
# table, a row per check: PASS, FAIL or SKIP, and why.
#
#   tests/gpu/device.sh            on a machine with a GPU (exit 77 without)
#   tests/gpu/device.sh --dry-run  the report, the bundle and the build, no
#                                  device needed; exits 0 when they worked
#   tests/gpu/device.sh --rehearse the whole script without a device, as if
#                                  there were one GPU: the supervisor runs
#                                  --backend cpu, the device-only rows say
#                                  SKIP; for this script's own mistakes
#
# The GPU machine has no network and none of the -dev packages: when the
# system's pkg-config cannot find them, the build uses the bundle that
# `make gpu-bundle` put in .gpu-bundle here (carry it: it travels as .deb
# files, about 19 MB, and is unpacked into build-gpu-prefix there;
# scripts/gpu-bundle.sh). GPU_BUNDLE=force uses the bundle even where the
# system has the packages (how the dry run tests it), GPU_BUNDLE=no never.
#
# Checks: the H-term CPU against CUDA at k = 10..24 (25..26 when the time
# allows), its per-phase columns if hterm-compare prints any, its sticky
# error path, the G1 MSM CPU against CUDA (bin-gpu/bench/msm-cuda, when
# built), a supervisor with --backend cuda whose results are verified, a
# wrong ordinal (a slot for a device that does not exist: disabled as
# bad-device) and device memory run out (filled by a torch process, since
# the CUDA backend has no knob for it: hterm-compare must say out of
# memory, the worker must count it as backend_out_of_memory and requeue,
# not fail, the partition).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
dry=0 rehearse=0 backend=cuda
case ${1:-} in
  --dry-run) dry=1 ;;
  --rehearse) rehearse=1 backend=cpu ;;
  '') ;;
  *) echo "usage: $0 [--dry-run | --rehearse]" >&2; exit 2 ;;
esac
START=$SECONDS
BUDGET=${DEVICE_BUDGET:-450}	# seconds; optional steps are dropped past it
work=$(mktemp -d "${TMPDIR:-/tmp}/device.XXXXXX")
chmod 0711 "$work"	# a root supervisor's workers run as nobody: they open the params
logs=${DEVICE_LOGS:-$work}	# DEVICE_LOGS=$OUT keeps every step's log
mkdir -p "$logs"
sups=()
cleanup() {
  local p
  for p in "${sups[@]+"${sups[@]}"}"; do kill "$p" 2>/dev/null; done
  [ -n "${hog:-}" ] && kill "$hog" 2>/dev/null
  # the MSM's build, if the script ends first: its timeout passes the
  # signal on to make
  [ -n "${msm_pid:-}" ] && pkill -TERM -P "$msm_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rows=()
row() { rows+=("$(printf '%-34s %-5s %s' "$1" "$2" "$3")"); echo "== $1: $2 $3"; }
left() { echo $((BUDGET - (SECONDS - START))); }
table() {
  echo
  echo "SUMMARY ($((SECONDS - START)) s)"
  printf '%-34s %-5s %s\n' CHECK RESULT DETAIL
  printf '%s\n' "${rows[@]}"
}

# ---- the device
gpus=
if ! command -v nvidia-smi >/dev/null 2>&1; then
  nodev="no GPU: nvidia-smi not found"
elif ! gpus=$(timeout 30 nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$gpus"; then
  nodev="no GPU: nvidia-smi -L: $(head -n 1 <<<"$gpus")"
else
  nodev=
fi
if [ -n "$nodev" ] && [ $dry -eq 0 ] && [ $rehearse -eq 0 ]; then
  echo "$nodev"
  exit 77
fi
ngpu=$(grep -c '^GPU ' <<<"$gpus")
[ $rehearse -eq 1 ] && ngpu=1

# ---- environment report
echo "== environment"
echo "host: $(uname -srm); $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown OS}"); $(nproc) CPUs; $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) memory"
if [ -z "$nodev" ]; then
  echo "$gpus"
  timeout 30 nvidia-smi -q 2>/dev/null |
    grep -E '^(Driver Version|CUDA Version)|^ *(Product Name|Product Architecture|GPU UUID|Bus Id|Persistence Mode|Compute Mode|Addressing Mode|Total|Max Power Limit) *:' |
    sed 's/^ */  /' | awk '!seen[$0]++' | head -n 24
  echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>} CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER-<unset>}"
else
  echo "$nodev ($([ $dry -eq 1 ] && echo dry run || echo rehearsal))"
fi
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
echo "nvcc: ${NVCC:-none}${NVCC:+ ($("$NVCC" --version | grep -o 'release [^,]*'))}; cc: $(cc --version | head -n 1)"
row environment PASS "$(nproc) CPUs, $ngpu GPU(s), nvcc ${NVCC:+$("$NVCC" --version | grep -o 'release [0-9.]*' | cut -d' ' -f2)}"

# ---- build dependencies: the system's, else the bundle
pcs="liburing ncursesw gmp libsodium libxxhash inih json-c libmicrohttpd libsystemd libpq"
bflags=()
mode=${GPU_BUNDLE:-auto}
# shellcheck disable=SC2086
if [ "$mode" != force ] && pkg-config --exists $pcs 2>/dev/null; then
  row "build deps" PASS "the system's -dev packages"
elif [ "$mode" != no ] && ls .gpu-bundle/debs/*.deb >/dev/null 2>&1; then
  prefix=$root/build-gpu-prefix	# not in build-gpu: the Makefile reads every *.d there
  if [ ! -f "$prefix/.stamp" ] || [ .gpu-bundle/names -nt "$prefix/.stamp" ]; then
    rm -rf "$prefix"
    timeout 120 scripts/gpu-bundle.sh unpack .gpu-bundle "$prefix" && touch "$prefix/.stamp"
  fi
  eval "$(scripts/gpu-bundle.sh env "$prefix")"
  bflags=(CPPFLAGS="$GPU_BUNDLE_CPPFLAGS" LDFLAGS="$GPU_BUNDLE_LDFLAGS")
  # shellcheck disable=SC2086
  if pkg-config --exists $pcs; then
    row "build deps" PASS "the bundle: $(ls .gpu-bundle/debs | wc -l) packages, $(du -sh .gpu-bundle | cut -f1), in build-gpu-prefix"
  else
    row "build deps" FAIL "the bundle lacks: $(pkg-config --print-errors --exists $pcs 2>&1 | head -n 1)"
  fi
else
  row "build deps" FAIL "no -dev packages here and no .gpu-bundle (make gpu-bundle on a networked machine; carry .gpu-bundle)"
fi

# ---- build: sm_90 only, every core, its own folders
cuda=1
[ -z "$NVCC" ] && cuda=0
t0=$SECONDS
mk=(make -s -j"$(nproc)" O=build-gpu BIN=bin-gpu "CUDA=$cuda" DEPS_OK=yes
    CUDA_ARCHS='-gencode arch=compute_90,code=sm_90' "${bflags[@]+"${bflags[@]}"}")
targets=(programs)
# The CUDA MSM (CUDA_MSM=1) in folders of its own, in the background from
# now on: ptxas spends minutes of one core on its kernels (9 CPU minutes
# for sm_90 on the 2-core machine it was written on), so it must not hold
# up the build the other checks need. The MSM row waits for it.
msm_pid=
if [ $dry -eq 0 ] && [ $cuda -eq 1 ] && grep -qs '(BIN)/bench/msm-cuda' ./*/*.mk; then
  (timeout "${DEVICE_MSM_BUILD_TIMEOUT:-480}" make -s -j"$(nproc)" O=build-gpu-msm BIN=bin-gpu-msm CUDA=1 CUDA_MSM=1 \
     DEPS_OK=yes CUDA_ARCHS='-gencode arch=compute_90,code=sm_90' "${bflags[@]+"${bflags[@]}"}" \
     bin-gpu-msm/bench/msm-cuda >"$logs/build-msm.log" 2>&1
   echo $? >"$logs/build-msm.rc") &
  msm_pid=$!
fi
if timeout "${DEVICE_BUILD_TIMEOUT:-300}" "${mk[@]}" "${targets[@]}" >"$logs/build.log" 2>&1; then
  row build PASS "CUDA=$cuda sm_90, -j$(nproc), $((SECONDS - t0)) s"
  built=1
else
  rc=$?
  tail -n 30 "$logs/build.log"
  row build FAIL "make exited $rc after $((SECONDS - t0)) s (build.log)"
  built=0
fi
B=$root/bin-gpu
if [ $built -eq 1 ] && [ ${#bflags[@]} -gt 0 ]; then
  miss=$(ldd "$B/provisor" | grep -c 'not found')
  [ "$miss" -eq 0 ] && row "bundle libraries" PASS "provisor's libraries all resolve ($(ldd "$B/provisor" | grep -c "$prefix") in the bundle)" ||
    row "bundle libraries" FAIL "$miss of provisor's libraries not found"
fi
if [ $dry -eq 1 ] || [ $built -eq 0 ] || [ $cuda -eq 0 ]; then
  [ $dry -eq 1 ] && row "device checks" SKIP "dry run${nodev:+: $nodev}"
  [ $dry -eq 0 ] && [ $built -eq 1 ] && [ $cuda -eq 0 ] && row "device checks" SKIP "no nvcc to build the CUDA backend"
  table
  [ $built -eq 1 ] && ! printf '%s\n' "${rows[@]}" | grep -q '^.\{34\} FAIL'
  exit $?
fi

# A root supervisor runs its workers as nobody, who must reach the
# programs (and the bundle's libraries) through every folder above them.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && ! runuser -u nobody -- test -x "$B/gpuworker"; then
  d=$root
  while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done
  echo "made the folders above $root searchable for nobody (the workers' user)"
fi

# ---- H-term, CPU against CUDA
hterm() {	# FROM TO TIMEOUT: 0 when every k ran and H was identical
  timeout "$3" "$B/bench/hterm-compare" --from "$1" --to "$2" >"$logs/hterm-$1-$2.log" 2>&1
  local rc=$?
  grep -E '^(CUDA|k=|OK|FAIL)' "$logs/hterm-$1-$2.log"
  return $rc
}
hterm 10 24 150; rc=$?
[ $rc -eq 77 ] && [ $rehearse -eq 1 ] && rc=skip
n=$(grep -c '^k=.*H identical' "$logs/hterm-10-24.log")
top=$(grep '^k=24 ' "$logs/hterm-10-24.log" | sed 's/  */ /g' | cut -d' ' -f4-9)
if [ $rc = skip ]; then row "H-term CPU vs CUDA k=10..24" SKIP "rehearsal: $(tail -n 1 "$logs/hterm-10-24.log")"
elif [ $rc -eq 0 ]; then row "H-term CPU vs CUDA k=10..24" PASS "$n sizes identical; k=24: $top"
else row "H-term CPU vs CUDA k=10..24" FAIL "exit $rc, $n of 15 identical ($(grep -m1 -E 'FAIL|DIFFERS|no CUDA' "$logs/hterm-10-24.log"))"
fi
# Per-phase columns: whatever follows the standard ones on a k= line.
phases=$(grep '^k=' "$logs/hterm-10-24.log" | sed -E 's/^k= *[0-9]+ +n= *[0-9]+ +cpu +[0-9.]+ ms +cuda +[0-9.]+ ms +cpu\/cuda +[0-9.]+x +//; s/H identical,? *//; s/H DIFFERS,? *//; s/top coefficient NOT zero//' | grep -v '^$' | tail -n 1)
[ -n "$phases" ] && row "H-term per-phase timings" PASS "k=24: $phases" ||
  row "H-term per-phase timings" SKIP "hterm-compare prints no per-phase columns"
if [ $rehearse -eq 1 ]; then
  row "H-term CPU vs CUDA k=25..26" SKIP "rehearsal"
elif [ "$(left)" -gt 330 ]; then
  hterm 25 26 120; rc=$?
  [ $rc -eq 0 ] && row "H-term CPU vs CUDA k=25..26" PASS "$(grep '^k=26 ' "$logs/hterm-25-26.log" | sed 's/  */ /g' | cut -d' ' -f4-9)" ||
    row "H-term CPU vs CUDA k=25..26" FAIL "exit $rc ($(grep -m1 -E 'FAIL|DIFFERS' "$logs/hterm-25-26.log"))"
else
  row "H-term CPU vs CUDA k=25..26" SKIP "$(left) s of the budget left"
fi
timeout 60 "$B/bench/hterm-compare" --fault >"$logs/fault.log" 2>&1; rc=$?
if [ $rehearse -eq 1 ] && [ $rc -eq 77 ]; then row "CUDA sticky error (--fault)" SKIP "rehearsal"
elif [ $rc -eq 0 ]; then row "CUDA sticky error (--fault)" PASS "reported sticky, poisoned context refused"
else
  row "CUDA sticky error (--fault)" FAIL "exit $rc: $(tail -n 1 "$logs/fault.log")"
fi

# ---- MSM G1, CPU against CUDA (bench/msm-cuda, another engineer's)
[ -n "$msm_pid" ] && wait "$msm_pid"
msm_rc=$(cat "$logs/build-msm.rc" 2>/dev/null)
if [ -n "$msm_pid" ] && [ "$msm_rc" != 0 ]; then
  tail -n 30 "$logs/build-msm.log"
  [ "$msm_rc" = 124 ] && why="timed out after ${DEVICE_MSM_BUILD_TIMEOUT:-480} s" || why="make exited ${msm_rc:-?}"
  row "MSM G1 CPU vs CUDA 2^20..2^24" FAIL "its build (CUDA_MSM=1, build-msm.log): $why"
elif [ ! -x "$root/bin-gpu-msm/bench/msm-cuda" ]; then
  row "MSM G1 CPU vs CUDA 2^20..2^24" SKIP "not built (no bin-gpu-msm/bench/msm-cuda)"
else
  # shellcheck disable=SC2086
  # Up to 200 s, leaving about 150 s for the supervisor checks after it.
  mt=$(( $(left) - 150 )); [ $mt -gt 200 ] && mt=200; [ $mt -lt 60 ] && mt=60
  timeout $mt "$root/bin-gpu-msm/bench/msm-cuda" ${MSM_CUDA_ARGS:-} >"$logs/msm.log" 2>&1; rc=$?
  grep '^msm ' "$logs/msm.log"
  n=$(grep -c '^msm k=.* identical=yes' "$logs/msm.log")
  bad=$(grep -c '^msm k=.* identical=no' "$logs/msm.log")
  last=$(grep '^msm k=' "$logs/msm.log" | tail -n 1 | grep -oE 'k=[0-9]+|cpu_ms=[0-9.]+|cuda_ms=[0-9.]+' | tr '\n' ' ')
  case $rc in
    0) [ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && row "MSM G1 CPU vs CUDA 2^20..2^24" PASS "$n sizes identical; $last" ||
         row "MSM G1 CPU vs CUDA 2^20..2^24" FAIL "exit 0 but $n identical, $bad differ" ;;
    77) row "MSM G1 CPU vs CUDA 2^20..2^24" SKIP "$(tail -n 1 "$logs/msm.log")" ;;
    124) row "MSM G1 CPU vs CUDA 2^20..2^24" FAIL "timed out after $mt s, $n identical so far; $last" ;;
    *) row "MSM G1 CPU vs CUDA 2^20..2^24" FAIL "exit $rc, $n identical, $bad differ; $(tail -n 1 "$logs/msm.log")" ;;
  esac
fi

# ---- a supervisor: start, wait for its socket (name, state, args...)
sup_start() {
  local name=$1 st=$2
  shift 2
  mkdir -p "$st"
  "$B/provisor" run --name "$name" --state-dir "$st" "$@" 2>"$st.log" &
  sups+=($!)
  for _ in $(seq 100); do
    "$B/provisor" ping --name "$name" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
sup_stop() { timeout 30 "$B/provisor" stop --name "$1" >/dev/null 2>&1; }
# A field of `status --json`: PY is a Python expression over d.
sjson() {
  "$B/provisor" status --name "$1" --json 2>/dev/null |
    python3 -c "import json,sys; d=json.load(sys.stdin); print($2)" 2>/dev/null
}

# ---- the gpuworker under a supervisor, --backend cuda, results verified
st=$work/pipe
"$B/provisor" setup --seed de30 --log-size 12 -o "$work/params" >/dev/null 2>&1
printf '[supervisor]\nmem_budget = 16GiB\nmax_log_size = 24\n[kind.porep]\nlog_size = 12\nparams = %s\n' \
  "$work/params" >"$work/pipe.conf"
if ! sup_start dpipe "$st" --config "$work/pipe.conf" --gpus 1 --workers-per-gpu 2 --synth 8 --backend $backend; then
  row "supervisor --backend $backend" FAIL "no control socket within 10 s ($(tail -n 1 "$st.log"))"
else
  pids=()
  for j in "porep" "porep" "snap-deals --log-size 18" "winning-post --log-size 22" "window-post --log-size 20"; do
    # shellcheck disable=SC2086
    timeout 150 "$B/provisor" submit --name dpipe --kind $j --wait >"$work/sub.${#pids[@]}" 2>&1 &
    pids+=($!)
  done
  # Wait for them, but not on slots that will never run anything.
  dead=
  while [ -z "$dead" ]; do
    live=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && live=1; done
    [ $live -eq 0 ] && break
    sleep 1
    [ "$(sjson dpipe "all(s['state'] == 'disabled' for s in d['gpu_slots'])")" = True ] &&
      dead="every GPU slot disabled: $(sjson dpipe "sorted(set(str(s['disable_reason']) for s in d['gpu_slots']))")"
  done
  [ -n "$dead" ] && kill "${pids[@]}" 2>/dev/null
  done_n=0
  for i in "${!pids[@]}"; do wait "${pids[$i]}" && done_n=$((done_n + 1)); done
  ver=0 vbad=0
  for i in "${!pids[@]}"; do
    p=$(sed -n 's/^job [0-9]* done: //p' "$work/sub.$i")
    [ -n "$p" ] || continue
    if [ "$(od -An -tu4 -j12 -N4 "$p" | tr -d ' ')" = 4 ]; then	# a proofs file
      timeout 60 "$B/provisor" verify --params "$work/params" "$p" >>"$logs/verify.log" 2>&1
    else
      timeout 60 "$B/provisor" verify "$p" >>"$logs/verify.log" 2>&1
    fi && ver=$((ver + 1)) || vbad=$((vbad + 1))
  done
  be=$(sjson dpipe "[s['backend'] for s in d['gpu_slots']]")
  gdone=$(sjson dpipe "sum(s['done'] for s in d['gpu_slots'])")
  sup_stop dpipe
  if [ $done_n -eq 5 ] && [ $ver -eq 5 ] && grep -q $backend <<<"$be" && [ "${gdone:-0}" -gt 0 ]; then
    row "supervisor --backend $backend" PASS "5 jobs done, 5 results verified, $gdone partitions on slots $be"
  else
    row "supervisor --backend $backend" FAIL "$done_n/5 done, $ver verified, $vbad refused, slots $be, $gdone partitions${dead:+; $dead}$(grep -h ' failed: ' "$work"/sub.* | head -n 1 | sed 's/^/; /')"
  fi
fi

# ---- a wrong ordinal: a slot for a device past the last one
st=$work/ord
if [ $rehearse -eq 1 ]; then
  row "wrong ordinal -> bad-device" SKIP "rehearsal (the cpu backend has no ordinals)"
elif ! sup_start dord "$st" --gpus $((ngpu + 1)) --workers-per-gpu 1 --synth 1 --backend cuda; then
  row "wrong ordinal -> bad-device" FAIL "no control socket within 10 s"
else
  why=
  for _ in $(seq 60); do
    why=$(sjson dord "[(s['gpu'], s['state'], s['disable_reason']) for s in d['gpu_slots']]")
    grep -q "($ngpu, 'disabled', 'bad-device')" <<<"$why" && break
    sleep 0.5
  done
  sup_stop dord
  others=$(grep -o "([0-9]*, '[a-z]*', [^)]*)" <<<"$why" | grep -v "^($ngpu," | grep -c disabled)
  grep -q "($ngpu, 'disabled', 'bad-device')" <<<"$why" && [ "$others" -eq 0 ] &&
    row "wrong ordinal -> bad-device" PASS "gpu $ngpu (of $ngpu) disabled as bad-device, the others up" ||
    row "wrong ordinal -> bad-device" FAIL "slots: $why"
fi

# ---- device memory run out
if [ $rehearse -eq 1 ]; then
  row "device out of memory" SKIP "rehearsal"
elif [ "$(left)" -lt 60 ]; then
  row "device out of memory" SKIP "$(left) s of the budget left"
elif ! python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  row "device out of memory" SKIP "no python3 torch to fill the device, and the CUDA backend has no OOM knob"
else
  # Fill all but about 1 GiB: k=24 needs about 2.7 GB on the device.
  python3 -c '
import torch, time, sys
free, _ = torch.cuda.mem_get_info()
x = torch.empty(free - (1 << 30), dtype=torch.uint8, device="cuda")
print("holding", x.numel() >> 20, "MiB", flush=True)
time.sleep(120)' >"$work/hog.log" 2>&1 &
  hog=$!
  for _ in $(seq 100); do grep -q holding "$work/hog.log" && break; sleep 0.2; done
  timeout 60 "$B/bench/hterm-compare" --from 24 --to 24 >"$logs/oom.log" 2>&1; orc=$?
  # The worker's class: requeued as out of memory, not failed, and done
  # once the memory is back.
  oom_done=no nomem=
  if sup_start doom "$work/oom" --config "$work/pipe.conf" --gpus 1 --workers-per-gpu 1 --synth 2 --backend cuda; then
    timeout 120 "$B/provisor" submit --name doom --kind winning-post --log-size 24 --wait >"$work/oom.sub" 2>&1 &
    sp=$!
    for _ in $(seq 120); do
      nomem=$(sjson doom "d['supervisor']['backend_out_of_memory']")
      [ "${nomem:-0}" -gt 0 ] && break
      sleep 0.5
    done
    kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; hog=
    wait $sp && oom_done=yes
    sup_stop doom
  fi
  [ -n "$hog" ] && kill "$hog" 2>/dev/null
  hog=
  if grep -q 'out of memory' "$logs/oom.log" && ! grep -q sticky "$logs/oom.log" && [ "${nomem:-0}" -gt 0 ] && [ $oom_done = yes ]; then
    row "device out of memory" PASS "hterm-compare: out of memory (not sticky); worker: $nomem requeued as out of memory, job done after"
  else
    row "device out of memory" FAIL "hterm-compare exit $orc: $(grep -m1 -E 'FAIL|memory' "$logs/oom.log"); backend_out_of_memory ${nomem:-?}; job done: $oom_done"
  fi
fi

table
! printf '%s\n' "${rows[@]}" | grep -q '^.\{34\} FAIL'
