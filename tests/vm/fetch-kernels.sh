#!/bin/bash
# Fetches the Debian cloud kernels of the matrix (bullseye 5.10, bookworm 6.1,
# trixie 6.12, newest in sid) with apt through private list dirs, into a cache
# outside the repo, and unpacks each vmlinuz. Prints one line per kernel:
#   SUITE RELEASE VMLINUZ
# Cached: a second run downloads nothing.
# ARCH=arm64 (the Makefile's name) fetches the arm64 kernels instead, through
# their own list dirs (apt/SUITE-arm64); both share the cache's kernels/.
set -euo pipefail
CACHE=${STK_VM_CACHE:-/var/cache/stk-vm}
SUITES=${STK_VM_SUITES:-"bullseye bookworm trixie sid"}
case ${ARCH:-x86} in
    x86|x86_64|amd64) debarch=amd64 lists= ;;
    arm64|aarch64) debarch=arm64 lists=-arm64 ;;
    *) echo "fetch-kernels: no Debian kernels for ARCH=$ARCH" >&2; exit 2 ;;
esac

apt_in() { # SUITE ARGS...
    local d=$CACHE/apt/$1$lists; shift
    apt-get -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o APT::Sandbox::User=root \
        ${lists:+-o APT::Architecture=$debarch -o APT::Architectures=$debarch -o Dir::State::status=/dev/null} "$@"
}
apt_cache_in() {
    local d=$CACHE/apt/$1$lists; shift
    apt-cache -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
        ${lists:+-o APT::Architecture=$debarch -o APT::Architectures=$debarch -o Dir::State::status=/dev/null} "$@"
}

for suite in $SUITES; do
    d=$CACHE/apt/$suite$lists
    if [ ! -f "$d/lists/.updated" ] || [ -n "$(find "$d/lists/.updated" -mmin +1440 2>/dev/null)" ]; then
        mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
        echo "deb [arch=$debarch] http://deb.debian.org/debian $suite main" > "$d/sources.list"
        apt_in "$suite" update >/dev/null 2>&1
        touch "$d/lists/.updated"
    fi
    pkg=$(apt_cache_in "$suite" depends linux-image-cloud-$debarch 2>/dev/null |
          sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
    [ -n "$pkg" ] || { echo "fetch-kernels: no cloud kernel found in $suite" >&2; exit 1; }
    release=${pkg#linux-image-}
    kdir=$CACHE/kernels/$release
    if [ ! -f "$kdir/vmlinuz" ]; then
        rm -rf "$kdir" && mkdir -p "$kdir/x"
        # Newer suites split the files out of linux-image-* into linux-binary-*,
        # and keep them in /usr/lib/modules/RELEASE/ instead of /boot.
        found=
        for p in "$pkg" "linux-binary-$release" "linux-base-$release"; do
            (cd "$kdir" && apt_in "$suite" download "$p" >/dev/null 2>&1) || continue
            for deb in "$kdir"/*.deb; do dpkg-deb -x "$deb" "$kdir/x"; rm -f "$deb"; done
            for v in "$kdir/x/boot/vmlinuz-$release" "$kdir/x/usr/lib/modules/$release/vmlinuz"; do
                [ -f "$v" ] && found=$v
            done
            # The config (the tests' witness of what the kernel has) may sit in linux-base-*.
            [ -n "$found" ] && { [ -f "$kdir/x/boot/config-$release" ] ||
                                 [ -f "$kdir/x/usr/lib/modules/$release/config" ]; } && break
        done
        [ -n "$found" ] || { echo "fetch-kernels: no vmlinuz for $release in $suite" >&2; exit 1; }
        cp "$found" "$kdir/vmlinuz"
        for c in "$kdir/x/boot/config-$release" "$kdir/x/usr/lib/modules/$release/config"; do
            [ -f "$c" ] && cp "$c" "$kdir/config"
        done
        rm -rf "$kdir/x"
    fi
    echo "$suite $release $kdir/vmlinuz"
done
