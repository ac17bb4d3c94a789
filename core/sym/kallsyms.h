/* /proc/kallsyms as a sorted table of kernel text symbols. */
#ifndef STK_KALLSYMS_H
#define STK_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stk_kallsyms;

/*
 * Parses kallsyms text (text symbols t/T/w/W only). NULL with why set when
 * the file cannot be read. Addresses that are all zero (kptr_restrict) give
 * a table with no symbols and stk_kallsyms_hidden() true.
 */
struct stk_kallsyms *stk_kallsyms_load(const char *path, char *why, size_t len);
struct stk_kallsyms *stk_kallsyms_parse(FILE *f);
void stk_kallsyms_free(struct stk_kallsyms *k);
size_t stk_kallsyms_count(const struct stk_kallsyms *k);
int stk_kallsyms_hidden(const struct stk_kallsyms *k);

/* Symbol containing addr: 0 with name, offset and module (NULL for vmlinux), -1 when none. */
int stk_kallsyms_lookup(const struct stk_kallsyms *k, uint64_t addr, const char **name,
			uint64_t *offset, const char **module);

#endif
