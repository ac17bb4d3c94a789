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
dir=$(bash "$root/ci/apt-source.sh" "$build" mimalloc bookworm)
mkdir -p "$(dirname "$out")"
# one translation unit (src/static.c) that also defines malloc, free, ... (MI_MALLOC_OVERRIDE)
${CC_MUSL:-musl-gcc} -std=gnu11 -O2 -DNDEBUG -DMI_MALLOC_OVERRIDE -DMI_STATIC_LIB -I"$dir/include" -c "$dir/src/static.c" -o "$out"
