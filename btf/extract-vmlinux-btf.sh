#!/bin/bash
# Writes the raw BTF (.BTF section) of a kernel image to OUT.
#   btf/extract-vmlinux-btf.sh VMLINUZ OUT
# VMLINUZ is a compressed kernel (bzImage, Image.gz ...) or a vmlinux ELF.
# The vmlinux inside a vmlinuz sits behind a decompressor stub: find each
# compression format's magic bytes, decompress from there with the format's
# own CLI (xz-utils, zstd, lz4, gzip, bzip2), keep the first result that is
# an ELF with a .BTF section. Trailing bytes after the payload make the CLIs
# complain; the output is checked instead of their exit status.
# arm64's vmlinuz is an uncompressed Image, not an ELF: its BTF is found by
# its header (btf/image-btf.py) and checked with bpftool.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 VMLINUZ OUT" >&2; exit 2; }
in=$1 out=$2
[ -r "$in" ] || { echo "extract-vmlinux-btf: $in: not readable" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# grep -c reads all of readelf's output: with pipefail, grep -q's early exit
# would make readelf die of SIGPIPE and the test fail at random.
has_btf() { [ "$(readelf -S "$1" 2>/dev/null | grep -c ' \.BTF ')" -gt 0 ]; }

elf=
if has_btf "$in"; then
    elf=$in
elif [ "$(od -An -c -j56 -N4 "$in" | tr -d ' ')" = 'ARMd' ]; then   # arm64 Image: "ARM\x64" at 56
    python3 "$(dirname "$0")/image-btf.py" "$in" "$tmp/out.btf" &&
        ${BPFTOOL:-bpftool} btf dump file "$tmp/out.btf" >/dev/null ||
        { echo "extract-vmlinux-btf: $in: no valid BTF in this arm64 Image" >&2; exit 1; }
    chmod 644 "$tmp/out.btf"
    mv "$tmp/out.btf" "$out"
    exit 0
else
    # format: magic (grep -P bytes) and the command that decompresses stdin.
    formats=(
        'zstd|\x28\xb5\x2f\xfd|zstd -dcq'
        'xz|\xfd\x37\x7a\x58\x5a\x00|xz -dcq'
        'lz4|\x02\x21\x4c\x18|lz4 -dcq'
        'gzip|\x1f\x8b\x08|gzip -dcq'
        'bzip2|\x42\x5a\x68|bzip2 -dcq'
    )
    for f in "${formats[@]}"; do
        IFS='|' read -r name magic cmd <<< "$f"
        command -v "${cmd%% *}" >/dev/null || continue
        # Only the first few candidates: the payload starts early in the image.
        for off in $(LC_ALL=C grep -obUaP "$magic" "$in" 2>/dev/null | cut -d: -f1 | head -4); do
            tail -c +"$((off + 1))" "$in" | $cmd > "$tmp/vmlinux" 2>/dev/null || true
            if has_btf "$tmp/vmlinux"; then elf=$tmp/vmlinux; break 2; fi
        done
    done
fi
[ -n "$elf" ] || { echo "extract-vmlinux-btf: $in: no vmlinux with a .BTF section inside (kernel built without CONFIG_DEBUG_INFO_BTF, or an unknown compression)" >&2; exit 1; }
objcopy -O binary --only-section=.BTF "$elf" "$tmp/out.btf"
[ -s "$tmp/out.btf" ] || { echo "extract-vmlinux-btf: $in: empty .BTF section" >&2; exit 1; }
chmod 644 "$tmp/out.btf"
mv "$tmp/out.btf" "$out"
