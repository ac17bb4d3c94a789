/*
 * What one runtime (an interpreter: CPython today; Ruby, PHP, the JVM each
 * a file later) gives core/runtime/runtime.c: find it in a process from its
 * files' symbols and its memory, its layout for the kernel walk, a thread's
 * frames walked from memory, a frame named. runtime.c does the rest for all
 * of them alike: which file of a process holds one, the frames spliced into
 * native chains, names cached, thread ids across PID namespaces. Every
 * read goes through struct stk_mem: the process is untrusted.
 */
#ifndef STK_RUNTIME_CLASS_H
#define STK_RUNTIME_CLASS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/runtime_types.h"
#include "core/runtime/proc_mem.h"

/* Bytes of a name or file name named (escaped UTF-8 and its NUL). */
#define STK_RT_NAME_MAX 5128

/* Where a walk is in one thread's frames, from one eval-loop run to the next. */
struct stk_rt_cursor {
	uint64_t state;   /* the thread's state (the runtime's) */
	uint64_t frame;   /* the next frame to read (0: none left) */
	uint64_t cframe;  /* the runtime's own per-run state, where it keeps one (Python 3.11's _PyCFrame) */
	bool started;     /* frame was read from the state */
	uint32_t read;    /* frames read so far */
	__u64 saved;      /* cycle check (Brent's, bpf/runtime_types.h): a frame seen, compared with each next one */
	__u32 power, steps;
	const char *stop; /* why the walk ended early (static), or NULL */
};

/* A code object named: what its frames show (name and file the caller's), and how its lines are found. */
struct stk_rt_code {
	const char *name, *file;
	int32_t first_line;
	uint8_t *table; /* line table (malloc'd; the caller's once named) */
	size_t table_len;
	uint64_t instr_base; /* the runtime address of the first instruction */
};

struct stk_runtime_class {
	const char *name;    /* "python" */
	const char *unnamed; /* a frame's name and module while its code cannot be named: "[python]" */
	uint32_t kind;       /* STK_RT_*: the frame words' kind */
	/* What of ELF file elf the runtime needs (symbols, version), or NULL: none of it. */
	void *(*scan_file)(Elf *elf);
	void (*free_file)(void *file);
	/* The file's version as text ("3.11"), for -v. */
	const char *(*file_version)(const void *file, char *buf);
	/*
	 * The runtime in a process that maps file at bias (runtime address = ELF
	 * address + bias), its layout read from the table or the process: its
	 * state (freed with free_proc), or NULL with why.
	 */
	void *(*find)(const void *file, uint64_t bias, struct stk_mem *mem, char *why, size_t len);
	void (*free_proc)(void *proc);
	/* The kernel walk's layout of the process. 0, or -1 when the kernel cannot walk it. */
	int (*kernel_layout)(const void *proc, struct stk_rt_proc *out);
	/*
	 * Each thread's state, newest first where the runtime keeps them so:
	 * fn(ctx, its id in its PID namespace, the state's address), which
	 * returns true to stop. 0, or -1.
	 */
	int (*threads)(const void *proc, struct stk_mem *mem, bool (*fn)(void *ctx, uint32_t ns_tid, uint64_t state),
		       void *ctx);
	/*
	 * The frames one eval-loop run was running, from c (c->state set; the
	 * first run starts at the thread's current frame), as chain words into
	 * out (room words at most, two per frame); c moves to the next run's.
	 * *mark: an address on the stack of the native frame that ran the run
	 * (bpf/runtime_types.h), 0 when it is not known (a run cut short before
	 * the end that carries it). Returns the words written.
	 */
	size_t (*walk_run)(const void *proc, struct stk_mem *mem, struct stk_rt_cursor *c, uint64_t *out, size_t room,
			   uint64_t *mark);
	/*
	 * The code object code (the frame word's address), whose aux word
	 * carried check: its name and file into name and file (STK_RT_NAME_MAX
	 * bytes each), the rest into out. 0, or -1 with why.
	 */
	int (*name_code)(const void *proc, struct stk_mem *mem, uint64_t code, uint32_t check, char *name, char *file,
		    struct stk_rt_code *out, const char **why);
	/* The line of instruction instr (the aux word's; STK_RT_NO_INSTR: none yet) of a code object named. */
	uint32_t (*line)(const struct stk_rt_code *code, uint32_t instr);
	/* The runtime address of instruction instr (for the frame's address). */
	uint64_t (*instr_address)(const struct stk_rt_code *code, uint32_t instr);
};

/* The runtimes, each in its own file. */
extern const struct stk_runtime_class stk_runtime_python;

/* Cycle check of a frame chain (bpf/runtime_types.h): true when frame was seen before in this walk. */
static inline bool stk_rt_cursor_cycle(struct stk_rt_cursor *c, uint64_t frame)
{
	return stk_rt_cycle(frame, &c->saved, &c->power, &c->steps);
}

#endif
