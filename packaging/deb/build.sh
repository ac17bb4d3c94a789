#!/bin/bash
# Builds the .deb with dpkg-deb from the staged tree (no debhelper: the
# payload is one prebuilt static binary plus data files).
# No Depends: the binary is static. Architecture is DEB_ARCH (make passes
# the target's: amd64, arm64), else the build host's.
# usage: build.sh STAGED_TREE OUT_DIR   (prints the .deb's path)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$1 outdir=$2
version=$(cat "$root/VERSION")
arch=${DEB_ARCH:-$(dpkg --print-architecture)}

# Control "Description:": the summary line, then the long text with each
# line indented by one space and empty lines written as " .".
desc=$(sed -n '1p' "$root/packaging/description"; sed -n '3,$p' "$root/packaging/description" |
       sed -e 's/^$/./' -e 's/^/ /')
mkdir -p "$stage/DEBIAN"
# Debian-only file, so it is added here and not by stage.sh (the .rpm has
# everything else): the reasons stk is static, for lintian.
install -D -m 0644 "$root/packaging/deb/lintian-overrides" "$stage/usr/share/lintian/overrides/stk"
# Installed-Size is in KiB, as dpkg computes it (du of the payload).
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
awk -v v="$version" -v a="$arch" -v s="$size" -v m="$(cat "$root/packaging/maintainer")" -v d="$desc" '
    { gsub(/@VERSION@/, v); gsub(/@ARCH@/, a); gsub(/@SIZE@/, s); gsub(/@MAINTAINER@/, m);
      gsub(/@DESCRIPTION@/, d); print }' "$root/packaging/deb/control.in" >"$stage/DEBIAN/control"
# conffiles: none (nothing under /etc). md5sums, as dpkg --verify uses them.
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
    xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

mkdir -p "$outdir"
deb=$outdir/stk_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage/DEBIAN" "$stage/usr/share/lintian"
echo "$deb"
