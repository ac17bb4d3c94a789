/* Is a --btf FILE really BTF? Checked up front, so a wrong file gets a clear error, not libbpf's. */
#ifndef STK_BTF_FILE_CHECK_H
#define STK_BTF_FILE_CHECK_H

#include <stddef.h>

/*
 * 0 when path is a readable regular file holding raw BTF (magic 0xeb9f,
 * version 1, a header whose sections lie inside the file) or an ELF file
 * with a .BTF section; else -1 with why ("not readable: ...", "not a BTF file ...").
 */
int stk_btf_file_check(const char *path, char *why, size_t len);

#endif
