#!/usr/bin/env bash
# The package `make deb` built (bin-deb/provisor_VERSION_ARCH.deb; this
# test does not build it, since that is a second build of everything, and
# skips when it is not there): its control data and contents are what
# Debian and the unit need, owned by root, programs stripped; lintian
# (where installed) reports no error. As root with apt and no provisor
# package installed already, it is installed with apt, runs a job
# through the unit's ExecStart binary, and is purged again.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
command -v dpkg-deb >/dev/null || { echo "needs dpkg-deb"; exit 77; }
version=$(sed -n 's/^#define PROVISOR_VERSION "\(.*\)"/\1/p' "$top/cli/main.c")
version=$version-$(sed -n '1s/^provisor ([^-]*-\([^)]*\)).*/\1/p' "$top/dist/changelog")
deb=$top/bin-deb/provisor_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { echo "no ${deb#"$top"/}: run make deb first"; exit 77; }

# --- control data --------------------------------------------------------
dpkg-deb --field "$deb" >"$T/control" || fail "dpkg-deb --field failed"
field() { sed -n "s/^$1: //p" "$T/control"; }
[ "$(field Package)" = provisor ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: '$(field Version)', expected $version"
for lib in libc6 libsodium23 liburing2 libsystemd0 libinih1 libjson-c5 libmicrohttpd12 libxxhash0; do
  field Depends | grep -qE "(^|, )$lib( |,|$)" || fail "Depends lacks $lib: $(field Depends)"
done
[ -n "$(field Maintainer)" ] && [ -n "$(field Description)" ] || fail "no Maintainer or Description"

# --- contents ------------------------------------------------------------
dpkg-deb --contents "$deb" >"$T/contents" || fail "dpkg-deb --contents failed"
for f in usr/bin/provisor usr/libexec/provisor/gpuworker usr/libexec/provisor/synth \
         lib/systemd/system/provisor@.service usr/share/man/man1/provisor.1.gz \
         usr/share/man/man5/provisor.conf.5.gz usr/share/doc/provisor/copyright \
         usr/share/doc/provisor/changelog.Debian.gz usr/share/doc/provisor/provisor.conf.example \
         usr/lib/sysusers.d/provisor.conf; do
  grep -qE " \./$f$" "$T/contents" || fail "the package lacks /$f"
done
awk '$2 != "root/root" { print }' "$T/contents" | grep . && fail "files not owned by root/root"
dpkg-deb -x "$deb" "$T/x"
grep -qx 'ExecStart=/usr/bin/provisor run --name %i --state-dir /var/lib/provisor/%i' \
  "$T/x/lib/systemd/system/provisor@.service" || fail "the unit's ExecStart is not /usr/bin/provisor"
for p in usr/bin/provisor usr/libexec/provisor/gpuworker usr/libexec/provisor/synth; do
  readelf -S "$T/x/$p" 2>/dev/null | grep -q '\.symtab' && fail "/$p is not stripped"
done
v=$("$T/x/usr/bin/provisor" version) && [ "$v" = "provisor ${version%-*}" ] || fail "packaged provisor version: '$v'"
gzip -t "$T/x/usr/share/man/man1/provisor.1.gz" "$T/x/usr/share/doc/provisor/changelog.Debian.gz" ||
  fail "a .gz in the package is broken"

# --- lintian ---------------------------------------------------------------
if command -v lintian >/dev/null; then
  # its scratch files go in $T: lintian leaves some in TMPDIR
  mkdir "$T/lt"
  TMPDIR=$T/lt lintian --tag-display-limit 0 "$deb" 2>&1 | grep -v 'root privileges' >"$T/lintian"
  grep '^E:' "$T/lintian" && fail "lintian reports errors"
  sed 's/^/info: lintian: /' "$T/lintian"
else
  echo "info: lintian is not installed: not run"
fi

# --- installed with apt ------------------------------------------------------
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "info: not root or no apt-get: the package was not installed"
elif dpkg-query -W -f '${Status}' provisor 2>/dev/null | grep -q 'ok installed'; then
  echo "info: a provisor package is installed already: left alone, not installed over"
else
  export DEBIAN_FRONTEND=noninteractive
  had_user=$(getent passwd provisor)
  cleanup() {
    kill -KILL "${sup:-}" 2>/dev/null; wait "${sup:-}" 2>/dev/null
    apt-get purge -y provisor >/dev/null 2>&1
    # the package's postinst made the unit's user: gone again unless it was there
    [ -n "$had_user" ] || userdel provisor 2>/dev/null
    rm -rf "$T"
  }
  trap cleanup EXIT
  if ! apt-get install -y --no-install-recommends "$deb" >"$T/apt.log" 2>&1; then
    fail "apt-get install $deb:"; tail -5 "$T/apt.log" | sed 's/^/    /'
  else
    getent passwd provisor >/dev/null || fail "the package's postinst did not make the user provisor"
    name=pvt-deb-$$
    /usr/bin/provisor run --name "$name" --state-dir "$T/state" --gpus 1 --workers-per-gpu 1 --synth 1 \
      --backend cpu >"$T/sup.log" 2>&1 &
    sup=$!
    for _ in $(seq 100); do /usr/bin/provisor ping --name "$name" >/dev/null 2>&1 && break; sleep 0.1; done
    out=$(/usr/bin/provisor submit --name "$name" --kind winning-post --log-size 8 --wait 2>&1) ||
      fail "submit to the installed package's supervisor: $out $(tail -3 "$T/sup.log")"
    /usr/bin/provisor stop --name "$name" >/dev/null || fail "stop"
    wait "$sup" || fail "the installed supervisor exited $?"
    MANPATH=/usr/share/man man -w provisor.conf >/dev/null 2>&1 || fail "man cannot find provisor.conf(5)"
    apt-get purge -y provisor >"$T/apt.log" 2>&1 || fail "apt-get purge provisor"
    [ -e /usr/bin/provisor ] && fail "/usr/bin/provisor left after purge"
    echo "info: installed with apt, ran a job, purged"
  fi
fi
finish
