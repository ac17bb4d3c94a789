#!/bin/bash
# ci/apt-source.sh BUILD PACKAGE SUITE: prints the directory of Debian's
# source of PACKAGE from SUITE, unpacked under BUILD/src/PACKAGE (fetched once,
# kept). apt-get source runs over a private list dir (BUILD/apt/SUITE), so the
# host's apt configuration is never touched. What ci/build-deps.sh,
# ci/build-mimalloc.sh and ci/build-ncurses.sh build from.
set -euo pipefail
build=$1 pkg=$2 suite=$3
d=$build/apt/$suite src=$build/src/$pkg
# its own cache too: two builds side by side (the host's and arm64's) must not share apt's package caches
apt_opts=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$d/lists"
          -o Dir::Cache="$d/cache")
mkdir -p "$d/cache/archives/partial"
if [ ! -d "$d/lists" ]; then
    mkdir -p "$d/lists/partial"
    echo "deb-src http://deb.debian.org/debian $suite main" > "$d/sources.list"
    apt-get -q "${apt_opts[@]}" update >/dev/null
fi
dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" 2>/dev/null | head -1 || true)
if [ -z "$dir" ]; then
    mkdir -p "$src"
    (cd "$src" && apt-get -q "${apt_opts[@]}" -o APT::Sandbox::User=root source "$pkg" >/dev/null 2>"$src.log") ||
        { cat "$src.log" >&2; exit 1; }
    dir=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -1)
fi
echo "$dir"
