#!/bin/bash
# Compiles a BTF archive into an object that defines stk_btf_archive_start
# and stk_btf_archive_end (core/bpf/btf_embedded.c reads them).
#   btf/embed.sh ARCHIVE OUT.o CC
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 ARCHIVE OUT.o CC" >&2; exit 2; }
archive=$(realpath "$1") out=$2 cc=$3
s=${out%.o}.S
cat > "$s" <<ASM
	.section .rodata.stk_btf_archive,"a"
	.balign 8
	.globl stk_btf_archive_start
stk_btf_archive_start:
	.incbin "$archive"
	.globl stk_btf_archive_end
stk_btf_archive_end:
	.section .note.GNU-stack,"",@progbits
ASM
$cc -c "$s" -o "$out"
