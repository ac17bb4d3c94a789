#!/bin/bash
# The arm64 stk that make check cross-builds (make ARCH=arm64, $BUILD/arm64):
# an aarch64 static binary that runs under qemu-aarch64-static and says so.
SUITE=arm64
. "$(dirname "$0")/../lib.sh"
A=${STK_ARM64:-$BUILD/arm64/stk}
if [ "$(uname -m)" = aarch64 ]; then A=$STK; fi   # natively built on an arm64 host
[ -x "$A" ] || { fail binary_exists "no $A (make ARCH=arm64 BUILD=$BUILD/arm64)"; exit 0; }

expect_contains elf_machine_aarch64 "$(readelf -h "$A")" "AArch64"
expect_eq static_no_interp "$(readelf -l "$A" | grep -c INTERP)" 0
expect_eq static_no_needed "$(readelf -d "$A" 2>/dev/null | grep -c NEEDED)" 0

run() { if [ "$(uname -m)" = aarch64 ]; then "$@"; else qemu-aarch64-static "$@"; fi; }
command -v qemu-aarch64-static >/dev/null || [ "$(uname -m)" = aarch64 ] ||
    { fail qemu_user "no qemu-aarch64-static (ci/install-build-tools.sh installs qemu-user-static)"; exit 0; }
run_capture run "$A" --version
expect_eq version_exit_0 "$RC" 0
expect_contains version_names_stk "$OUT" "stk $(cat "$(dirname "$0")/../../VERSION")"
expect_contains version_names_aarch64 "$OUT" " for aarch64 with "
run_capture run "$A" --list
expect_eq list_applets "$(echo $OUT)" "profile stackcount offcputime threadstate info"
run_capture run "$A" profile --frobnicate
expect_eq bad_option_exit_2 "$RC" 2
expect_contains bad_option_named "$ERR" "--frobnicate"
