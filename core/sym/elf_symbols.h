/*
 * One ELF file's function symbols, load segments, build ID and debuglink,
 * read through libelf and copied out so the file can be closed.
 */
#ifndef STK_ELF_SYMBOLS_H
#define STK_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Largest symbol or string table read (bytes); bigger ones are treated as absent. */
#define STK_ELF_MAX_TABLE (1ull << 30)
#include "core/unwind/cfi_ranges.h"

struct stk_elf_sym {
	uint64_t addr, size;
	uint32_t name; /* offset into the table's name arena */
	uint8_t bind;
};

struct stk_elf_load {
	uint64_t offset, vaddr, filesz;
};

struct stk_elf_file {
	struct stk_elf_sym *syms;
	size_t n_syms;
	char *names;
	size_t names_len;
	const char **display; /* lazily demangled names, per symbol (owned by the user) */
	struct stk_elf_load *loads;
	size_t n_loads;
	char build_id[129];   /* hex, "" when absent */
	char debuglink[256];  /* .gnu_debuglink file name, "" when absent */
	uint32_t debuglink_crc;
	int has_symtab;       /* symbols came from .symtab (not just .dynsym) */
	int has_dwarf;        /* a .debug_info section with contents */
	struct stk_cfi_ranges cfi; /* function ranges from CFI, read when there is no .symtab */
};

/* Parse from an fd (not closed) or an in-memory image. 0 or -1 with why. */
int stk_elf_file_from_fd(int fd, struct stk_elf_file *f, char *why, size_t len);
/*
 * STK_ELF_ALL_NAMES: every alias at an address (nanosleep beside __nanosleep),
 * names with their symbol version ("nanosleep@@GLIBC_2.2.5", also for .dynsym
 * through .gnu.version); for matching probe patterns, not for stk_elf_lookup.
 */
#define STK_ELF_ALL_NAMES 1u
int stk_elf_file_from_fd_flags(int fd, struct stk_elf_file *f, unsigned flags, char *why, size_t len);
int stk_elf_file_from_memory(const void *image, size_t size, struct stk_elf_file *f, char *why,
			     size_t len);
/* Just the build ID (hex into buf, "" when none): cheap check before a full parse. */
int stk_elf_build_id_fd(int fd, char *buf, size_t len);
/* Take over other's symbols (from a debug file); other is left empty. */
void stk_elf_file_take_symbols(struct stk_elf_file *f, struct stk_elf_file *other);
void stk_elf_file_release(struct stk_elf_file *f);

/* File offset -> ELF virtual address through the PT_LOAD holding it. 0 or -1. */
int stk_elf_offset_to_vaddr(const struct stk_elf_file *f, uint64_t file_offset, uint64_t *vaddr);
/* Index of the function symbol containing vaddr, or -1. */
long stk_elf_lookup(const struct stk_elf_file *f, uint64_t vaddr);

#endif
