#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU, build the CUDA backend and
# bin/bench/hterm-compare, run the CPU and CUDA H-term backends on the same
# inputs for k = 10 .. 22, compare H byte for byte, print timings per size.
# Skips (77) where no GPU exists. Budget: under 5 minutes on an H200; the
# CPU side dominates (about 2 s at 2^22 with hterm_cpu's three threads),
# so the CPU backend runs as it runs in production (multithreaded).
#   HTERM_FROM / HTERM_TO override the range.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
from=${HTERM_FROM:-10} to=${HTERM_TO:-22}

case ${BIN:-bin} in
  bin-*) echo "sanitizer build (${BIN}): CUDA is off there; run tests/gpu/run.sh from a plain build"
         exit 77 ;;
esac
if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "no GPU: nvidia-smi not found"
  exit 77
fi
if ! gpus=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$gpus"; then
  echo "no GPU: nvidia-smi -L: $(head -n 1 <<<"$gpus")"
  exit 77
fi
echo "$gpus"

cd "$root" || exit 1
tool=bin/bench/hterm-compare
# Build unless a CUDA build of the tool is already here (carried to a
# machine without nvcc, for instance): make decides what is stale.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  start=$(date +%s)
  # DEPS_OK: the tool needs only libc and cudart, not the packages that
  # the deps step would try to install (a GPU box may have no network).
  make -s CUDA=1 DEPS_OK=yes -j"$(nproc)" "$tool" || { echo "FAIL: build of $tool"; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
elif [ ! -x "$tool" ]; then
  echo "FAIL: a GPU is here, but no nvcc to build $tool and no prebuilt one"
  exit 1
fi

"$tool" --from "$from" --to "$to"
rc=$?
case $rc in
  0) echo "OK: k = $from .. $to identical on CPU and CUDA" ;;
  77) echo "FAIL: the CUDA runtime sees no device although nvidia-smi does (driver older than the runtime?)"
      exit 1 ;;
  *) echo "FAIL: hterm-compare exited $rc" ;;
esac
# The sticky-error path, in its own process (it poisons the context).
"$tool" --fault
frc=$?
[ $frc -eq 0 ] || echo "FAIL: hterm-compare --fault exited $frc"
[ $rc -eq 0 ] && [ $frc -eq 0 ]
