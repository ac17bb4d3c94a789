/*
 * The one mechanism that stops a thread, as eu-stack and gdb do: seized
 * and interrupted (PTRACE_SEIZE, PTRACE_INTERRUPT), its registers read,
 * then let go (PTRACE_DETACH). pmp uses it only where nothing else can read
 * a blocked thread's registers, and says so.
 */
#ifndef STK_SNAP_PTRACE_H
#define STK_SNAP_PTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Stops tid. 0, or -1 with why set (nothing left attached). */
int stk_ptrace_stop(pid_t tid, char *why, size_t len);
/* A stopped thread's user registers in DWARF numbering (bpf/user_regs.h). 0 or -1. */
int stk_ptrace_regs(pid_t tid, uint64_t *regs, size_t n);
/* Lets a stopped thread go on. */
void stk_ptrace_resume(pid_t tid);

#endif
