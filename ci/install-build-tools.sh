#!/bin/bash
# Installs the Debian packages that building and testing stk need.
# Idempotent: does nothing when every tool is already present.
set -euo pipefail

# Build: compilers, BPF tools, musl, headers. Tests: g++ for C++ workloads,
# protoc + pprof's profile.proto schema to decode pprof output, xmllint for SVG;
# golang-go builds the real pprof tool from golang-github-google-pprof-dev's
# source (tests/integration/test_symbols.sh re-symbolizes stk's pprof output,
# with eu-unstrip from elfutils joining a stripped binary and its debug file);
# debuginfod serves debug files to the debuginfod client's test (iproute2 for its
# private network namespace, curl to poll it, openssl for a test CA); the ASan unit
# build links the host's libdw and libcurl (libdw-dev, libcurl4-openssl-dev).
# Packaging (make deb/rpm, tests/integration/test_packaging.sh): rpm provides
# rpmbuild, lintian and rpmlint check the packages, groff-base and man-db
# render the man page. The kernel matrix (tests/vm) boots kernels with qemu
# from a cpio initramfs. btf/extract-vmlinux-btf.sh unpacks vmlinuz payloads
# with the compressors' CLIs (Debian: lz4 for 5.10/6.1, zstd from 6.12).
# gawk next to Debian's default mawk: tests/integration/test_portability.sh
# runs the suites' awk programs under both. libclang-rt: libFuzzer (make fuzz).
# mmdebstrap: tests/integration/test_python.sh's Debian 13 and sid roots (3.13, 3.14);
# apache2-utils: its ab, the load on that suite's Python web server (and bench/python.sh's).
# tmux: a terminal of known size for tests that drive stk top's full-screen view
# (send-keys, capture-pane).
# arm64 (make ARCH=arm64): the aarch64 cross compiler, its UAPI headers and static glibc
# (the no-frame-pointer workload of the kernel matrix),
# qemu-user-static to run the aarch64 binary here, qemu-system-arm to boot
# the arm64 kernel matrix.
packages=(clang llvm libclang-rt-14-dev libiberty-dev bpftool musl-tools make gcc g++
          linux-libc-dev dpkg-dev busybox-static systemtap-sdt-dev libelf-dev libdw-dev libcurl4-openssl-dev zlib1g-dev
          xz-utils zstd lz4 bzip2 python3 util-linux iproute2 curl openssl procps file binutils
          protobuf-compiler golang-github-google-pprof-dev golang-go elfutils debuginfod libxml2-utils
          rpm lintian rpmlint groff-base man-db qemu-system-x86 cpio gawk mmdebstrap apache2-utils tmux
          gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu linux-libc-dev-arm64-cross libc6-dev-arm64-cross
          qemu-user-static qemu-system-arm)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-build-tools: missing packages: ${missing[*]} (run as root or install them)" >&2
    exit 1
fi
echo "install-build-tools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
