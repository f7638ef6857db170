#!/usr/bin/env bash
# The operator tools end to end through bin/provisor: synth -> prove (cpu)
# -> verify says ok; a tampered H fails verify with a message; and every
# bad input ends in exactly one error line on stderr and a non-zero exit
# below 128 (no crash). Needs only coreutils (b2sum reseals a tampered
# file's checksum, so verify's own check is what catches it).
set -u
bin=${BIN:-bin}
prov=$bin/provisor
[ -x "$prov" ] || { echo "no $prov: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-cli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run NAME CMD...: run, keeping stdout, stderr and the exit code.
run() {
  local name=$1; shift
  "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  echo $? >"$dir/$name.rc"
}

# expect_ok NAME CMD...: exit 0.
expect_ok() {
  local name=$1
  run "$@"
  local rc; rc=$(cat "$dir/$name.rc")
  [ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$dir/$name.err")"
}

# expect_err NAME PATTERN CMD...: non-zero exit < 128, exactly one stderr
# line, matching PATTERN (grep -E).
expect_err() {
  local name=$1 pat=$2; shift 2
  run "$name" "$@"
  local rc lines; rc=$(cat "$dir/$name.rc"); lines=$(wc -l <"$dir/$name.err")
  if [ "$rc" -eq 0 ]; then fail "$name: exit 0, expected a failure"
  elif [ "$rc" -ge 128 ]; then fail "$name: exit $rc: crashed"
  elif [ "$lines" -ne 1 ]; then fail "$name: $lines lines on stderr, expected 1:"; sed 's/^/    /' "$dir/$name.err"
  elif ! grep -Eq -- "$pat" "$dir/$name.err"; then fail "$name: stderr '$(cat "$dir/$name.err")' does not match '$pat'"
  else echo "ok: $name -> $(cat "$dir/$name.err")"
  fi
}

# hex of a file's bytes, and writing hex bytes at an offset.
put_hex() {  # FILE OFFSET HEX
  printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
flip_bit() {  # FILE OFFSET: flip the low bit of one byte (keeps an element canonical)
  local b; b=$(od -An -tx1 -j "$2" -N1 "$1" | tr -d ' ')
  put_hex "$1" "$2" "$(printf '%02x' $((0x$b ^ 1)))"
}
reseal() {  # FILE: recompute the trailing BLAKE2b-256 checksum
  local len; len=$(stat -c %s "$1")
  local sum; sum=$(head -c $((len - 32)) "$1" | b2sum -l 256 | cut -d' ' -f1)
  put_hex "$1" $((len - 32)) "$sum"
}

# --- the happy path ---------------------------------------------------------
expect_ok synth "$prov" synth --seed 00ff10 --partition 3 --log-size 10 -o "$dir/p"
expect_ok prove "$prov" prove -i "$dir/p" -o "$dir/h" --backend cpu
expect_ok verify "$prov" verify "$dir/h"
grep -q ': ok$' "$dir/verify.out" || fail "verify printed no ok line: $(cat "$dir/verify.out")"
expect_ok prove_auto "$prov" prove -i "$dir/p" -o "$dir/h_auto" --backend auto --device 0
cmp -s "$dir/h" "$dir/h_auto" || fail "auto backend wrote a different H file"
expect_ok synth2 "$prov" synth --seed 0x00FF10 --partition 3 --log-size 10 -o "$dir/p2"
cmp -s "$dir/p" "$dir/p2" || fail "synth is not deterministic"
expect_ok synth_k3 "$prov" synth --seed 01 --partition 0 --log-size 3 -o "$dir/p_k3"
expect_ok prove_k3 "$prov" prove -i "$dir/p_k3" -o "$dir/h_k3" --backend cpu
expect_ok verify_two "$prov" verify "$dir/h" "$dir/h_k3"
[ "$(grep -c ': ok$' "$dir/verify_two.out")" -eq 2 ] || fail "verify of two files: $(cat "$dir/verify_two.out")"
echo "ok: synth -> prove -> verify"

# --- tampering --------------------------------------------------------------
hlen=$(stat -c %s "$dir/h")
cp "$dir/h" "$dir/h_flip"; flip_bit "$dir/h_flip" $((80 + 32 * 5))
expect_err tamper_sum 'checksum mismatch' "$prov" verify "$dir/h_flip"
reseal "$dir/h_flip"
expect_err tamper_coeff 'partition 3 .*FAILED: A\(r\)\*B\(r\) - C\(r\) != H\(r\)\*Z\(r\)' "$prov" verify "$dir/h_flip"
cp "$dir/h" "$dir/h_top"; put_hex "$dir/h_top" $((hlen - 64)) 01; reseal "$dir/h_top"
expect_err tamper_top "top coefficient" "$prov" verify "$dir/h_top"
cp "$dir/h" "$dir/h_part"; put_hex "$dir/h_part" 56 04; reseal "$dir/h_part"
expect_err wrong_partition 'partition 4 .*FAILED' "$prov" verify "$dir/h_part"
cp "$dir/h" "$dir/h_seed"; put_hex "$dir/h_seed" 24 01; reseal "$dir/h_seed"
expect_err wrong_seed 'seed 01ff10.*FAILED' "$prov" verify "$dir/h_seed"
# One good and one bad file: both reported, exit non-zero.
run mixed "$prov" verify "$dir/h" "$dir/h_flip"
[ "$(cat "$dir/mixed.rc")" -eq 1 ] && grep -q ': ok$' "$dir/mixed.out" && [ "$(wc -l <"$dir/mixed.err")" -eq 1 ] ||
  fail "verify good+bad: rc $(cat "$dir/mixed.rc"), out '$(cat "$dir/mixed.out")', err '$(cat "$dir/mixed.err")'"

# --- job result files --------------------------------------------------------
# Built from the H files of partitions 0 and 1 of one job.
for i in 0 1; do
  expect_ok synth_r$i "$prov" synth --seed 00ff10 --partition $i --log-size 10 -o "$dir/rp$i"
  expect_ok prove_r$i "$prov" prove -i "$dir/rp$i" -o "$dir/rh$i" --backend cpu
done

# --- a job result file, version 3 (as the supervisor writes it) --------------
# Byte for byte from docs/formats.md with coreutils alone: the H header
# turned into a result header (version 3, kind 3, 2 partitions, snap-deals,
# job id 7, count 2n), the two payloads at 80 and 80 + 32n, then the digest
# table (BLAKE2b-256 of each payload) and the checksum over header || table.
n2=$((32 * 1024)) tbl2=$((80 + 2 * 32 * 1024))
b2() { b2sum -l 256 | cut -d' ' -f1; }
reseal2() {  # FILE: recompute both digests from the payloads, then the checksum
  local p
  for p in 0 1; do
    put_hex "$1" $((tbl2 + 32 * p)) "$(tail -c +$((80 + n2 * p + 1)) "$1" | head -c $n2 | b2)"
  done
  put_hex "$1" $((tbl2 + 64)) "$({ head -c 80 "$1"; tail -c +$((tbl2 + 1)) "$1" | head -c 64; } | b2)"
}
make_result2() {  # OUT H0 H1
  head -c 80 "$2" >"$1"
  put_hex "$1" 8 03000000; put_hex "$1" 12 03000000; put_hex "$1" 56 0200000003000000
  put_hex "$1" 64 0700000000000000; put_hex "$1" 72 0008000000000000
  for h in "$2" "$3"; do tail -c +81 "$h" | head -c $n2 >>"$1"; done
  head -c 96 /dev/zero >>"$1"
  reseal2 "$1"
}
make_result2 "$dir/result2" "$dir/rh0" "$dir/rh1"
[ "$(stat -c %s "$dir/result2")" -eq $((tbl2 + 96)) ] || fail "result2 is $(stat -c %s "$dir/result2") bytes"
expect_ok verify_result2 "$prov" verify "$dir/result2"
[ "$(grep -c 'partition [01] .*: ok$' "$dir/verify_result2.out")" -eq 2 ] ||
  fail "verify of a 2-partition result: $(cat "$dir/verify_result2.out")"
make_result2 "$dir/result2_swap" "$dir/rh1" "$dir/rh0"
run verify2_swap "$prov" verify "$dir/result2_swap"
[ "$(cat "$dir/verify2_swap.rc")" -eq 1 ] && [ "$(grep -c 'partition [01] .*FAILED' "$dir/verify2_swap.err")" -eq 2 ] ||
  fail "result with swapped partitions: rc $(cat "$dir/verify2_swap.rc"), err '$(cat "$dir/verify2_swap.err")'"
cp "$dir/result2" "$dir/result2_flip"; flip_bit "$dir/result2_flip" $((80 + n2 + 32 * 17))
expect_err verify2_digest "result2_flip: partition 1's H does not match its digest" "$prov" verify "$dir/result2_flip"
reseal2 "$dir/result2_flip"
expect_err verify2_flip 'result2_flip: partition 1 .*FAILED' "$prov" verify "$dir/result2_flip"
grep -q 'partition 0 .*: ok$' "$dir/verify2_flip.out" || fail "partition 0 of result2_flip not reported ok"
cp "$dir/result2" "$dir/result2_table"; flip_bit "$dir/result2_table" $((tbl2 + 3))
expect_err verify2_table 'checksum mismatch' "$prov" verify "$dir/result2_table"
cp "$dir/result2" "$dir/result2_v4"; put_hex "$dir/result2_v4" 8 04
expect_err verify2_v4 'result2_v4: unsupported format version 4' "$prov" verify "$dir/result2_v4"
# The result files of circuit v1 (versions 2 and 1), sealed as they were.
cp "$dir/result2" "$dir/result_c1"; put_hex "$dir/result_c1" 8 02; reseal2 "$dir/result_c1"
expect_err verify_c1_v2 'result_c1: format version 2 \(circuit v1\) is no longer accepted: run the job again' \
  "$prov" verify "$dir/result_c1"
head -c $((tbl2)) "$dir/result2" >"$dir/result_c1"; head -c 32 /dev/zero >>"$dir/result_c1"
put_hex "$dir/result_c1" 8 01; reseal "$dir/result_c1"
expect_err verify_c1_v1 'result_c1: format version 1 \(circuit v1\) is no longer accepted' \
  "$prov" verify "$dir/result_c1"
head -c $((tbl2 + 95)) "$dir/result2" >"$dir/result2_short"
expect_err verify2_short 'truncated: .* header implies' "$prov" verify "$dir/result2_short"
echo "ok: job result files, version 3"

# --- bad files --------------------------------------------------------------
# The damage both commands must refuse, done to each one's own input.
for src in p h; do
  head -c 100 "$dir/$src" >"$dir/trunc_$src"
  head -c 40 "$dir/$src" >"$dir/trunc_hdr_$src"
  cp "$dir/$src" "$dir/magic_$src"; put_hex "$dir/magic_$src" 0 58
  cp "$dir/$src" "$dir/version_$src"; put_hex "$dir/version_$src" 8 01; reseal "$dir/version_$src"
  cp "$dir/$src" "$dir/future_$src"; put_hex "$dir/future_$src" 8 04
done
: >"$dir/empty"
cp "$dir/p" "$dir/noncanon"; put_hex "$dir/noncanon" $((80 + 32 * 9)) "$(printf 'ff%.0s' $(seq 32))"
cp "$dir/p" "$dir/trailing"; printf 'x' >>"$dir/trailing"
cp "$dir/p" "$dir/count"; put_hex "$dir/count" 72 01; reseal "$dir/count"
cp "$dir/p" "$dir/k28"; put_hex "$dir/k28" 16 1c; reseal "$dir/k28"
cp "$dir/p" "$dir/k0"; put_hex "$dir/k0" 16 00; reseal "$dir/k0"
cp "$dir/p" "$dir/unsat"; put_hex "$dir/unsat" $((80 + 32 * 2048 + 32 * 6)) 05; reseal "$dir/unsat"
for cmd in prove verify; do
  if [ $cmd = prove ]; then args=(-o "$dir/out" --backend cpu -i); src=p; else args=(); src=h; fi
  expect_err ${cmd}_missing 'cannot open: No such file' "$prov" $cmd "${args[@]}" "$dir/nonexistent"
  expect_err ${cmd}_trunc 'truncated: 100 bytes' "$prov" $cmd "${args[@]}" "$dir/trunc_$src"
  expect_err ${cmd}_trunc_hdr 'truncated: 40 bytes' "$prov" $cmd "${args[@]}" "$dir/trunc_hdr_$src"
  expect_err ${cmd}_empty 'empty file' "$prov" $cmd "${args[@]}" "$dir/empty"
  expect_err ${cmd}_magic 'bad magic' "$prov" $cmd "${args[@]}" "$dir/magic_$src"
  expect_err ${cmd}_version 'format version 1 \(circuit v1\) is no longer accepted: re-synthesize with this provisor' \
    "$prov" $cmd "${args[@]}" "$dir/version_$src"
  expect_err ${cmd}_future 'unsupported format version 4 \(this provisor reads version 3\)' \
    "$prov" $cmd "${args[@]}" "$dir/future_$src"
  expect_err ${cmd}_dir 'not a regular file' "$prov" $cmd "${args[@]}" "$dir"
done
expect_err prove_noncanon 'element a\[9\] at offset 368 is not canonical' "$prov" prove -i "$dir/noncanon" -o "$dir/out" --backend cpu
expect_err prove_trailing 'size mismatch: .*trailing' "$prov" prove -i "$dir/trailing" -o "$dir/out" --backend cpu
expect_err prove_count 'size mismatch: header counts' "$prov" prove -i "$dir/count" -o "$dir/out" --backend cpu
expect_err prove_k28 'k = 28 out of range 3..27' "$prov" prove -i "$dir/k28" -o "$dir/out" --backend cpu
expect_err prove_k0 'k = 0 out of range' "$prov" prove -i "$dir/k0" -o "$dir/out" --backend cpu
expect_err prove_unsat 'row 6 violates a\*b = c' "$prov" prove -i "$dir/unsat" -o "$dir/out" --backend cpu
expect_err prove_hfile 'is an H file, expected a partition file' "$prov" prove -i "$dir/h" -o "$dir/out" --backend cpu
expect_err prove_outdir 'cannot write to directory' "$prov" prove -i "$dir/p" -o "$dir/nodir/h" --backend cpu
expect_err verify_partfile 'is a partition file' "$prov" verify "$dir/p"
mkfifo "$dir/fifo"
expect_err verify_fifo 'not a regular file' timeout 10 "$prov" verify "$dir/fifo"
expect_err prove_devnull 'not a regular file' "$prov" prove -i /dev/null -o "$dir/out" --backend cpu
[ -e "$dir/out" ] && fail "a failed prove left $dir/out"

# --- bad arguments ----------------------------------------------------------
S=(--seed 00ff --partition 0 --log-size 4 -o "$dir/s")
expect_err synth_noargs 'missing --seed' "$prov" synth
expect_err synth_noout 'missing -o FILE' "$prov" synth --seed 00 --partition 0 --log-size 4
expect_err synth_nopart 'missing --partition' "$prov" synth --seed 00 --log-size 4 -o "$dir/s"
expect_err synth_nok 'missing --log-size' "$prov" synth --seed 00 --partition 1 -o "$dir/s"
expect_err synth_badhex "--seed 'xyz1' is not hex" "$prov" synth "${S[@]}" --seed xyz1
expect_err synth_oddhex "--seed 'abc' is not hex" "$prov" synth "${S[@]}" --seed abc
expect_err synth_longseed 'is not hex of 1 to 32 bytes' "$prov" synth "${S[@]}" --seed "$(printf '00%.0s' $(seq 33))"
expect_err synth_k0 "--log-size '0' out of range 3..27" "$prov" synth "${S[@]}" --log-size 0
expect_err synth_k2 "--log-size '2' out of range 3..27" "$prov" synth "${S[@]}" --log-size 2
expect_err synth_k28 "--log-size '28' out of range" "$prov" synth "${S[@]}" --log-size 28
expect_err synth_kabc "--log-size 'abc' out of range" "$prov" synth "${S[@]}" --log-size abc
expect_err synth_negpart "--partition '-1' is not an integer" "$prov" synth "${S[@]}" --partition -1
expect_err synth_bigpart "--partition '4294967296'" "$prov" synth "${S[@]}" --partition 4294967296
expect_err synth_unknown "unknown option '--frobnicate'" "$prov" synth "${S[@]}" --frobnicate
expect_err synth_noval 'option --seed needs a value' "$prov" synth --partition 0 --log-size 4 -o "$dir/s" --seed
expect_err synth_extra "unexpected argument 'extra'" "$prov" synth "${S[@]}" extra
expect_err synth_nodir 'cannot create temp file' "$prov" synth --seed 00 --partition 0 --log-size 4 -o "$dir/nodir/s"
expect_err prove_noargs 'missing -i FILE' "$prov" prove
expect_err prove_noout 'missing -o FILE' "$prov" prove -i "$dir/p"
expect_err prove_backend "unknown backend 'gpu'" "$prov" prove -i "$dir/p" -o "$dir/out" --backend gpu
expect_err prove_device "--device 'x' is not a device ordinal" "$prov" prove -i "$dir/p" -o "$dir/out" --device x
expect_err prove_negdev "--device '-2'" "$prov" prove -i "$dir/p" -o "$dir/out" --device -2
expect_err verify_noargs 'no files given' "$prov" verify
expect_err verify_unknown "unknown option '--fast'" "$prov" verify --fast "$dir/h"

# --- an explicit CUDA backend where none answers ----------------------------
# Where a GPU answers, the same H must come out of it instead.
run cuda_probe "$prov" prove -i "$dir/p" -o "$dir/h_cuda" --backend cuda
if [ "$(cat "$dir/cuda_probe.rc")" -eq 0 ]; then
  echo "info: a GPU answers here; checked its H against the CPU's instead of the no-GPU error"
  cmp -s "$dir/h" "$dir/h_cuda" || fail "cuda H differs from cpu H"
else
  expect_err prove_cuda 'provisor prove: .*cuda' "$prov" prove -i "$dir/p" -o "$dir/out" --backend cuda
fi

# --- `--gpus auto`: the supervisor asks `gpuworker --count-devices` ----------
# One line: the CUDA device count, and why when it is 0. The supervisor's
# start says the same: the count, or "no GPU found: WHY".
expect_ok count "$bin/gpuworker" --count-devices
if ! grep -Eq '^([1-9][0-9]*|0 .+)$' "$dir/count.out" || [ "$(wc -l <"$dir/count.out")" -ne 1 ]; then
  fail "gpuworker --count-devices printed: $(cat "$dir/count.out")"
else
  n=$(cut -d' ' -f1 "$dir/count.out")
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    [ "$n" -eq "$(nvidia-smi -L | wc -l)" ] || fail "CUDA counts $n devices, nvidia-smi $(nvidia-smi -L | wc -l)"
  else
    [ "$n" -eq 0 ] || fail "no NVIDIA driver, yet $n devices"
  fi
  name=t-cli-$$
  timeout 20 "$prov" run --name "$name" --state-dir "$dir/state" 2>"$dir/sup.err" &
  sup=$!
  for _ in $(seq 100); do "$prov" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
  "$prov" stop --name "$name" >/dev/null 2>&1
  wait "$sup"
  if [ "$n" -eq 0 ]; then
    grep -qF "no GPU found: $(cut -d' ' -f2- "$dir/count.out"): running 2 CPU-backed" "$dir/sup.err" ||
      fail "the supervisor's start does not give the probe's reason: $(head -3 "$dir/sup.err")"
  else
    grep -q "$n GPU(s) found by CUDA" "$dir/sup.err" || fail "the supervisor did not find $n GPU(s)"
  fi
  echo "info: gpuworker --count-devices: $(cat "$dir/count.out")"
fi

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all CLI checks passed"
