#!/bin/bash
# Makes a btfhub-archive layout tree from Debian kernels, for the tests.
#   tests/vm/fetch-kernels.sh | btf/make-fixture.sh OUTDIR
# Reads "SUITE RELEASE VMLINUZ" lines and writes
#   OUTDIR/debian/VERSION_ID/ARCH/RELEASE.btf
# with the raw BTF from the vmlinux inside each vmlinuz. VERSION_ID is the
# suite's os-release VERSION_ID (bullseye 11, bookworm 12, trixie 13); sid
# and testing have none, so they go under "-" (see btf/README.md).
# Existing files newer than their vmlinuz are kept. Prints one line per
# kernel: "RELEASE ID VERSION_ID" (VERSION_ID "-" for none), the os-release
# a guest booting that kernel should have.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR < 'SUITE RELEASE VMLINUZ' lines" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")" && pwd)
# The kernels' architecture in btfhub's names: ARCH (the Makefile's x86 or
# arm64) when given, else this host's.
case ${ARCH:-$(uname -m)} in
    x86|x86_64) arch=x86_64 ;;
    arm64|aarch64) arch=arm64 ;;
    *) arch=$ARCH ;;
esac

version_of() {
    case $1 in
    buster) echo 10 ;; bullseye) echo 11 ;; bookworm) echo 12 ;; trixie) echo 13 ;; forky) echo 14 ;;
    sid|testing|unstable) echo - ;;
    *) echo "make-fixture: unknown Debian suite $1" >&2; return 1 ;;
    esac
}

while read -r suite release vmlinuz; do
    [ -n "$suite" ] || continue
    v=$(version_of "$suite")
    dest=$out/debian/$v/$arch/$release.btf
    if [ -f "$dest" ] && [ "$dest" -nt "$vmlinuz" ]; then echo "$release debian $v"; continue; fi
    mkdir -p "$(dirname "$dest")"
    bash "$here/extract-vmlinux-btf.sh" "$vmlinuz" "$dest.tmp"
    mv "$dest.tmp" "$dest"
    echo "$release debian $v"
done
