/*
 * The BTF archive linked into stk (build/gen/btf_archive.S, made by btf/ at
 * build time; empty without BTF_ARCHIVE) and resolution for the running
 * system: uname, os-release and that archive.
 */
#ifndef STK_BTF_EMBEDDED_H
#define STK_BTF_EMBEDDED_H

#include <stddef.h>

struct stk_btf_source;

/* The archive's bytes. */
const void *stk_btf_embedded_archive(size_t *size);
/* How many kernels it holds (0 when stk was built without BTF_ARCHIVE). */
unsigned stk_btf_embedded_count(void);
/* stk_btf_resolve() for this machine. Same return and ownership rules. */
int stk_btf_resolve_here(const char *explicit_file, struct stk_btf_source *src);

#endif
