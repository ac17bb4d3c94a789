#!/bin/bash
# Prints the path of a static busybox for the guests of ARCH (the Makefile's
# x86 or arm64). The host's own (busybox-static) serves its architecture;
# another one comes from Debian's busybox-static package of that
# architecture, fetched with apt through a private list dir into the cache.
set -euo pipefail
CACHE=${STK_VM_CACHE:-/var/cache/stk-vm}
host=$(dpkg --print-architecture)
case ${ARCH:-x86} in
    x86|x86_64|amd64) want=amd64 ;;
    arm64|aarch64) want=arm64 ;;
    *) echo "fetch-busybox: no busybox for ARCH=$ARCH" >&2; exit 2 ;;
esac
if [ "$want" = "$host" ]; then echo /bin/busybox; exit 0; fi
out=$CACHE/busybox-$want/busybox
if [ ! -x "$out" ]; then
    d=$CACHE/apt/busybox-$want
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/x"
    echo "deb [arch=$want] http://deb.debian.org/debian bookworm main" > "$d/sources.list"
    opts=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o Dir::State::status=/dev/null
          -o APT::Architecture="$want" -o APT::Architectures="$want" -o APT::Sandbox::User=root)
    apt-get -q "${opts[@]}" update >/dev/null 2>&1
    (cd "$d" && rm -f ./*.deb && apt-get -q "${opts[@]}" download busybox-static >/dev/null 2>&1)
    dpkg-deb -x "$d"/busybox-static_*.deb "$d/x"
    mkdir -p "$(dirname "$out")"
    cp "$d/x/bin/busybox" "$out.tmp" && mv "$out.tmp" "$out"
    rm -rf "$d/x" "$d"/*.deb
fi
echo "$out"
