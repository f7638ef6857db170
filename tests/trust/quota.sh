#!/usr/bin/env bash
# Fair shares of the job table (supervisor/policy.c jobs_admit), with
# every GPU worker disabled so that accepted jobs stay queued:
# - a socket_group member submits until refused: it gets
#   max_jobs_per_uid jobs, then "uid N has max_jobs_per_uid (8) jobs";
# - a second member gets what is left short of the quarter of max_jobs
#   kept for root and the supervisor's uid, then "the last 4 of max_jobs
#   (16) are kept";
# - root's winning-post is still accepted, up to max_jobs itself.
# - Every control action is in the log with the uid and pid that asked
#   (the members' submits, and their refusals).
# - After a restart the resumed jobs still count against who submitted
#   them (the journal records the uid).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
g=pvt$$g a=pvt$$a b=pvt$$b
mkgroup "$g"
mkuser "$a" "$g"
mkuser "$b" "$g"
x=pvt-quota-$$
printf '[supervisor]\nsocket_group = %s\nmax_jobs = 16\nmax_jobs_per_uid = 8\n' "$g" >"$T/q.ini"
start "$x" "$T/x" --config "$T/q.ini"
"$P" worker disable gpu.0 --name "$x" >/dev/null || fail "worker disable gpu.0"

# submit_until USER: submits as USER until one is refused; prints how many
# were accepted, and leaves the refusal in $T/err.
submit_until() {
  local n=0
  while [ "$n" -lt 40 ]; do
    as "$1" "$P" submit --name "$x" --kind winning-post --log-size 8 >"$T/out" 2>"$T/err" || break
    n=$((n + 1))
  done
  echo "$n"
}
na=$(submit_until "$a")
[ "$na" = 8 ] || fail "member $a got $na jobs, expected max_jobs_per_uid (8)"
grep -q "job limit reached: uid $(id -u "$a") has max_jobs_per_uid (8) jobs queued or running" "$T/err" ||
  fail "member $a's refusal: $(cat "$T/err")"
echo "info: $a: $(cat "$T/err")"
nb=$(submit_until "$b")
[ "$nb" = 4 ] || fail "member $b got $nb jobs, expected 4 (16 less the 4 kept, less $a's 8)"
grep -q "job limit reached: the last 4 of max_jobs (16) are kept for root and the supervisor's uid" "$T/err" ||
  fail "member $b's refusal: $(cat "$T/err")"
echo "info: $b: $(cat "$T/err")"
for i in 1 2 3 4; do
  "$P" submit --name "$x" --kind winning-post --log-size 8 >"$T/out" 2>&1 || fail "root's submit $i: $(cat "$T/out")"
  head -n 1 "$T/out" >>"$T/root-ids"
done
"$P" submit --name "$x" --kind winning-post --log-size 8 >"$T/out" 2>&1 && fail "root's 17th job was accepted"
grep -q "max_jobs (16) jobs queued or running" "$T/out" || fail "root's 17th: $(cat "$T/out")"

log=$T/x/log
n=$(grep -c "control: uid $(id -u "$a") pid [1-9][0-9]*: submit winning-post k=8: ok " "$log")
[ "$n" = 8 ] || fail "the log has $n of $a's 8 accepted submits with its uid and pid"
grep -q "control: uid $(id -u "$b") pid [1-9][0-9]*: submit winning-post k=8: err job limit reached" "$log" ||
  fail "the log lacks $b's refusal"
grep -q "control: uid 0 pid [1-9][0-9]*: worker disable gpu.0: ok" "$log" || fail "the log lacks root's worker disable"
grep "control: " "$log" | head -n 2 | sed 's/^/info: log: /'

# A restart keeps who submitted what (the journal's SUBMIT says so,
# docs/journal.md): root's four cancelled first, the members' twelve are
# resumed and are still theirs, so $a's next submit is refused for its
# own share, not for the table's last quarter as if the supervisor's
# uid held them. The restarted GPU slot refuses its device at once
# (misbehave.so, baddev), so nothing runs meanwhile.
while read -r id; do
  "$P" cancel --name "$x" "$id" >/dev/null 2>&1 || fail "cancel root's job $id"
done <"$T/root-ids"
stop "$x" "$sup_pid"
cp "$bindir/plugins/misbehave.so" "$T/bin/" && chmod 755 "$T/bin/misbehave.so" || fail "copy misbehave.so"
PROVISOR_MISBEHAVE=baddev start "$x" "$T/x" --config "$T/q.ini" --backend "plugin:$T/bin/misbehave.so"
as "$a" "$P" submit --name "$x" --kind winning-post --log-size 8 >"$T/out" 2>"$T/err" &&
  fail "member $a's submit after the restart was accepted: its resumed jobs are not counted as its"
grep -q "job limit reached: uid $(id -u "$a") has max_jobs_per_uid (8) jobs queued or running" "$T/err" ||
  fail "member $a's refusal after the restart: $(cat "$T/err")"
echo "info: after a restart, $a: $(cat "$T/err")"
stop "$x" "$sup_pid"
finish
