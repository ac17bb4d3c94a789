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
expect_eq list_applets "$(echo $OUT)" "profile stackcount offcputime resources threadstate top pmp record report info"
run_capture run "$A" profile --frobnicate
expect_eq bad_option_exit_2 "$RC" 2
expect_contains bad_option_named "$ERR" "--frobnicate"

# Packages (make deb rpm ARCH=arm64): arm64/aarch64 names and fields, the
# same payload in both, holding exactly this binary; lintian and rpmlint as
# clean as on x86_64 (tests/integration/test_packaging.sh).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(cat "$ROOT/VERSION")
AB=$(dirname "$A") PKG=$(dirname "$A")/packaging
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if make -C "$ROOT" ARCH=arm64 BUILD="$AB" deb rpm >"$tmp/make.log" 2>&1; then
    pass make_deb_rpm
else
    fail make_deb_rpm "$(tail -5 "$tmp/make.log" | tr '\n' ' ')"; exit 0
fi
deb=$PKG/stk_${VERSION}_arm64.deb rpm=$PKG/stk-$VERSION-1.aarch64.rpm
[ -f "$deb" ] && pass deb_named_arm64 || fail deb_named_arm64 "no $deb: $(ls "$PKG")"
[ -f "$rpm" ] && pass rpm_named_aarch64 || fail rpm_named_aarch64 "no $rpm: $(ls "$PKG")"
expect_eq deb_architecture "$(dpkg-deb -f "$deb" Architecture)" arm64
expect_eq rpm_arch "$(rpm -qp --qf '%{ARCH}' "$rpm" 2>/dev/null)" aarch64
dpkg-deb -x "$deb" "$tmp/deb"
if cmp -s "$tmp/deb/usr/sbin/stk" "$A"; then pass deb_holds_arm64_binary
else fail deb_holds_arm64_binary "/usr/sbin/stk in the .deb is not $A"; fi
links=$(for a in $(run "$A" --list); do readlink "$tmp/deb/usr/sbin/stk-$a"; done | sort -u)
expect_eq deb_applet_links "$links" stk
dpkg-deb -c "$deb" | grep -v '^d' | sed -E 's/^([^ ]+ +){5}\.//' | grep -v '^/usr/share/lintian/' | sort >"$tmp/deb.list"
rpm -qlp "$rpm" 2>/dev/null | while read -r f; do
    if l=$(rpm -qp --qf '[%{FILENAMES} %{FILELINKTOS}\n]' "$rpm" 2>/dev/null | awk -v f="$f" '$1 == f { print $2 }') && [ -n "$l" ]
    then echo "$f -> $l"; else echo "$f"; fi
done | sort >"$tmp/rpm.all"
# rpm lists directories too; keep what the .deb lists (files and links).
grep -Fxf "$tmp/deb.list" "$tmp/rpm.all" >"$tmp/rpm.list"
if [ -s "$tmp/deb.list" ] && cmp -s "$tmp/deb.list" "$tmp/rpm.list"; then pass rpm_payload_equals_deb
else fail rpm_payload_equals_deb "$(diff "$tmp/deb.list" "$tmp/rpm.list" | grep '^[<>]' | tr '\n' ' ')"; fi
lintian --no-tag-display-limit "$deb" >"$tmp/lintian" 2>/dev/null
expect_eq lintian_no_errors "$(grep '^E:' "$tmp/lintian" | tr '\n' ' ')" ""
expect_eq lintian_no_warnings "$(grep '^W:' "$tmp/lintian" | tr '\n' ' ')" ""
rpmlint -c "$ROOT/packaging/rpm/rpmlint.toml" "$rpm" >"$tmp/rpmlint" 2>&1
expect_eq rpmlint_no_errors "$(grep ': E: ' "$tmp/rpmlint" | tr '\n' ' ')" ""
expect_eq rpmlint_only_explained_warnings \
    "$(grep ': W: ' "$tmp/rpmlint" | grep -v -e position-independent-executable-suggested -e no-url-tag | tr '\n' ' ')" ""
