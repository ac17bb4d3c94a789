/*
 * What a process maps, as every reader of mappings takes it: the
 * symbolizer (core/sym), the copy unwinder (unwind_dwarf.c) and the kernel
 * unwinder's tables (unwind_tables.c). One mapping type, one entry per file,
 * one per process. The process table and the file cache that make and own
 * them are the symbolizer's (core/sym/proc_table.c, core/sym/file_cache.c);
 * they live here because core/unwind is the lowest folder that reads
 * mappings, below core/sym. Each reader keeps its own state of a file or a
 * process in the entry itself (a slot of its type), so nothing is looked up
 * twice and nothing is kept in a second table.
 */
#ifndef STK_MAPPING_H
#define STK_MAPPING_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/unwind/cfi_guard.h"

enum stk_mapping_kind {
	STK_MAPPING_FILE,    /* a file's code */
	STK_MAPPING_VDSO,    /* the vDSO: the kernel maps the same image into every process, stk's own too */
	STK_MAPPING_ANON,    /* anonymous code (JITs) */
	STK_MAPPING_SPECIAL, /* [vsyscall], [uprobes], ...: nothing to read */
};

struct stk_file_table;    /* the kernel walk's table of one file: unwind_tables.c's */
struct stk_runtime_file;  /* what an interpreter's file holds for its frames: core/runtime's */

/*
 * One file that processes map: the file cache's entry, one per file (by
 * build ID, else device and inode), shared by every mapping of it in any
 * process and kept until the cache goes. This part is what the unwinders
 * read; the symbolizer's part (symbols, debug files) is the cache's.
 */
struct stk_file {
	Elf *elf;          /* the file for the unwinders, read with pread (NULL: not kept) */
	int fd;            /* what elf reads (-1: it reads image) */
	void *image;       /* the vDSO's copy that elf reads */
	size_t image_size;
	struct stk_cfi_guard cfi_guard; /* what of its CFI libdw may run, once cfi_scanned */
	bool cfi_scanned;
	struct stk_file_table *table; /* its table in the kernel's maps (NULL: none asked for) */
	struct stk_runtime_file *runtime; /* an interpreter's symbols (NULL: none); the cache's, scanned when learned */
};

/* f's CFI guard (f->elf set), scanned on first need: every process mapping f shares the verdict. */
const struct stk_cfi_guard *stk_file_cfi_guard(struct stk_file *f);
/* Releases what the unwinders keep of f (elf, fd, image, guard). The kernel tables let go of it first. */
void stk_file_release(struct stk_file *f);

/* One executable mapping of a process. */
struct stk_mapping {
	uint64_t start, end, offset; /* as /proc/PID/maps shows them */
	const char *path;            /* as /proc/PID/maps shows it; the process table's, interned */
	struct stk_file *file;       /* FILE and VDSO: its file (NULL: it could not be read); else NULL */
	enum stk_mapping_kind kind;
	bool exe;  /* the process's executable (/proc/PID/exe) */
	bool gone; /* no longer mapped (a library unloaded, a program before its exec): kept for names only */
};

/*
 * A range of JIT code with CFI its JIT wrote (a jitdump's unwinding record):
 * file is an ELF in memory holding that CFI for code at address 0
 * (jit_cfi.h), shared by the ranges with the same CFI; the process table's.
 */
struct stk_jit_code {
	uint64_t start, end;
	struct stk_file *file;
};

struct stk_unwinder_proc; /* the copy unwinder's state of one process: unwind_dwarf.c's */
struct stk_proc_tables;   /* a process's part of the kernel tables: unwind_tables.c's */
struct stk_runtime_proc;  /* a process's interpreter (its frames' names too): core/runtime's */

/*
 * One process of the process table: learned when first seen, kept after it
 * exits (compacted to what its stacks name), its entry living as long as
 * the table.
 */
struct stk_process {
	pid_t pid;
	struct stk_mapping *maps; /* sorted by start */
	size_t n_maps;
	uint64_t generation;      /* a new one each time the mappings (or the JIT code with CFI) are read and differ */
	/* JIT code with CFI, sorted by start (NULL: none); replaced only with a new generation */
	struct stk_jit_code *jit;
	size_t n_jit;
	struct stk_unwinder_proc *unwinder; /* freed by the table (stk_unwinder_slot_free) at exit */
	struct stk_proc_tables *tables;     /* set while loaded in the kernel's tables */
	/* its interpreter, looked for in the mappings of runtime_generation (core/runtime/runtime.h);
	 * kept after it exits (the names its stacks need), freed by the table */
	struct stk_runtime_proc *runtime;
	uint64_t runtime_generation;
	bool runtime_looked;
};

#endif
