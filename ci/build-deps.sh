#!/bin/bash
# Builds the static musl libraries stk links against (zlib, libelf, libdw, libbpf,
# libiberty, BearSSL + libcurl for debuginfod) from Debian *source* packages into $DEPS (default build/deps).
# ARCH (the Makefile's: x86, arm64) is the target; one other than the build
# host's is cross-built with Debian's gcc-aarch64-linux-gnu and a musl built
# here from Debian's musl source (its musl-gcc wrapper lands in $DEPS/bin).
# Sources come from `apt-get source` through a private apt list dir, so the
# host's apt configuration is never touched. A stamp file makes reruns free;
# a new clone unpacks what another built from the same inputs (ci/build-cache.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
deps=${DEPS:-$build/deps}
src=$build/src
uapi=$build/uapi-include
stamp=$deps/.stamp
# Which suite each source package comes from. libbpf is taken from trixie:
# 1.5 has the kprobe attach modes (PMU vs legacy tracefs) stk forces per probe.
sources=("zlib bookworm" "elfutils bookworm" "libiberty bookworm" "libbpf trixie" "bearssl bookworm" "curl bookworm")

# The target: its compiler prefix, configure's --host, its UAPI headers.
host_arch=$(uname -m | sed -e 's/^x86_64$/x86/' -e 's/^aarch64$/arm64/')
arch=${ARCH:-$host_arch}
case $arch in
    "$host_arch") cross= ;;
    arm64) cross=aarch64-linux-gnu- ;;
    *) echo "build-deps: cannot build for ARCH=$arch on $(uname -m)" >&2; exit 2 ;;
esac
if [ -n "$cross" ]; then
    triplet=${cross%-}
    sources=("musl bookworm" "${sources[@]}")
    cc=$deps/bin/musl-gcc                 # written below, after musl is built
    host_flag=--host=$triplet
    uapi_src=/usr/$triplet/include        # linux-libc-dev-<arch>-cross
else
    triplet=$(gcc -print-multiarch)
    cc=musl-gcc
    host_flag=
    uapi_src=/usr/include
fi
ar=${cross}ar ranlib=${cross}ranlib
# The dependencies' own makefiles have their own ARCH (musl's is aarch64):
# make's command-line ARCH=arm64 must not reach them through MAKEFLAGS.
unset ARCH MAKEFLAGS MFLAGS MAKEOVERRIDES
# What is built from them: a change here rebuilds (the stamp holds both lists).
parts="zlib libelf libdw libbpf libiberty bearssl libcurl"
want="$(printf '%s\n' "${sources[@]}" "parts: $parts")"
[ -z "$cross" ] || want="ARCH=$arch
$want"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
start=$(date +%s)
rm -rf "$deps" && mkdir -p "$deps/lib/pkgconfig" "$deps/include" "$src"

# musl-gcc sees no kernel UAPI headers; give it linux/, asm/, asm-generic/ only.
mkdir -p "$uapi"
ln -sfn "$uapi_src/linux" "$uapi/linux"
if [ -n "$cross" ]; then ln -sfn "$uapi_src/asm" "$uapi/asm"
else ln -sfn "/usr/include/$triplet/asm" "$uapi/asm"; fi
ln -sfn "$uapi_src/asm-generic" "$uapi/asm-generic"

fetch() { # fetch SRCPKG SUITE -> prints the unpacked directory
    bash "$root/ci/apt-source.sh" "$build" "$1" "$2"
}

for s in "${sources[@]}"; do
    set -- $s
    fetch "$1" "$2" > "$src/$1.dir"
done

# The same sources, scripts and toolchain built before (another clone): unpacked, not built.
. "$root/ci/build-cache.sh"
cache_key=$(build_cache_key "$want" "target $arch" $(for s in "${sources[@]}"; do
    set -- $s
    (cd "$(dirname "$(cat "$src/$1.dir")")" && ls ./*.dsc)
done))
if build_cache_restore "deps-$arch" "$cache_key" "$deps"; then
    echo "$want" > "$stamp"
    echo "  DEPS     from the build cache ($(build_cache_dir)): $(tr '\n' ' ' < "$deps/VERSIONS")" >&2
    exit 0
fi

work=$build/deps-work
rm -rf "$work" && mkdir -p "$work"
log=$work/build.log
cflags="-O2 -fPIC"

if [ -n "$cross" ]; then
    echo "  DEPS     musl ($triplet)" >&2
    cp -a "$(cat "$src/musl.dir")" "$work/musl"
    (cd "$work/musl" && CC=${cross}gcc ./configure --target="$triplet" --disable-shared --enable-wrapper=gcc \
        --prefix="$deps/musl" && make -j2 && make install) >>"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
    mkdir -p "$deps/bin"
    printf '#!/bin/sh\n# musl-gcc for %s: musl built from Debian source, gcc from Debian.\nREALGCC=%sgcc exec "%s" "$@"\n' \
        "$triplet" "$cross" "$deps/musl/bin/musl-gcc" > "$cc"
    chmod +x "$cc"
fi

echo "  DEPS     zlib" >&2
cp -a "$(cat "$src/zlib.dir")" "$work/zlib"
(cd "$work/zlib" && CC=$cc AR=$ar RANLIB=$ranlib CFLAGS="$cflags" ./configure --static --prefix="$deps" &&
    make -j2 libz.a && make install) >>"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }

echo "  DEPS     libelf" >&2
# elfutils' configure insists on argp/fts/obstack, which libelf never uses:
# pre-seed those checks and build only libelf.a.
cp -a "$(cat "$src/elfutils.dir")" "$work/elfutils"
(cd "$work/elfutils" && ./configure $host_flag CC="$cc" AR="$ar" RANLIB="$ranlib" \
    CFLAGS="$cflags -Wno-error -I$deps/include -isystem $uapi" LDFLAGS="-L$deps/lib" \
    --disable-debuginfod --disable-libdebuginfod --without-bzlib --without-lzma \
    --without-zstd --disable-nls --disable-symbol-versioning \
    ac_cv_search_argp_parse="none required" ac_cv_search_fts_close="none required" \
    ac_cv_search__obstack_free="none required" ac_cv_header_argp_h=yes &&
    make -C libelf libelf.a) >>"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
cp "$work/elfutils/libelf/libelf.a" "$deps/lib/"
cp "$work/elfutils/libelf/libelf.h" "$work/elfutils/libelf/gelf.h" "$work/elfutils/libelf/nlist.h" "$deps/include/"
ver=$(basename "$(cat "$src/elfutils.dir")" | sed 's/elfutils-//')
cat > "$deps/lib/pkgconfig/libelf.pc" <<PC
prefix=$deps
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: libelf
Description: ELF access library (elfutils, static musl build)
Version: $ver
Libs: -L\${libdir} -lelf
Requires.private: zlib
Cflags: -I\${includedir}
PC

# --- libdw (begin): CFI unwinding (core/unwind/unwind_dwarf.c) ---
# From the same configured tree: libdw, libdwfl, libebl, the arch backends and
# libdwelf, merged into one libdw.a with elfutils' own error() (musl has none).
# libdwfl without argp-std.c (argp) and the bzip2/lzma/zstd readers (disabled);
# the backends' disassembler hooks are stubbed (libcpu needs obstack).
echo "  DEPS     libdw" >&2
ew=$work/elfutils
dwfl_objs=$(sed -n '/^libdwfl_a_SOURCES = /,/[^\\]$/p' "$ew/libdwfl/Makefile.am" | tr -d '\\' |
    sed 's/libdwfl_a_SOURCES =//' | tr ' \t' '\n\n' | grep '\.c$' | grep -v -e '^argp-std\.c$' -e '^linux-kernel-modules\.c$' | sed 's/\.c$/.o/')
(make -C "$ew/libdw" libdw.a && make -C "$ew/libebl" libebl.a && make -C "$ew/libdwelf" libdwelf.a &&
    make -j2 -C "$ew/backends" libebl_backends.a && make -j2 -C "$ew/libdwfl" $dwfl_objs &&
    (cd "$ew/libdwfl" && $ar rcs libdwfl.a $dwfl_objs) && make -C "$ew/lib" error.o &&
    $cc $cflags -c -o "$ew/disasm_stubs.o" "$root/ci/libdw-disasm-stubs.c" &&
    printf '%s\n' "create $deps/lib/libdw.a" "addlib $ew/libdwfl/libdwfl.a" "addlib $ew/libdw/libdw.a" \
        "addlib $ew/libebl/libebl.a" "addlib $ew/backends/libebl_backends.a" "addlib $ew/libdwelf/libdwelf.a" \
        "addmod $ew/lib/error.o" "addmod $ew/disasm_stubs.o" save end | $ar -M) >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }
mkdir -p "$deps/include/elfutils"
cp "$ew/libdw/libdw.h" "$ew/libdwfl/libdwfl.h" "$ew/libdwelf/libdwelf.h" "$ew/libdw/known-dwarf.h" \
   "$ew/version.h" "$deps/include/elfutils/"
cp "$ew/libdw/dwarf.h" "$deps/include/"
# --- libdw (end) ---

echo "  DEPS     libbpf" >&2
cp -a "$(cat "$src/libbpf.dir")" "$work/libbpf"
# -Wno-error: musl's limits.h and linux/limits.h both define NGROUPS_MAX.
(cd "$work/libbpf/src" && PKG_CONFIG_LIBDIR="$deps/lib/pkgconfig" make -j2 BUILD_STATIC_ONLY=1 \
    CC="$cc" AR="$ar" PREFIX="$deps" LIBDIR="$deps/lib" \
    EXTRA_CFLAGS="$cflags -Wno-error -I$deps/include -isystem $uapi" install) >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }

echo "  DEPS     libiberty" >&2
cp -a "$(cat "$src/libiberty.dir")" "$work/libiberty"
mkdir -p "$work/libiberty/build"
(cd "$work/libiberty/build" && ../libiberty/configure $host_flag --disable-multilib --prefix="$deps" \
    CC="$cc" AR="$ar" RANLIB="$ranlib" CFLAGS="$cflags" && make -j2) >>"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
cp "$work/libiberty/build/libiberty.a" "$deps/lib/"
mkdir -p "$deps/include/libiberty"
cp "$work/libiberty/include/demangle.h" "$work/libiberty/include/libiberty.h" \
   "$work/libiberty/include/ansidecl.h" "$deps/include/libiberty/"

# --- libcurl (begin): debuginfod client (core/sym/debuginfod.c) ---
# HTTP and HTTPS only, TLS from BearSSL (small, MIT-licensed so it may be linked
# into GPL-2.0-only stk, builds with musl as is), the threaded resolver so DNS
# obeys timeouts.
echo "  DEPS     bearssl" >&2
cp -a "$(cat "$src/bearssl.dir")" "$work/bearssl"
(make -j2 -C "$work/bearssl" CC="$cc" AR="$ar" LD="$cc" LDDLL="$cc" CFLAGS="$cflags" lib &&
    cp "$work/bearssl/build/libbearssl.a" "$deps/lib/" && cp "$work/bearssl/inc/"*.h "$deps/include/") \
    >>"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
echo "  DEPS     libcurl" >&2
cp -a "$(cat "$src/curl.dir")" "$work/curl"
(cd "$work/curl" && ./configure $host_flag CC="$cc" AR="$ar" RANLIB="$ranlib" CFLAGS="$cflags" CPPFLAGS="-I$deps/include -isystem $uapi" \
    LDFLAGS="-L$deps/lib" PKG_CONFIG_LIBDIR="$deps/lib/pkgconfig" --disable-shared --enable-static \
    --with-bearssl="$deps" --enable-threaded-resolver --without-zlib --without-brotli --without-zstd \
    --without-libpsl --without-libidn2 --without-nghttp2 --without-nghttp3 --without-ngtcp2 \
    --without-librtmp --without-libssh2 --without-libgsasl --without-ca-bundle --without-ca-path \
    --disable-ldap --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp \
    --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt \
    --disable-ftp --disable-file --disable-manual --disable-ntlm --disable-ntlm-wb \
    --disable-unix-sockets --disable-cookies --disable-alt-svc --disable-hsts --disable-doh \
    --disable-netrc --disable-progress-meter --disable-docs &&
    make -j2 -C lib libcurl.la && cp lib/.libs/libcurl.a "$deps/lib/" &&
    mkdir -p "$deps/include/curl" && cp include/curl/*.h "$deps/include/curl/") >>"$log" 2>&1 ||
    { tail -30 "$log" >&2; exit 1; }
# --- libcurl (end) ---

for s in "${sources[@]}"; do
    set -- $s
    basename "$(cat "$src/$1.dir")"
done > "$deps/VERSIONS"
rm -rf "$work"
echo "$want" > "$stamp"
build_cache_store "deps-$arch" "$cache_key" "$deps"
echo "  DEPS     built in $(( $(date +%s) - start ))s: $(tr '\n' ' ' < "$deps/VERSIONS")" >&2
