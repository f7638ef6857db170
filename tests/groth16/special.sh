#!/usr/bin/env bash
# A FIFO, a device or a directory given where a params, proof or
# partition file belongs (prove --params, verify --params, the proof
# files, prove -i, params load) ends at once in exit 1 and one line
# saying it is not a regular file: it never waits for a writer (a FIFO
# blocked open() forever) nor reads without end (/dev/zero).
set -u
bin=${BIN:-bin}
prov=$bin/provisor
[ -x "$prov" ] || { echo "no $prov: build it first"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-g16s.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# refused NAME CMD...: exit 1 (not a timeout's 124), one stderr line naming the kind
refused() {
  local name=$1 rc lines; shift
  timeout 20 "$@" >"$dir/$name.out" 2>"$dir/$name.err"; rc=$?
  lines=$(wc -l <"$dir/$name.err")
  if [ "$rc" -ne 1 ]; then fail "$name: exit $rc, expected 1: $(cat "$dir/$name.err")"
  elif [ "$lines" -ne 1 ]; then fail "$name: $lines lines on stderr, expected 1:"; sed 's/^/    /' "$dir/$name.err"
  elif ! grep -Eq 'not a regular file \((a FIFO|a device|a directory)\)$' "$dir/$name.err"; then
    fail "$name: stderr '$(cat "$dir/$name.err")' does not say it is not a regular file"
  else echo "ok: $name -> $(cat "$dir/$name.err")"
  fi
}

k=5
"$prov" setup --seed 0a0b --log-size $k -o "$dir/params" >/dev/null 2>&1 &&
  "$prov" synth --seed c0de --partition 0 --log-size $k -o "$dir/part" >/dev/null 2>&1 &&
  "$prov" prove -i "$dir/part" --params "$dir/params" -o "$dir/proof" --backend cpu >/dev/null 2>&1 ||
  { echo "FAIL: could not make the params, partition and proof"; exit 1; }
mkfifo "$dir/fifo" && mkdir "$dir/adir" && mkdir -m 700 "$dir/state" || exit 1

refused prove_params_fifo "$prov" prove -i "$dir/part" --params "$dir/fifo" -o "$dir/x" --backend cpu
refused prove_params_zero "$prov" prove -i "$dir/part" --params /dev/zero -o "$dir/x" --backend cpu
refused prove_input_fifo "$prov" prove -i "$dir/fifo" --params "$dir/params" -o "$dir/x" --backend cpu
refused verify_params_fifo "$prov" verify --params "$dir/fifo" "$dir/proof"
refused verify_params_zero "$prov" verify --params /dev/zero "$dir/proof"
refused verify_params_dir "$prov" verify --params "$dir/adir" "$dir/proof"
refused verify_proof_fifo "$prov" verify --params "$dir/params" "$dir/fifo"
refused verify_proof_zero "$prov" verify --params "$dir/params" /dev/zero
refused verify_h_fifo "$prov" verify "$dir/fifo"
refused params_load_fifo "$prov" params load "$dir/fifo" --state-dir "$dir/state"
[ -e "$dir/x" ] && fail "a refused prove left its output"
# the same files as regular ones still work
"$prov" verify --params "$dir/params" "$dir/proof" >/dev/null 2>&1 || fail "the regular proof no longer verifies"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "every FIFO, device and directory refused at once with one line"
