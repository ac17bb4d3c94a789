#!/bin/bash
# ci/build-ncurses.sh DEPS/lib/libncursesw.a: ncursesw from Debian's source (bookworm), static, for
# `stk top`'s full-screen view. Wide-character, terminfo folded into the one
# library (no separate libtinfo), headers in $DEPS/include/ncursesw/. No C++ or
# Ada binding, no programs, tests, manpages or terminfo database in the output.
#
# A static binary meets hosts (containers, minimal images) without a terminfo
# database, so the common terminal descriptions are compiled in as fallbacks;
# a host's database, when present, still comes first (ncurses reads it before
# the fallbacks). The fallbacks come from the source's own misc/terminfo.src,
# compiled by tic and dumped by infocmp built here from the same source, so
# neither the build host's terminfo database nor its ncurses version matter.
#
# Fetched like ci/build-deps.sh's sources, through a private apt list dir; a
# separate library so a change here does not rebuild the other libraries.
# ARCH and CC_MUSL as for ci/build-mimalloc.sh (the Makefile passes them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
build=${BUILD:-$root/build}
mkdir -p "$(dirname "$out")"
deps=$(cd "$(dirname "$out")/.." && pwd)   # headers go to $deps/include/ncursesw
cc=${CC_MUSL:-musl-gcc}

# Terminals compiled in (each costs about 5 KB): xterm and its 256-colour
# twin (what most emulators, GNOME's and KDE's included, say), screen and tmux
# (where the tests run), the Linux console, the DEC terminals serial consoles
# claim, dumb, and the emulators that set TERM to their own entry (st,
# alacritty, foot; Debian's terminfo.src has no rxvt-unicode). ssh carries TERM
# to hosts that may have no entry for it. Each must be in terminfo.src.
fallbacks=xterm,xterm-256color,screen,screen-256color,tmux,tmux-256color,linux,vt100,vt220,dumb
fallbacks=$fallbacks,st-256color,alacritty,foot

host_arch=$(uname -m | sed -e 's/^x86_64$/x86/' -e 's/^aarch64$/arm64/')
case ${ARCH:-$host_arch} in
    "$host_arch") cross= ;;
    arm64) cross=aarch64-linux-gnu- ;;
    *) echo "build-ncurses: cannot build for ARCH=$ARCH on $(uname -m)" >&2; exit 2 ;;
esac
host_flag= && [ -z "$cross" ] || host_flag=--host=${cross%-}
# make's command-line ARCH must not reach ncurses' makefiles through MAKEFLAGS.
unset ARCH MAKEFLAGS MFLAGS MAKEOVERRIDES

dir=$(bash "$root/ci/apt-source.sh" "$build" ncurses bookworm)

work=$build/ncurses-work
rm -rf "$work" && mkdir -p "$work"
log=$work/build.log
fail() { tail -30 "$log" >&2; exit 1; }

# Built before from the same source, script and toolchain (another clone): unpacked, not built.
. "$root/ci/build-cache.sh"
cache_key=$(build_cache_key "ncurses $fallbacks" "target ${cross:-native}" "$(cd "$(dirname "$dir")" && ls ./*.dsc)")
if build_cache_restore "ncurses-${cross:-native}" "$cache_key" "$work/cached"; then
    rm -rf "$deps/include/ncursesw" "$out"
    mkdir -p "$deps/include"
    cp -a "$work/cached/ncursesw" "$deps/include/" && cp "$work/cached/libncursesw.a" "$out"
    rm -rf "$work"
    echo "  NCURSES  $(basename "$dir"): from the build cache" >&2
    exit 0
fi
common=(--without-shared --with-normal --without-debug --without-profile --without-cxx --without-cxx-binding
        --without-ada --without-tests --without-manpages --disable-db-install --without-pkg-config
        --disable-pc-files --without-gpm --enable-widec --disable-termcap)

# tic and infocmp for the build host, from the same source (the fallback table
# is infocmp's C dump of the library's own structures).
echo "  NCURSES  tic, infocmp (build host)" >&2
cp -a "$dir" "$work/host"
(cd "$work/host" && CC=${BUILD_CC:-gcc} ./configure "${common[@]}" --with-progs &&
    make -j2 -C include && make -j2 -C ncurses && make -j2 -C progs tic infocmp) >>"$log" 2>&1 || fail

# Debian's terminfo.src edit (its --with-xterm-kbs=del): xterm's backspace
# sends DEL, as in the database Debian installs.
WHICH_XTERM=xterm-new XTERM_KBS=DEL sh "$dir/misc/gen_edit.sh" > "$work/terminfo.sed" 2>>"$log"
sed -f "$work/terminfo.sed" "$dir/misc/terminfo.src" > "$work/terminfo.src"

echo "  NCURSES  libncursesw.a (fallbacks: $fallbacks)" >&2
cp -a "$dir" "$work/target"
# The host's database first (Debian's search order), then the fallbacks;
# ~/.terminfo and $TERMINFO/$TERMINFO_DIRS are honoured as usual.
(cd "$work/target" && ./configure $host_flag CC="$cc" AR="${cross}ar" RANLIB="${cross}ranlib" CFLAGS="-O2 -fPIC" \
    --prefix="$deps" --includedir="$deps/include/ncursesw" --libdir="$deps/lib" "${common[@]}" --without-progs \
    --disable-overwrite --with-database="$work/terminfo.src" --with-fallbacks="$fallbacks" \
    --with-tic-path="$work/host/progs/tic" --with-infocmp-path="$work/host/progs/infocmp" \
    --with-terminfo-dirs=/etc/terminfo:/lib/terminfo:/usr/share/terminfo \
    --with-default-terminfo-dir=/usr/share/terminfo &&
    make -j2 -C include && make -j2 -C ncurses libs) >>"$log" 2>&1 || fail
# configure drops the fallbacks silently when it misses tic/infocmp, and a
# name infocmp does not know leaves an empty slot: insist on every one.
for t in ${fallbacks//,/ }; do
    grep -q "\"\(.*|\)\?$t|" "$work/target/ncurses/fallback.c" ||
        { echo "build-ncurses: no fallback entry for $t" >&2; exit 1; }
done

rm -rf "$deps/include/ncursesw" "$out"
(cd "$work/target" && make -C include install && make -C ncurses install.libs) >>"$log" 2>&1 || fail
[ -f "$out" ] || { echo "build-ncurses: no $out after install" >&2; exit 1; }
mkdir -p "$work/stage"
cp -a "$deps/include/ncursesw" "$out" "$work/stage/"
build_cache_store "ncurses-${cross:-native}" "$cache_key" "$work/stage"
rm -rf "$work"
echo "  NCURSES  $(basename "$dir"): $(stat -c %s "$out") bytes" >&2
