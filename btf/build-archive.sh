#!/bin/bash
# Builds the BTF archive embedded in stk.
#   btf/build-archive.sh DIR|"" BPF_OBJECT PACKER OUT
# DIR is in btfhub-archive layout: ID/VERSION_ID/ARCH/RELEASE.btf or
# RELEASE.btf.tar.xz (any other file is ignored). For each kernel,
# `bpftool gen min_core_btf` keeps only the types BPF_OBJECT's CO-RE
# relocations use; PACKER (btf/pack.c) packs the results with an index into
# OUT and prints their sizes. An empty DIR argument packs an empty archive.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 DIR BPF_OBJECT PACKER OUT" >&2; exit 2; }
dir=$1 obj=$2 packer=$3 out=$4
BPFTOOL=${BPFTOOL:-bpftool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/manifest"

if [ -n "$dir" ]; then
    [ -d "$dir" ] || { echo "build-archive: BTF_ARCHIVE=$dir: not a directory" >&2; exit 2; }
    n=0
    # Sorted, so the same tree always gives the same archive.
    while IFS= read -r rel; do
        IFS=/ read -r id version arch file <<< "$rel"
        case $file in
        *.btf.tar.xz) release=${file%.btf.tar.xz}
            mkdir -p "$tmp/x" && rm -rf "$tmp/x"/*
            tar -xJf "$dir/$rel" -C "$tmp/x"
            in=$(find "$tmp/x" -type f -name '*.btf' -print -quit)
            [ -n "$in" ] || { echo "build-archive: $rel holds no .btf file" >&2; exit 1; } ;;
        *.btf) release=${file%.btf}; in=$dir/$rel ;;
        *) continue ;;
        esac
        n=$((n + 1))
        min=$tmp/min.$n.btf
        if ! "$BPFTOOL" gen min_core_btf "$in" "$min" "$obj" > "$tmp/log" 2>&1; then
            echo "build-archive: bpftool gen min_core_btf failed for $rel: $(tail -3 "$tmp/log")" >&2
            exit 1
        fi
        # btfhub keeps kernels without VERSION_ID under a placeholder: see btf/README.md.
        [ "$version" = "-" ] && version=
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$version" "$arch" "$release" "$min" \
            "$(stat -c %s "$in")" >> "$tmp/manifest"
    done < <(cd "$dir" && find -L . -mindepth 4 -maxdepth 4 -type f \( -name '*.btf' -o -name '*.btf.tar.xz' \) |
             sed 's|^\./||' | LC_ALL=C sort)
    [ "$n" -gt 0 ] || { echo "build-archive: no ID/VERSION_ID/ARCH/RELEASE.btf[.tar.xz] under $dir" >&2; exit 1; }
fi
"$packer" "$tmp/manifest" "$out.tmp"
mv "$out.tmp" "$out"
