#!/usr/bin/env bash
# The installed tree runs a job end to end: make install PREFIX=/usr into
# a DESTDIR, then that tree's provisor, started with the installed example
# configuration (plus flags for a small CPU rig), finds its workers in
# DESTDIR/usr/libexec/provisor, proves a job whose result verifies, and
# stops cleanly. A provisor with no workers beside it or in
# ../libexec/provisor refuses to start with one line. make uninstall then
# removes every file install wrote.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
need_programs
D=$T/root
dist_install "$D" /usr
P=$D/usr/bin/provisor
L=$D/usr/libexec/provisor
for f in "$P" "$L/gpuworker" "$L/synth"; do [ -x "$f" ] || fail "not installed: $f"; done
[ -e "$D/usr/bin/gpuworker" ] && fail "gpuworker installed into bin/"
ex=$D/usr/share/doc/provisor/provisor.conf.example
[ -f "$ex" ] || fail "no example configuration at $ex"

name=pvt-inst-$$
"$P" run --config "$ex" --name "$name" --state-dir "$T/state" --gpus 1 --workers-per-gpu 1 --synth 1 \
  --backend cpu >"$T/sup.log" 2>&1 &
sup=$!
trap 'kill -KILL $sup 2>/dev/null; wait $sup 2>/dev/null; rm -rf "$T"' EXIT
up=0
for _ in $(seq 100); do
  "$P" ping --name "$name" >/dev/null 2>&1 && { up=1; break; }
  kill -0 "$sup" 2>/dev/null || break
  sleep 0.1
done
if [ "$up" -eq 0 ]; then
  echo "FAIL: the installed supervisor did not come up:"; sed 's/^/    /' "$T/sup.log"; exit 1
fi
# Its workers are the installed ones.
workers=$(for c in $(cat /proc/"$sup"/task/*/children 2>/dev/null); do readlink "/proc/$c/exe"; done | sort -u)
[ "$workers" = "$(printf '%s\n%s' "$L/gpuworker" "$L/synth")" ] ||
  fail "the supervisor's children run '$(echo $workers)', expected $L/gpuworker and $L/synth"
out=$("$P" submit --name "$name" --kind winning-post --log-size 8 --partitions 2 --wait 2>&1) ||
  fail "submit --wait: $out"
res=$(echo "$out" | sed -n 's/^job [0-9]* done: //p')
case $res in "$T/state/results/job-"*.result) ;; *) fail "no result path in '$out'" ;; esac
if [ -f "$res" ]; then
  v=$("$P" verify "$res" 2>&1) || fail "verify $res: $v"
  [ "$(echo "$v" | grep -c ': ok$')" -eq 2 ] || fail "verify did not find 2 good partitions: $v"
fi
"$P" stop --name "$name" >/dev/null || fail "stop"
wait "$sup" || fail "the supervisor exited $?: $(tail -3 "$T/sup.log")"
trap 'rm -rf "$T"' EXIT

# Without its workers: one line, and no start.
mkdir "$T/alone"
cp "$P" "$T/alone/provisor"
"$T/alone/provisor" run --name "pvt-alone-$$" --state-dir "$T/st2" --gpus 1 --backend cpu >"$T/a.out" 2>"$T/a.err"
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(wc -l <"$T/a.err")" -eq 1 ] &&
  grep -q "gpuworker and synth are neither in $T/alone nor in" "$T/a.err" ||
  fail "provisor without workers: exit $rc, stderr: $(cat "$T/a.err")"

make -s -C "$top" --no-print-directory BIN="$bin" uninstall DESTDIR="$D" PREFIX=/usr >"$T/un.log" 2>&1 ||
  fail "make uninstall: $(cat "$T/un.log")"
left=$(find "$D" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
finish
