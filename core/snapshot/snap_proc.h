/*
 * pmp's mechanisms without BPF, from /proc and the threads' memory:
 *   proc    a blocked thread's stack pointer and pc from /proc/.../syscall
 *           (the kernel reads them while the thread is off CPU and checks it
 *           stayed so), its stack copied with process_vm_readv up to the end
 *           of that mapping; its switch count before and after, and the
 *           syscall file read again, tell whether it ran meanwhile. Only sp
 *           and pc are known, so CFI that needs another register's value
 *           before a callee saved it ends the chain there.
 *   ptrace  each thread stopped in turn for all its registers and the copy
 *           (core/snapshot/snap_ptrace.h), for kernels without the above.
 * Kernel stacks come from /proc/.../stack by name (CAP_SYS_ADMIN), a kernel
 * thread's too. A running thread is left pending for a sample as it runs.
 */
#ifndef STK_SNAP_PROC_H
#define STK_SNAP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/snapshot/snapshot.h"

struct stk_frame_names;
struct stk_snap_proc;

/*
 * proc_root "/proc" (tests may pass another); skip_tgid: stk itself;
 * stack_bytes: copied per thread at most; names: where kernel frame names
 * are interned (not owned); stop_threads: the ptrace mechanism. NULL when
 * out of memory.
 */
struct stk_snap_proc *stk_snap_proc_new(const char *proc_root, uint32_t skip_tgid, uint32_t stack_bytes,
					struct stk_frame_names *names, bool stop_threads);
/* One pass over the wanted threads, appended to out. 0, or -1 when proc_root cannot be read. */
int stk_snap_proc_take(void *impl, const struct stk_snap_want *want, struct stk_snap *out);
void stk_snap_proc_free(void *impl);
/* Whether this kernel shows a thread's registers in /proc/.../syscall: NULL, or why not. */
const char *stk_snap_proc_usable(const char *proc_root);

#endif
