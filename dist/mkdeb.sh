#!/usr/bin/env bash
# mkdeb.sh ROOT VERSION OUTDIR: turn ROOT, a `make install PREFIX=/usr
# DESTDIR=ROOT` tree, into OUTDIR/provisor_VERSION_ARCH.deb (make deb).
#
# What Debian asks of a binary package beyond the files: stripped
# programs, man pages and changelog gzipped with -9n (reproducible), a
# copyright file, a control file whose Depends come from the programs'
# shared libraries (dpkg-shlibdeps, or a fixed list where it is missing),
# md5sums, and files owned by root (dpkg-deb --root-owner-group).
set -eu
root=$1 version=$2 outdir=$3
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
progs=("$root/usr/bin/provisor" "$root/usr/libexec/provisor/gpuworker" "$root/usr/libexec/provisor/synth")
doc=$root/usr/share/doc/provisor

# The changelog's first entry is this version, or dpkg and lintian object.
head -1 "$here/changelog" | grep -qF "provisor ($version) " ||
  { echo "mkdeb: dist/changelog's first entry is not version $version: add one" >&2; exit 1; }
for p in "${progs[@]}"; do
  [ -x "$p" ] || { echo "mkdeb: $p missing: run make install DESTDIR=$root PREFIX=/usr first" >&2; exit 1; }
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$p"
done
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9nf {} +
install -d -m 0755 "$doc"
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9nc "$here/changelog" >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"

# Depends: dpkg-shlibdeps reads debian/control to learn the package's
# name, so it runs in a scratch directory holding a minimal one.
depends=
if command -v dpkg-shlibdeps >/dev/null; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir "$scratch/debian"
  printf 'Source: provisor\n\nPackage: provisor\nArchitecture: any\n' >"$scratch/debian/control"
  abs=()
  for p in "${progs[@]}"; do abs+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"); done
  depends=$(cd "$scratch" && dpkg-shlibdeps -O "${abs[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
fi
if [ -z "$depends" ]; then
  # Debian 12's runtime packages for the libraries the programs link.
  depends="libc6, libgcc-s1, libstdc++6, liburing2, libncursesw6, libtinfo6, libsodium23, libxxhash0,"
  depends="$depends libinih1, libjson-c5, libmicrohttpd12, libsystemd0, libgmp10"
fi

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
install -d -m 0755 "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: provisor
Version: $version
Architecture: $arch
Maintainer: provisor maintainers <maintainers@users.noreply.a-seed-68c6cd0c.example>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: supervisor for GPU proving rigs
 provisor runs proving jobs (Groth16 partitions of a hash-chain circuit)
 on a rig's GPUs: a pool of synthesis workers feeds one or more GPU
 workers per GPU, with priorities, a crash-safe journal, restart with
 backoff, and a status segment that the status, top and exporter
 commands read without disturbing the supervisor.
 .
 The package installs the provisor command, its workers under
 /usr/libexec/provisor, a systemd unit template (provisor@NAME), the
 provisor(1) and provisor.conf(5) man pages, an example configuration, and
 the system user provisor that the unit runs as (sysusers.d).
CONTROL
# The unit's system user, made at configure (never removed: files it
# owned may remain, and Debian leaves system users in place on purge).
cat >"$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ] && command -v systemd-sysusers >/dev/null; then
	systemd-sysusers provisor.conf
fi
POSTINST
chmod 0755 "$root/DEBIAN/postinst"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
  >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
# Directories 0755 and files 0644 (programs 0755) whatever the umask was.
find "$root" -type d -exec chmod 0755 {} +

mkdir -p "$outdir"
out=$outdir/provisor_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out"
echo "mkdeb: $out"
