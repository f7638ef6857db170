#!/usr/bin/env bash
# tests/noble/selftest.sh: verify_proof.mjs, the independent Groth16
# verifier, on a valid toy params + proof pair made by mkproof.mjs (noble
# alone) and on edits of it that must each be refused for their own
# reason: a flipped byte in A, a changed x_0, A off the curve or outside
# the subgroup (each with the proof's digest made right again, so that the
# check behind the digest is the one reached), a stale digest, params
# that are not the proof's, a corrupted params file, a short proof.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1 || [ ! -e "$here/node_modules/@noble/curves/package.json" ]; then
  echo "noble not installed: run make deps"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/noble-selftest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0

mk() { node "$here/mkproof.mjs" "$@"; }
# poke FILE OFFSET HEX: overwrite bytes in place.
poke() { printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# flip FILE OFFSET: xor one byte with 0x01.
flip() { poke "$1" "$2" "$(printf '%02x' $(( $(od -An -tu1 -j "$2" -N1 "$1") ^ 1 )))"; }

# expect NAME RC PATTERN PARAMS PROOF: verify_proof exits RC and its output
# matches PATTERN.
expect() {
  local out rc
  out=$(node "$here/verify_proof.mjs" "$4" "$5" 2>&1); rc=$?
  if [ "$rc" -eq "$2" ] && grep -q -- "$3" <<<"$out"; then
    echo "info: $1: exit $rc: $(tail -n 1 <<<"$out")"
  else
    echo "check failed: $1: exit $rc, expected $2 and /$3/; output: $out"; fails=$((fails + 1))
  fi
}
fresh() { cp proof "$1"; }

mk make params proof || { echo "check failed: mkproof make"; exit 1; }
expect valid 0 '^ok$' params proof

fresh p; flip p $((152 + 47)); mk redigest p
expect "flipped byte in A" 1 'proof A:' params p

fresh p; flip p 88; mk redigest p
expect "changed x_0" 1 'pairing equation does not hold' params p

fresh p; poke p 152 "$(mk g1 offcurve)"; mk redigest p
expect "A off the curve" 1 'proof A:' params p

fresh p; poke p 152 "$(mk g1 nonsubgroup)"; mk redigest p
expect "A outside the subgroup" 1 'proof A:' params p

fresh p; poke p 296 "$(mk g1 offcurve)"; mk redigest p
expect "C off the curve" 1 'proof C:' params p

fresh p; flip p $((152 + 47))
expect "stale digest" 1 'digest does not match' params p

mk make params2 proof2
expect "other params" 1 'vk_digest' params2 proof

cp params q; flip q 500
expect "params corrupted" 1 'trailer digest' q proof

head -c 375 proof >p
expect "short proof" 1 '375 bytes' params p

[ "$fails" -eq 0 ]
