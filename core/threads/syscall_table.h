/*
 * Syscall numbers of the build architecture as names, and the little stk
 * knows about each: which argument is a file descriptor, and whether a
 * sleep in it is a wait for I/O (threadstate's "active" rule). The number
 * to name table is generated at build time from the target's UAPI headers
 * (asm/unistd_64.h on x86_64, asm-generic/unistd.h on arm64), so it matches
 * the kernel stk is built for.
 */
#ifndef STK_SYSCALL_TABLE_H
#define STK_SYSCALL_TABLE_H

#include <stdbool.h>

/* The name, or NULL for a number with none (unused, or another arch's). */
const char *stk_syscall_name(int nr);
/* "[sys_NAME]", a frame standing for the call's kernel frames (static); "[system call]" for a number with no name. */
const char *stk_syscall_frame(int nr);
/* The number of a name, or -1. */
int stk_syscall_number(const char *name);
/* Which argument (0-5) is a file descriptor, or -1 when none is. */
int stk_syscall_fd_arg(int nr);
/* A sleep in this syscall waits for data to move (reads, writes, sends, receives, fsync, AIO). */
bool stk_syscall_waits_for_io(int nr);
/* How many numbers the table covers (highest + 1). */
int stk_syscall_count(void);

#endif
