/*
 * The symbolizer's state, shared by its files (and by nothing else): the
 * file cache (file_cache.c: every file a process maps, opened and parsed
 * once, found by hash on device and inode, or on build ID), the process
 * table (proc_table.c: each process's executable mappings, learned when it
 * is first seen, with the file mappings it no longer has), kernel symbols
 * (sym_kernel.c) and resolving an address (sym_resolve.c), the bounds on
 * all of it (sym_bounds.c); symbolize.c holds the lifecycle and the API.
 * The entries' shared parts (struct stk_process, stk_file, stk_mapping) are
 * core/unwind/mapping.h's: the unwinders read them too.
 */
#ifndef STK_SYM_STATE_H
#define STK_SYM_STATE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/key_index.h"
#include "core/base/string_pool.h"
#include "core/sym/elf_symbols.h"
#include "core/sym/jitdump.h"
#include "core/sym/perf_map.h"
#include "core/sym/proc_maps.h"
#include "core/sym/symbolize.h"
#include "core/unwind/mapping.h"

struct stk_dwarf_lines;
struct stk_kallsyms;
struct stk_debuginfod;

/* How often one process's maps are re-read when an address falls outside them (dlopen). */
#define MAX_MAPS_REFRESH 8
/* File mappings a process no longer has, kept so addresses taken while it had them still resolve. */
#define MAX_GONE_MAPS 64
/* How often one process's perf map is parsed (it grows as the JIT writes). */
#define MAX_PERF_MAP_LOADS 8
/* Distinct CFI of one process's JIT code made into files for the unwinder (CPython's is one for all). */
#define MAX_JIT_CFI_FILES 256
/* A miss looks for a newer perf map at most this often (anonymous code without one misses every time). */
#define PERF_MAP_RETRY_NS 200000000LL
/* Files whose DWARF stays open for source lines and inline frames (one fd each). */
#define MAX_DWARF_FILES 256

/* The file cache's entry: what the unwinders read of the file, then the symbolizer's part. */
struct sym_file {
	struct stk_file file; /* first: a mapping's file is this entry (sym_file_of) */
	struct stk_elf_file elf;
	int ok; /* 0: parse failed, kept so the file is not retried */
	char **cfi_names; /* per CFI range: "module+0xSTART", made on first use */
	char *remote_name; /* set: no local debug file; ask debuginfod by build ID when first resolved */
	int dwarf_fd;      /* the file with this one's DWARF (itself or its debug file), while has_dwarf_fd */
	bool has_dwarf_fd, dwarf_tried, dwarf_error_noted;
	struct stk_dwarf_lines *dwarf; /* opened on first use */
	bool mapped, gone; /* stk_symbolizer_forget_files' marks */
};

/* The entry behind a mapping's file (NULL stays NULL). */
static inline struct sym_file *sym_file_of(struct stk_file *f)
{
	_Static_assert(offsetof(struct sym_file, file) == 0, "a file is its entry's first member");
	return (struct sym_file *)f;
}

/* The file cache's index entries (key first): an inode opened, a build ID parsed (zero-padded, compared whole). */
struct sym_inode_key {
	uint64_t dev, ino;
	struct sym_file *file;
};
struct sym_build_id_key {
	char build_id[129];
	struct sym_file *file;
};

struct sym_file_cache {
	struct sym_file **all; /* every entry, in the order learned */
	size_t n_all, cap_all;
	struct sym_inode_key *inodes; /* every (dev, ino) opened, parsed or not */
	size_t n_inodes, cap_inodes;
	struct stk_key_index by_inode;
	struct sym_build_id_key *build_ids; /* the parsed files with a build ID */
	size_t n_build_ids, cap_build_ids;
	struct stk_key_index by_build_id;
	struct sym_file *vdso;
	int vdso_tried;
	unsigned dwarf_fds; /* kept open for source lines, at most MAX_DWARF_FILES */
};

/* The process table's entry: what the unwinders read of the process, then the table's part. */
struct sym_proc {
	struct stk_process proc; /* first: what the process table hands out */
	int err; /* -errno when the process could not be learned */
	unsigned refreshes;
	pid_t ns_pid; /* the pid inside its own namespace: it names the perf map */
	struct stk_perf_map *perf;
	off_t perf_size;
	unsigned perf_loads; /* a map that keeps changing is not re-read forever */
	int64_t perf_tried_ns; /* when it was last looked for (CLOCK_MONOTONIC), 0: never */
	/* the jitdump the process maps (jit-PID.dump): its mapping as last read, what was parsed of it */
	bool jit_mapped;
	uint64_t jit_map_start, jit_map_end, jit_inode;
	const char *jit_path; /* the strings pool's */
	struct stk_jitdump *jitdump;
	off_t jit_size;
	unsigned jit_loads;  /* bounded as the perf map's are */
	struct stk_file *jit_files; /* one per distinct CFI the unwinder is given (proc.jit points into them) */
	size_t n_jit_files;
	int64_t read_ns;     /* when the mappings were last read (CLOCK_MONOTONIC) */
	bool exited;         /* compacted: its mappings are final */
	int64_t exited_ns;   /* when it was compacted (CLOCK_MONOTONIC) */
};

struct sym_proc_table {
	struct sym_proc **all; /* sorted by pid */
	size_t n, cap;
	uint64_t generations; /* the last mappings generation handed out: each is the table's only one */
};

struct stk_symbolizer {
	struct stk_symbolizer_opts opts;
	char *kallsyms_path;
	struct stk_kallsyms *ksyms;
	int ksyms_tried;
	char ksyms_why[256];

	struct sym_file_cache files;
	struct stk_string_pool *strings; /* mappings' paths */
	struct sym_proc_table procs;

	struct stk_debuginfod *debuginfod; /* made on first need */
	int debuginfod_tried;

	struct stk_symbolizer_stats stats;

	struct sym_cached_frame *frame_cache; /* sym_frame_cache.c, made on first use */

	/* who else keeps a part of the entries (the kernel tables): asked before a file or process goes */
	struct stk_table_holder holder;

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

/* file_cache.c */
/* The file behind mapping e of pid, opened and parsed once; NULL when it cannot be. */
struct sym_file *sym_learn_file(struct stk_symbolizer *s, pid_t pid, const struct stk_map_entry *e);
/* The vDSO: every process on this host maps the same image as stk does. */
struct sym_file *sym_vdso_file(struct stk_symbolizer *s);
/* f's debug file from debuginfod, now (the first time one of its addresses is resolved). */
void sym_fetch_remote_debuginfo(struct stk_symbolizer *s, struct sym_file *f);
/* path without a " (deleted)" suffix (*deleted says whether it had one). */
void sym_strip_deleted(const char *path, char *out, size_t len, int *deleted);
void sym_file_cache_init(struct sym_file_cache *c);
void sym_file_cache_free(struct sym_file_cache *c);

/* sym_frame_cache.c: frames made before, by (pid, generation, address); kernel frames pid 0, generation 0. */
bool sym_frame_cached(const struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr,
		      bool return_address, struct stk_frame *frame);
void sym_frame_keep(struct stk_symbolizer *s, pid_t pid, uint64_t generation, uint64_t addr, bool return_address,
		    const struct stk_frame *frame);
void sym_frame_cache_free(struct stk_symbolizer *s);

/* proc_table.c */
/* pid's entry, learned on first sight; NULL when stopped or out of memory. */
struct sym_proc *sym_get_proc(struct stk_symbolizer *s, pid_t pid);
/* pid's entry when it is in the table (never learned here), else NULL. */
struct sym_proc *sym_find_proc(const struct stk_symbolizer *s, pid_t pid);
const struct stk_mapping *sym_find_map(const struct sym_proc *p, uint64_t addr);
/* The mapping holding addr, the mappings read again (a bounded number of times) when none does. */
const struct stk_mapping *sym_proc_map_at(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr);
/*
 * The JIT's name for addr, from its jitdump or its perf map (both read again
 * once when neither has it); *module says which ("[jitdump]", "[perf-map]"). 0, or -1.
 */
int sym_proc_perf_name(struct stk_symbolizer *s, struct sym_proc *p, uint64_t addr, const char **name, uint64_t *off,
		       const char **module);
void sym_proc_table_free(struct sym_proc_table *t);

/* sym_resolve.c */
void sym_resolve_user(struct stk_symbolizer *s, pid_t pid, uint64_t addr, bool return_address,
		      struct stk_frame *frame);

#endif
