#!/bin/bash
# ci/build-mimalloc.sh OUT.o: mimalloc from Debian's source (bookworm), one
# object the static musl link of stk takes malloc and its kin from in place of
# musl's (musl's own internal allocations keep musl's). musl's allocator hands
# a group of slots back to the kernel as soon as its last block is freed, so
# libdw's few small blocks per unwound frame mapped and unmapped pages: under
# emulation most of a walk's time (pmp's /proc walk on arm64 guests ran out of
# its budget at the third frame), fixed only by guesses at musl's heap layout
# that the next unrelated change undid. mimalloc keeps freed memory for reuse.
# bench/allocator.sh compares the two. Fetched like ci/build-deps.sh's sources,
# through a private apt list dir; a separate object so a change here does not
# rebuild the other libraries.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
build=${BUILD:-$root/build}
d=$build/apt/bookworm src=$build/src/mimalloc
if [ ! -d "$d/lists" ]; then
    mkdir -p "$d/lists/partial"
    echo "deb-src http://deb.debian.org/debian bookworm main" > "$d/sources.list"
    apt-get -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$d/lists" update >/dev/null
fi
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'mimalloc-*' 2>/dev/null | head -1 || true)
if [ -z "$dir" ]; then
    mkdir -p "$src"
    (cd "$src" && apt-get -q -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$d/lists" -o APT::Sandbox::User=root source mimalloc >/dev/null)
    dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'mimalloc-*' | head -1)
fi
mkdir -p "$(dirname "$out")"
# one translation unit (src/static.c) that also defines malloc, free, ... (MI_MALLOC_OVERRIDE)
${CC_MUSL:-musl-gcc} -std=gnu11 -O2 -DNDEBUG -DMI_MALLOC_OVERRIDE -DMI_STATIC_LIB -I"$dir/include" -c "$dir/src/static.c" -o "$out"
