/*
 * The user-space side of stackcount patterns: which file LIB names (a path,
 * an executable, a library, "c" for the C library; with a PID, the one that
 * process has mapped), and which of its functions match a name pattern, as
 * file offsets ready for uprobes.
 */
#ifndef STK_USER_PROBE_H
#define STK_USER_PROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/probe/name_match.h"

struct stk_user_file {
	char path[4200];    /* what to open and attach to (through /proc/PID/root with a PID) */
	char display[4096]; /* the path as the process or the file system names it */
};

/*
 * Resolves lib for pid (0: no process; libraries are searched in the
 * standard directories, executables in $PATH). 0, or -1 with err set.
 */
int stk_user_file_resolve(const char *lib, pid_t pid, struct stk_user_file *out, char *err, size_t len);
/* The library search of the no-PID case over the given NULL-terminated dirs (for tests). */
int stk_user_file_find_in(const char *lib, const char *const *dirs, char *path, size_t len);

struct stk_user_func {
	char *name;
	uint64_t offset; /* file offset of the entry, as uprobes want */
};

struct stk_user_func_list {
	struct stk_user_func *funcs;
	size_t n, cap;
};

/*
 * Functions of the ELF file at path whose names match m, one per entry
 * address (aliases keep the first name in sorted order). 0, or -1 with err.
 */
int stk_user_functions(const char *path, const struct stk_name_match *m, struct stk_user_func_list *out,
		       char *err, size_t len);
void stk_user_func_list_free(struct stk_user_func_list *l);

#endif
