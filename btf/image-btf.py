#!/usr/bin/env python3
"""Copies the kernel's raw BTF out of an uncompressed kernel image that is
not an ELF file (arm64's Image, as Debian ships it in vmlinuz).

   btf/image-btf.py IMAGE OUT

The image holds .BTF as is: a header (magic 0xeB9F, version 1, hdr_len 24,
type and string section offsets and lengths) followed by the sections. The
largest candidate whose header is self-consistent (types first, strings
right after, string section starting and ending with NUL) is the vmlinux
BTF; the caller checks the result with bpftool."""
import struct
import sys


def candidates(data):
    magic = b"\x9f\xeb\x01\x00"  # 0xeB9F little-endian, version 1, flags 0
    at = data.find(magic)
    while at >= 0:
        hdr = data[at:at + 24]
        if len(hdr) == 24:
            _, _, _, hdr_len, type_off, type_len, str_off, str_len = struct.unpack("<HBBIIIII", hdr)
            end = at + hdr_len + str_off + str_len
            if (hdr_len == 24 and type_off == 0 and str_off == type_len and str_len > 0
                    and end <= len(data) and data[at + 24 + str_off] == 0 and data[end - 1] == 0):
                yield at, end
        at = data.find(magic, at + 1)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: image-btf.py IMAGE OUT\n")
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    best = max(candidates(data), key=lambda c: c[1] - c[0], default=None)
    if best is None:
        sys.stderr.write("image-btf: %s: no BTF header found\n" % sys.argv[1])
        return 1
    with open(sys.argv[2], "wb") as f:
        f.write(data[best[0]:best[1]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
