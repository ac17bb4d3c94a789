/*
 * A one-process table for the copy unwinder (core/unwind/unwind_dwarf.h) in
 * tests and fuzz targets whose mappings are their own: the caller fills
 * proc (pid, maps; generation 0), never reread; one_process_end frees the
 * unwinder's state.
 */
#ifndef STK_TEST_ONE_PROCESS_H
#define STK_TEST_ONE_PROCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/unwind/unwind_dwarf.h"

struct one_process {
	struct stk_process proc;
};

static inline struct stk_process *one_process_get(void *table, pid_t pid)
{
	(void)pid;
	return &((struct one_process *)table)->proc;
}

static inline bool one_process_reread(void *table, pid_t pid)
{
	(void)table;
	(void)pid;
	return false;
}

static inline struct stk_unwind_source one_process_source(struct one_process *o)
{
	return (struct stk_unwind_source){ .table = o, .process = one_process_get, .reread = one_process_reread };
}

static inline void one_process_end(struct one_process *o)
{
	stk_unwinder_slot_free(o->proc.unwinder);
	o->proc.unwinder = NULL;
}

#endif
