/*
 * A one-process table for the copy unwinder (core/unwind/unwind_dwarf.h) in
 * tests and fuzz targets whose modules come from a function of their own:
 * one slot, never reread, freed by one_process_end.
 */
#ifndef STK_TEST_ONE_PROCESS_H
#define STK_TEST_ONE_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/unwind/unwind_dwarf.h"

struct one_process {
	int (*modules)(void *ctx, pid_t pid, stk_unwind_module_fn fn, void *fn_ctx);
	void *ctx;
	void *slot;
};

static inline int one_process_modules(void *table, pid_t pid, stk_unwind_module_fn fn, void *fn_ctx)
{
	struct one_process *o = table;

	return o->modules(o->ctx, pid, fn, fn_ctx);
}

static inline void **one_process_slot(void *table, pid_t pid, uint64_t *generation)
{
	(void)pid;
	*generation = 0;
	return &((struct one_process *)table)->slot;
}

static inline bool one_process_reread(void *table, pid_t pid)
{
	(void)table;
	(void)pid;
	return false;
}

static inline struct stk_unwind_source one_process_source(struct one_process *o)
{
	return (struct stk_unwind_source){ o, one_process_modules, one_process_slot, one_process_reread };
}

static inline void one_process_end(struct one_process *o)
{
	stk_unwinder_slot_free(o->slot);
	o->slot = NULL;
}

#endif
