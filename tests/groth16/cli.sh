#!/usr/bin/env bash
# Groth16 through bin/provisor: setup -> synth -> prove --params ->
# verify --params says ok for every proof; the setup is deterministic; a
# test-randomness proof is reproducible and a CSPRNG one is not; and every
# bad input (a tampered proof, another partition's proof under a renamed
# identity, params of another seed, a params file for another k, a
# damaged params file, bad arguments) ends in one error line naming it
# and a non-zero exit. When @noble/curves is installed (make deps), its
# own pairing verifies the same proof files (tests/noble/verify_proof.mjs).
set -u
bin=${BIN:-bin}
prov=$bin/provisor
[ -x "$prov" ] || { echo "no $prov: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-g16.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { local name=$1; shift; "$@" >"$dir/$name.out" 2>"$dir/$name.err"; echo $? >"$dir/$name.rc"; }
expect_ok() {
  local name=$1; run "$@"
  local rc; rc=$(cat "$dir/$name.rc")
  [ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$dir/$name.err")"
}
# expect_err NAME CODE PATTERN CMD...: exit CODE, one stderr line matching PATTERN
expect_err() {
  local name=$1 code=$2 pat=$3; shift 3
  run "$name" "$@"
  local rc lines; rc=$(cat "$dir/$name.rc"); lines=$(wc -l <"$dir/$name.err")
  if [ "$rc" -ne "$code" ]; then fail "$name: exit $rc, expected $code: $(cat "$dir/$name.err")"
  elif [ "$lines" -ne 1 ]; then fail "$name: $lines lines on stderr, expected 1:"; sed 's/^/    /' "$dir/$name.err"
  elif ! grep -Eq -- "$pat" "$dir/$name.err"; then fail "$name: stderr '$(cat "$dir/$name.err")' does not match '$pat'"
  else echo "ok: $name -> $(cat "$dir/$name.err")"
  fi
}
put_hex() { printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
flip() {  # FILE OFFSET: flip the low bit of one byte
  local b; b=$(od -An -tx1 -j "$2" -N1 "$1" | tr -d ' ')
  put_hex "$1" "$2" "$(printf '%02x' $((0x$b ^ 1)))"
}
reseal() {  # FILE: recompute the trailing BLAKE2b-256
  local len sum; len=$(stat -c %s "$1")
  sum=$(head -c $((len - 32)) "$1" | b2sum -l 256 | cut -d' ' -f1)
  put_hex "$1" $((len - 32)) "$sum"
}

k=7
expect_ok setup "$prov" setup --seed 0a0b --log-size $k -o "$dir/params"
grep -q "NOT SECURE" "$dir/setup.out" || fail "setup does not say it is not secure"
expect_ok setup2 "$prov" setup --seed 0a0b --log-size $k -o "$dir/params2" --threads 1
cmp -s "$dir/params" "$dir/params2" || fail "setup is not deterministic"
expect_ok setup_other "$prov" setup --seed 99 --log-size $k -o "$dir/params_other"
expect_ok setup_k8 "$prov" setup --seed 0a0b --log-size 8 -o "$dir/params_k8"

for p in 0 1 2; do
  expect_ok synth$p "$prov" synth --seed c0de --partition $p --log-size $k -o "$dir/part$p"
  expect_ok prove$p "$prov" prove -i "$dir/part$p" --params "$dir/params" -o "$dir/proof$p" --backend cpu
  [ "$(stat -c %s "$dir/proof$p" 2>/dev/null)" = 376 ] || fail "proof$p is not 376 bytes"
done
expect_ok verify "$prov" verify --params "$dir/params" "$dir/proof0" "$dir/proof1" "$dir/proof2"
[ "$(grep -c ': ok$' "$dir/verify.out")" = 3 ] || fail "verify did not say ok three times: $(cat "$dir/verify.out")"

# randomness: fixed by the test option, fresh otherwise
expect_ok proveT1 "$prov" prove -i "$dir/part0" --params "$dir/params" -o "$dir/t1" --insecure-test-randomness 01
expect_ok proveT2 "$prov" prove -i "$dir/part0" --params "$dir/params" -o "$dir/t2" --insecure-test-randomness 01
cmp -s "$dir/t1" "$dir/t2" || fail "the same test randomness gave two proofs"
expect_ok proveR "$prov" prove -i "$dir/part0" --params "$dir/params" -o "$dir/t3"
cmp -s "$dir/proof0" "$dir/t3" && fail "two CSPRNG proofs are the same bytes"

# tampered: a flipped bit of A (the checksum catches it), then resealed
cp "$dir/proof0" "$dir/bad_sum"; flip "$dir/bad_sum" 170
expect_err tampered 1 "bad_sum: checksum mismatch" "$prov" verify --params "$dir/params" "$dir/bad_sum"
cp "$dir/proof0" "$dir/bad_a"; flip "$dir/bad_a" 199; reseal "$dir/bad_a"
expect_err tampered_resealed 1 "bad_a: proof A: " "$prov" verify --params "$dir/params" "$dir/bad_a"
# x_0 of partition 1 written into partition 0's proof, resealed: wrong public input
cp "$dir/proof0" "$dir/bad_x0"; put_hex "$dir/bad_x0" 88 "$(od -An -tx1 -j 88 -N 32 "$dir/proof1" | tr -d ' \n')"; reseal "$dir/bad_x0"
expect_err wrong_x0 1 "wrong public input x_0" "$prov" verify --params "$dir/params" "$dir/bad_x0"
# partition 1's proof relabelled as partition 0 with its inputs: the pairing fails
cp "$dir/proof1" "$dir/bad_relabel"; put_hex "$dir/bad_relabel" 16 00000000
put_hex "$dir/bad_relabel" 88 "$(od -An -tx1 -j 88 -N 64 "$dir/proof0" | tr -d ' \n')"; reseal "$dir/bad_relabel"
expect_err relabelled 1 "pairing equation does not hold" "$prov" verify --params "$dir/params" "$dir/bad_relabel"
expect_err other_params 1 "other params" "$prov" verify --params "$dir/params_other" "$dir/proof0"
# one bad among good: exit 1, the good ones still say ok
run mixed "$prov" verify --params "$dir/params" "$dir/proof1" "$dir/bad_sum" "$dir/proof2"
[ "$(cat "$dir/mixed.rc")" = 1 ] && [ "$(grep -c ': ok$' "$dir/mixed.out")" = 2 ] || fail "mixed: rc $(cat "$dir/mixed.rc")"

# params that do not fit
expect_err prove_wrong_k 1 "is for k=8" "$prov" prove -i "$dir/part0" --params "$dir/params_k8" -o "$dir/x"
cp "$dir/params" "$dir/params_bad"; flip "$dir/params_bad" 2000
expect_err params_corrupt 1 "checksum mismatch" "$prov" prove -i "$dir/part0" --params "$dir/params_bad" -o "$dir/x"
expect_err params_missing 1 "nonexistent" "$prov" verify --params "$dir/nonexistent" "$dir/proof0"
[ -e "$dir/x" ] && fail "a failed prove left its output"
expect_err setup_k 2 "log-size" "$prov" setup --seed 01 --log-size 2 -o "$dir/x"
expect_err setup_seed 2 "seed" "$prov" setup --seed xyz --log-size 5 -o "$dir/x"
expect_err setup_noout 2 "missing" "$prov" setup --seed 01 --log-size 5
expect_err rs_without_params 2 "needs --params" "$prov" prove -i "$dir/part0" -o "$dir/x" --insecure-test-randomness 01

# without --params, prove still writes an H file that verify checks
expect_ok prove_h "$prov" prove -i "$dir/part0" -o "$dir/h0" --backend cpu
expect_ok verify_h "$prov" verify "$dir/h0"

# the independent check: noble's pairing on the same files
noble=$(cd "$(dirname "$0")/../noble" && pwd)
if command -v node >/dev/null && [ -d "$noble/node_modules/@noble/curves" ]; then
  for p in 0 1 2; do
    out=$(node "$noble/verify_proof.mjs" "$dir/params" "$dir/proof$p" 2>&1) || fail "noble refused proof$p: $out"
  done
  for b in bad_relabel bad_x0 bad_a; do
    out=$(node "$noble/verify_proof.mjs" "$dir/params" "$dir/$b" 2>&1) && fail "noble accepted $b"
    echo "ok: noble refused $b: $out"
  done
  out=$(node "$noble/verify_proof.mjs" "$dir/params_other" "$dir/proof0" 2>&1) && fail "noble accepted other params"
  echo "ok: noble verified the three proofs and refused four bad ones"
else
  echo "info: noble not installed (make deps): its cross-check skipped"
fi

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all Groth16 CLI checks passed"
