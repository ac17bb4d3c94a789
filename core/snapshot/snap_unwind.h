/*
 * A snapshot thread's user chain, unwound in user space with CFI
 * (core/unwind/unwind_dwarf.h) from its registers and stack copy. Where the
 * chain goes on past the copy, the thread's memory is read
 * (process_vm_readv); those words are trusted only if the thread has not
 * run since it was taken (its switch count and state say so), else the
 * chain is unwound again from the copy alone and ends where the copy does.
 */
#ifndef STK_SNAP_UNWIND_H
#define STK_SNAP_UNWIND_H

#include <stddef.h>

#include "core/snapshot/snapshot.h"
#include "core/unwind/unwind_dwarf.h"

struct stk_symbolizer;
struct stk_snap_unwinder;

/* proc_root: "/proc"; sym must keep ELF files (keep_elf). NULL when out of memory. */
struct stk_snap_unwinder *stk_snap_unwinder_new(struct stk_symbolizer *sym, const char *proc_root);
void stk_snap_unwinder_free(struct stk_snap_unwinder *u);
/* Reads pid's modules and scans their CFI now, before a snapshot, rather than at its first chain. */
void stk_snap_unwinder_prepare(struct stk_snap_unwinder *u, uint32_t pid);
/* t's user chain, leaf first, into r (ips, max set by the caller); r->stop always says why it ended. */
void stk_snap_unwind(struct stk_snap_unwinder *u, const struct stk_snap_thread *t, struct stk_unwind_result *r);
/* Threads whose chain went past their copy, and of those, the ones that had run meanwhile. */
void stk_snap_unwind_stats(const struct stk_snap_unwinder *u, size_t *read_more, size_t *ran);

#endif
