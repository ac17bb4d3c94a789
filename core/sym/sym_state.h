/*
 * The symbolizer's state, shared by its files (and by nothing else): the
 * file cache (sym_files.c: every ELF file parsed once, keyed by device and
 * inode, or build ID), the process table (sym_procs.c: each process's
 * executable mappings, learned when it is first seen, with the file
 * mappings it no longer has), kernel symbols (sym_kernel.c) and resolving
 * an address (sym_resolve.c), the bounds on all of it (sym_bounds.c);
 * symbolize.c holds the lifecycle and the API.
 */
#ifndef STK_SYM_STATE_H
#define STK_SYM_STATE_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/string_pool.h"
#include "core/sym/elf_symbols.h"
#include "core/sym/perf_map.h"
#include "core/sym/proc_maps.h"
#include "core/sym/symbolize.h"
#include "core/unwind/cfi_guard.h"

struct stk_dwarf_lines;
struct stk_kallsyms;
struct stk_debuginfod;

/* How often one process's maps are re-read when an address falls outside them (dlopen). */
#define MAX_MAPS_REFRESH 8
/* File mappings a process no longer has, kept so addresses taken while it had them still resolve. */
#define MAX_GONE_MAPS 64
/* How often one process's perf map is parsed (it grows as the JIT writes). */
#define MAX_PERF_MAP_LOADS 8
/* A miss looks for a newer perf map at most this often (anonymous code without one misses every time). */
#define PERF_MAP_RETRY_NS 200000000LL
/* Files whose DWARF stays open for source lines and inline frames (one fd each). */
#define MAX_DWARF_FILES 256

enum map_kind { MAP_FILE, MAP_VDSO, MAP_ANON, MAP_SPECIAL };

struct sym_file {
	struct stk_elf_file elf;
	int ok; /* 0: parse failed, kept so the file is not retried */
	Elf *unwind_elf; /* opts.keep_elf: the file itself for CFI, read with pread on unwind_fd */
	int unwind_fd;
	char *vdso_image; /* the vDSO's unwind_elf reads this copy */
	size_t vdso_size;
	struct stk_cfi_guard cfi_guard; /* of unwind_elf, once cfi_guard_done */
	bool cfi_guard_done;
	char **cfi_names; /* per CFI range: "module+0xSTART", made on first use */
	char *remote_name; /* set: no local debug file; ask debuginfod by build ID when first resolved */
	int dwarf_fd;      /* the file with this one's DWARF (itself or its debug file), while has_dwarf_fd */
	bool has_dwarf_fd, dwarf_tried, dwarf_error_noted;
	struct stk_dwarf_lines *dwarf; /* opened on first use */
};

struct file_key {
	uint64_t dev, ino;
	struct sym_file *file;
};

struct sym_map {
	uint64_t start, end, offset;
	const char *path; /* as /proc/PID/maps shows it (interned: s->strings) */
	enum map_kind kind;
	bool exe; /* the process's executable (/proc/PID/exe) */
	bool gone; /* no longer mapped (a library unloaded, a program before its exec): names only */
	struct sym_file *file;
};

struct sym_proc {
	pid_t pid;
	int err; /* -errno when the process could not be learned */
	struct sym_map *maps;
	size_t n_maps;
	unsigned refreshes;
	pid_t ns_pid; /* the pid inside its own namespace: it names the perf map */
	struct stk_perf_map *perf;
	off_t perf_size;
	unsigned perf_loads; /* a map that keeps changing is not re-read forever */
	int64_t perf_tried_ns; /* when it was last looked for (CLOCK_MONOTONIC), 0: never */
	uint64_t generation; /* a new one (s->generations) each time the mappings are read and differ */
	int64_t read_ns;     /* when they were last read (CLOCK_MONOTONIC) */
	void *unwinder;      /* the copy unwinder's state for this process (core/unwind/unwind_dwarf.h) */
	bool exited;         /* compacted: its mappings are final */
};

struct stk_symbolizer {
	struct stk_symbolizer_opts opts;
	char *kallsyms_path;
	struct stk_kallsyms *ksyms;
	int ksyms_tried;
	char ksyms_why[256];

	struct sym_file **files;
	size_t n_files, cap_files;
	struct file_key *keys; /* sorted by (dev, ino) */
	size_t n_keys, cap_keys;
	struct stk_string_pool *strings; /* mappings' paths */
	struct sym_proc **procs; /* sorted by pid */
	size_t n_procs, cap_procs;

	struct sym_file *vdso;
	int vdso_tried;

	struct stk_debuginfod *debuginfod; /* made on first need */
	int debuginfod_tried;
	unsigned dwarf_fds; /* kept open for source lines, at most MAX_DWARF_FILES */

	struct stk_symbolizer_stats stats;

	void (*unwinder_free)(void *state); /* frees procs' unwinder slots */

	struct sym_cached_frame *frame_cache; /* sym_frame_cache.c, made on first use */
	uint64_t generations; /* the last mappings generation handed out: each is the symbolizer's only one */

	/* Past the deadline or when asked to stop, nothing new is opened or parsed. */
	int64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
	stk_symbolizer_stop_fn stop_fn;
	void *stop_ctx;
	bool stopped;
};

/* sym_bounds.c */
void sym_note_failure(struct stk_symbolizer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Checked before each process or file is learned: the deadline and the stop request. */
bool sym_stopped(struct stk_symbolizer *s);
int64_t sym_monotonic_ns(void);

/* sym_files.c */
/* The file behind mapping e of pid, opened and parsed once; NULL when it cannot be. */
struct sym_file *sym_learn_file(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e);
/* The vDSO: every process on this host maps the same image as stk does. */
struct sym_file *sym_vdso_file(struct stk_symbolizer *s);
/* f's debug file from debuginfod, now (the first time one of its addresses is resolved). */
void sym_fetch_remote_debuginfo(struct stk_symbolizer *s, struct sym_file *f);
/* path without a " (deleted)" suffix (*deleted says whether it had one). */
void sym_strip_deleted(const char *path, char *out, size_t len, int *deleted);
/* f's CFI guard, scanned once per file. */
const struct stk_cfi_guard *sym_cfi_guard_of(struct sym_file *f);
void sym_file_free(struct sym_file *f);

/* sym_frame_cache.c: frames made before, by (pid, generation, address); kernel frames pid 0, generation 0. */
bool sym_frame_cached(const struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr,
		      bool return_address, struct stk_frame *frame);
void sym_frame_keep(struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr, bool return_address,
		    const struct stk_frame *frame);
void sym_frame_cache_free(struct stk_symbolizer *s);

/* sym_procs.c */
/* pid's entry, learned on first sight; NULL when stopped or out of memory. */
struct sym_proc *sym_get_proc(struct stk_symbolizer *s, pid_t pid);
const struct sym_map *sym_find_map(const struct sym_proc *p, uint64_t addr);
/* The mapping holding addr, the mappings read again (a bounded number of times) when none does. */
const struct sym_map *sym_proc_map_at(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr);
/* The perf map's name for addr (the map read again once when it has none). 0, or -1. */
int sym_proc_perf_name(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr, const char **name, uint64_t *off);
int sym_map_order(const void *a, const void *b);
void sym_maps_free(struct sym_map *maps, size_t n);
void sym_proc_free(struct stk_symbolizer *s, struct sym_proc *p);

/* sym_resolve.c */
void sym_resolve_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, bool return_address,
		      struct stk_frame *frame);

#endif
