#!/usr/bin/env bash
# Memcheck over an end-to-end job: the supervisor and every worker run
# under valgrind (PROVISOR_WORKER_WRAP puts it in front of the workers)
# while a winning-post and a porep job go through them; a gpuworker is
# SIGKILLed between the two and restarted. Then the CLI path: synth,
# prove, verify under valgrind too. Every valgrind run must report no
# invalid access, no use of uninitialised memory and no definite leak.
# Valgrind 3.19 lacks pidfd_open, so the supervisor watches its children
# through SIGCHLD here: that fallback is exercised too.
set -u
bin=${BIN:-bin}
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 77; }
case "$bin" in *asan*|*tsan*) echo "sanitizer build: valgrind does not mix with it"; exit 77;; esac
prov=$(realpath "$bin/provisor")
name=t-vg-$$
dir=$(mktemp -d "${TMPDIR:-/tmp}/provisor-vg.XXXXXX")
sup=
cleanup() {
  [ -n "$sup" ] && kill "$sup" 2>/dev/null && wait "$sup" 2>/dev/null
  rm -f "/run/provisor/$name.status"
  rm -rf "$dir"
}
trap cleanup EXIT
vg="$(command -v valgrind) -q --vgdb=no --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite"
export PROVISOR_WORKER_WRAP="$vg --log-file=$dir/vg.%p.log"
# A worker under valgrind starts slowly, more so on a loaded machine: give
# it 60 s to say hello before the watchdog calls it hung.
printf '[supervisor]\nheartbeat_timeout = 60s\n' >"$dir/conf"
$vg --log-file="$dir/vgsup.log" "$prov" run --config "$dir/conf" --name "$name" --state-dir "$dir/state" 2>"$dir/sup.log" &
sup=$!
for _ in $(seq 600); do "$prov" ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
"$prov" submit --name "$name" --kind winning-post --log-size 8 --wait >/dev/null ||
  { echo "winning-post job failed under valgrind"; cat "$dir/sup.log"; exit 1; }
victim=$(pgrep -f -- "gpuworker --instance $name --slot 0" | head -n1)
[ -n "$victim" ] || { echo "no gpuworker to kill"; ps -ef | grep -v grep | grep gpuworker; exit 1; }
kill -9 "$victim"
"$prov" submit --name "$name" --kind porep --log-size 8 --partitions 3 --wait >/dev/null ||
  { echo "porep job failed under valgrind"; cat "$dir/sup.log"; exit 1; }
"$prov" verify "$dir"/state/results/*.result >/dev/null || { echo "results do not verify"; exit 1; }
"$prov" stop --name "$name" >/dev/null
wait "$sup"; rc=$?; sup=
[ "$rc" -eq 0 ] || { echo "supervisor exit $rc"; cat "$dir/sup.log" "$dir/vgsup.log"; exit 1; }
grep -q "killed by signal 9; restart" "$dir/sup.log" && grep -q "restarted" "$dir/sup.log" ||
  { echo "the killed gpuworker was not seen and restarted:"; cat "$dir/sup.log"; exit 1; }
[ "$(grep -c "killed\|exited with" "$dir/sup.log")" -eq 1 ] ||
  { echo "a worker died under valgrind:"; cat "$dir/sup.log"; exit 1; }
grep -q "Invalid\|uninitialised\|definitely lost" "$dir/vgsup.log" &&
  { echo "valgrind found problems in the supervisor:"; cat "$dir/vgsup.log"; exit 1; }
n=$(ls "$dir"/vg.*.log | wc -l)
bad=$(cat "$dir"/vg.*.log | grep -c "Invalid\|uninitialised\|definitely lost" || true)
[ "$n" -ge 4 ] || { echo "only $n worker logs"; exit 1; }
[ "$bad" -eq 0 ] || { echo "valgrind found problems in the workers:"; cat "$dir"/vg.*.log; exit 1; }
unset PROVISOR_WORKER_WRAP
$vg "$prov" synth --seed 0a0b --partition 1 --log-size 10 -o "$dir/p.part" &&
$vg "$prov" prove -i "$dir/p.part" -o "$dir/p.h" --backend cpu 2>/dev/null &&
$vg "$prov" verify "$dir/p.h" >/dev/null || { echo "valgrind found problems in synth/prove/verify"; exit 1; }
echo "info: valgrind: the supervisor (child exits by SIGCHLD, one worker killed and restarted), $n worker processes and synth/prove/verify: no invalid access, no definite leak"
