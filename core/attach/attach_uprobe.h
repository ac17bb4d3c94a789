/*
 * Attaching stackcount's program to user functions (uprobe.multi for many
 * when the kernel has it, 6.6+, else one uprobe each) and to USDT probes
 * (libbpf's USDT support, which handles semaphores through the kernel's
 * reference counter). Both attach by file, optionally only for one process.
 */
#ifndef STK_ATTACH_UPROBE_H
#define STK_ATTACH_UPROBE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/attach/attach_probe.h"
#include "core/probe/user_probe.h"

/* The user function ladder (uprobe.multi, then uprobe); forced: the rung to use or fail, or NULL. */
int stk_uprobe_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		      const struct stk_user_func_list *funcs, pid_t pid, const char *forced, char *err, size_t len);
/* probes: "provider:name" entries from core/probe/usdt_notes.c. */
int stk_usdt_attach(struct stk_probe_set *s, const struct stk_probe_load *load, const char *path,
		    char *const *probes, size_t n, pid_t pid, char *err, size_t len);

/*
 * For a capture that loads its programs with others' in one object (stk
 * record): the program of mechanism (a user function rung's name, or
 * "usdt"; without the --unwind suffix; NULL for another name), and the
 * functions or probes attached to that program of skel (the caller's, who
 * keeps it; program with its suffix). 0, or -1 with err and nothing attached.
 */
const char *stk_uprobe_program(const char *mechanism);
int stk_uprobe_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *mechanism, const char *program,
			 const char *path, const struct stk_user_func_list *funcs, pid_t pid, char *err, size_t len);
int stk_usdt_attach_in(struct stk_probe_set *s, struct stk_bpf *skel, const char *program, const char *path,
		       char *const *probes, size_t n, pid_t pid, char *err, size_t len);

#endif
